package records

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-12-01T09:00:00Z": time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		"24h":                  now.Add(-24 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-1h", "0s", "2026-12-01"} {
		if _, err := ParseSince(bad, now); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("ParseSince(%q): %v; want a refusal naming the forms it takes", bad, err)
		}
	}
}

func TestStatsNotes(t *testing.T) {
	for _, c := range []struct {
		st   Stats
		want []string
	}{
		{Stats{}, nil},
		{Stats{Skipped: 1}, []string{"skipped 1 damaged line that is not records (damage)"}},
		{Stats{Skipped: 2, Partial: 1}, []string{
			"skipped 2 damaged lines that are not records (damage)",
			"skipped 1 unfinished last line (a write in progress, or one a crash cut short)",
		}},
		{Stats{Partial: 3}, []string{"skipped 3 unfinished last lines (a write in progress, or one a crash cut short)"}},
	} {
		if got := c.st.Notes(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v.Notes() = %q; want %q", c.st, got, c.want)
		}
	}
}
