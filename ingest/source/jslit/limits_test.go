package jslit

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestBudget: a budget refuses the unit past its bound with the error its
// caller words, and observes a cancelled context when its count passes a
// multiple of 1,024, not before.
func TestBudget(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := NewBudget(ctx, 5000)
	refuse := func(max int) error { return fmt.Errorf("more than %d (%w)", max, ErrBound) }
	for i := 1; i <= 1023; i++ {
		if err := b.Spend(1, refuse); err != nil {
			t.Fatalf("unit %d: %v, want nil before 1,024", i, err)
		}
	}
	if err := b.Spend(1, refuse); !errors.Is(err, context.Canceled) || b.Used() != 1024 {
		t.Fatalf("unit 1,024: %v after %d, want context.Canceled", err, b.Used())
	}
	b = NewBudget(context.Background(), 10)
	if err := b.Spend(10, refuse); err != nil {
		t.Fatalf("10 of 10: %v", err)
	}
	if err := b.Spend(1, refuse); !errors.Is(err, ErrBound) || err.Error() != "more than 10 (over the bound)" {
		t.Fatalf("11 of 10: %v, want the caller's refusal", err)
	}
	if NewBudget(context.Background(), 0).Max() != DefaultMaxNodes {
		t.Error("a budget of 0 does not take the default")
	}
}
