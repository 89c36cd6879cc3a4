package records

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// TestMarshalIsJSONMarshal holds Marshal to json.Marshal's bytes of the
// on-disk form, including the records it hands to json.Marshal.
func TestMarshalIsJSONMarshal(t *testing.T) {
	local := time.FixedZone("X", -(7*3600 + 1800))
	recs := []tzctx.Record{
		{},
		sample(1, time.Date(2026, 12, 1, 10, 37, 23, 123456789, time.UTC)),
		sample(2, time.Date(2026, 12, 1, 16, 7, 24, 1, local)),
		{Time: time.Date(2026, 12, 1, 10, 40, 0, 0, time.UTC), Action: "list_context", Code: tzctx.OK, Status: 200, Duration: time.Hour + 3},
		{Time: time.Now(), Action: "read_documentation", Subject: "docs:a&b <c>", Code: "ok", Duration: -1500},
		{Time: time.Now(), Action: "x", Subject: "\"quoted\" \\ \n \u2028 \xff é", Credential: "c", Account: "a", Application: "p", Version: "v",
			CodePoints: -3, Status: -1, Duration: math.MaxInt64},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Action: "year out of range"},
		{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), Action: "year before zero"},
		{Time: time.Now(), Action: "min duration", Duration: math.MinInt64},
		{Time: time.Now(), Action: "tiny", Duration: 10},
	}
	for _, d := range []time.Duration{0, 1, 10, 100, 999, 1000, 1001, 1010, 1100, 3667, -1, -999, -1001} {
		recs = append(recs, tzctx.Record{Time: time.Unix(0, int64(d)).UTC(), Action: "d", Duration: d})
	}
	for _, rec := range recs {
		r := rec
		r.Time = r.Time.UTC()
		want, werr := json.Marshal(onDisk{Record: r, US: micros(r.Duration)})
		got, gerr := Marshal(rec)
		if (gerr == nil) != (werr == nil) || (werr == nil && string(got) != string(want)) {
			t.Errorf("Marshal(%+v) = %s, %v\njson.Marshal:    %s, %v", rec, got, gerr, want, werr)
		}
	}
}

// TestMarshalMembers fails when tzctx.Record gains or loses a member
// appendRecord does not write: it writes them one by one.
func TestMarshalMembers(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[tzctx.Record]()
	for i := range rt.NumField() {
		tag := rt.Field(i).Tag.Get("json")
		if tag == "-" {
			continue
		}
		names = append(names, rt.Field(i).Name+" "+tag)
	}
	want := []string{"Time time", "Action action", "Transport transport", "Subject subject", "Code code", "Status status",
		"Credential credential,omitempty", "Account account,omitempty", "Application application,omitempty",
		"Version version,omitempty", "CodePoints code_points"}
	if !slices.Equal(names, want) {
		t.Errorf("tzctx.Record's members are\n%s\nappendRecord writes\n%s\nupdate appendRecord", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}
