package records

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// TestLastIsReadsTail: Last(dir, n) equals the last n records Read
// returns, over segments of several writers whose times interleave and
// whose modification times are those of their last records, for every n.
func TestLastIsReadsTail(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		lastIsReadsTail(t, seed)
	}
}

func lastIsReadsTail(t *testing.T, seed uint64) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 2))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for seg := 0; seg < 8; seg++ {
		// Segments of days apart, and two writers at once in each day.
		start := t0.Add(time.Duration(seg/2) * 24 * time.Hour)
		var body []byte
		var last time.Time
		for i := 0; i < 6; i++ {
			last = start.Add(time.Duration(rng.IntN(60)) * time.Minute)
			if i > 0 && last.Before(start) {
				last = start
			}
			start = last
			b, err := Marshal(tzctx.Record{Time: last, Action: "read_documentation", Transport: "http", Subject: fmt.Sprintf("docs:cloud:%d:%d", seg, i), Code: "ok", Status: 200})
			if err != nil {
				t.Fatal(err)
			}
			body = append(append(body, b...), '\n')
		}
		name := filepath.Join(dir, fmt.Sprintf("%sZ-%d-%x-%d.jsonl", start.Format("20060102T150405"), 100+seg, seg, 1))
		if err := os.WriteFile(name, body, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, last, last); err != nil {
			t.Fatal(err)
		}
	}
	all, _, err := Read(dir, Filter{})
	if err != nil || len(all) != 48 {
		t.Fatalf("Read: %d records, %v", len(all), err)
	}
	for n := 1; n <= len(all)+2; n++ {
		got, err := Last(dir, n)
		if err != nil {
			t.Fatal(err)
		}
		want := all[max(0, len(all)-n):]
		if !slices.EqualFunc(got, want, func(a, b tzctx.Record) bool { return a.Time.Equal(b.Time) && a.Subject == b.Subject }) {
			t.Fatalf("seed %d: Last(%d) differs from Read's last %d", seed, n, n)
		}
	}
	if _, err := Last(filepath.Join(dir, "absent"), 5); err != ErrNoRecords {
		t.Fatalf("Last of a missing folder: %v, want ErrNoRecords", err)
	}
}
