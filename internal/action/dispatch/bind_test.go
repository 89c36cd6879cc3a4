package dispatch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
)

// roundTrip is Bind as the JSON round trip defines it.
func roundTrip(args map[string]any, v any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return json.NewDecoder(bytes.NewReader(raw)).Decode(v)
}

type inner struct {
	Offset *int `json:"offset,omitempty"`
	Flag   bool `json:"flag"`
}

type request struct {
	Name  string  `json:"name"`
	Opt   *string `json:"opt,omitempty"`
	Small int8    `json:"small"`
	Plain int
	inner
}

type odd struct {
	Any   any      `json:"any"`
	U     uint     `json:"u"`
	List  []string `json:"list"`
	Named query.ContentID
}

// TestBindMatchesJSON checks Bind against the JSON round trip on the
// requests of the actions and on structs and arguments it hands to the
// round trip, refusals included.
func TestBindMatchesJSON(t *testing.T) {
	argSets := []map[string]any{
		{},
		{"page": "tzdocs/7.6/CimCmdlets/Get-CimClass", "limit": json.Number("16000")},
		{"tree": "tzdocs", "part": "full", "offset": json.Number("0"), "stamp": "abc"},
		{"query": "remote session", "offset": json.Number("-0")},
		{"id": "docs:tzdocs", "limit": nil, "stamp": nil},
		{"name": "n", "opt": "o", "small": json.Number("127"), "Plain": json.Number("-5"), "offset": json.Number("3"), "flag": true},
		{"name": "n", "small": json.Number("128")},
		{"name": "n", "small": json.Number("1.5")},
		{"name": "n", "small": json.Number("012")},
		{"name": "n", "small": json.Number("+1")},
		{"name": "n", "small": json.Number("1e2")},
		{"name": "n", "small": json.Number("x")},
		{"name": json.Number("1")},
		{"name": true},
		{"flag": "yes"},
		{"NAME": "upper", "Opt": "folded"},
		{"plain": json.Number("4")},
		{"ſmall": json.Number("1")},
		{"unknown": "ignored", "other": []any{1}},
		{"name": nil, "opt": nil, "flag": nil},
		{"name": "n", "offset": json.Number("99999999999999999999")},
		{"any": "x", "u": json.Number("3"), "list": []any{"a"}, "Named": map[string]any{}},
		{"u": json.Number("-1")},
		{"name": float64(3)},
		{"name": "bad \xff utf-8", "page": "\xfe"},
		{"name": "ok", "extra": json.Number("1.5")},
	}
	types := []func() any{
		func() any { return new(query.DocRequest) },
		func() any { return new(query.ContextRequest) },
		func() any { return new(query.ListRequest) },
		func() any { return new(request) },
		func() any { return new(odd) },
	}
	for _, args := range argSets {
		for _, mk := range types {
			got, want := mk(), mk()
			gerr := dispatch.Bind(args, got)
			werr := roundTrip(args, want)
			name := fmt.Sprintf("%T %v", got, args)
			if (gerr == nil) != (werr == nil) {
				t.Errorf("%s: Bind error %v; the round trip's %v", name, gerr, werr)
				continue
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Bind set %+v; the round trip sets %+v", name, got, want)
			}
		}
	}
}

func BenchmarkBind(b *testing.B) {
	args := map[string]any{"page": "tzdocs/7.6/CimCmdlets/Get-CimClass", "limit": json.Number("16000")}
	for b.Loop() {
		var req query.DocRequest
		if err := dispatch.Bind(args, &req); err != nil {
			b.Fatal(err)
		}
	}
}
