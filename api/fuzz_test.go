package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
)

// maxDetail bounds the detail of a refusal of the request decoders,
// whatever the request.
const maxDetail = 400

// readDocumentation is the read_documentation action as the served
// contract defines it, for queryArgs.
var readDocumentation = sync.OnceValues(func() (*dispatch.Action, error) {
	c, err := schemas.Load()
	if err != nil {
		return nil, err
	}
	a, err := c.Action("read_documentation")
	if err != nil {
		return nil, err
	}
	return &dispatch.Action{Action: a}, nil
})

// checkRefusal checks a decoder's refusal: invalid_request (413 at most
// for the size bound), a bounded detail, and none of the given texts in
// it.
func checkRefusal(t *testing.T, err error, secrets []string) {
	t.Helper()
	var te *tzctx.Error
	if !errors.As(err, &te) || te.Code != tzctx.InvalidRequest {
		t.Fatalf("refusal %v is not an invalid_request *tzctx.Error", err)
	}
	if len(te.Detail) > maxDetail || !utf8.ValidString(te.Detail) {
		t.Fatalf("a detail of %d bytes: %.500q", len(te.Detail), te.Detail)
	}
	for _, s := range secrets {
		if strings.Contains(te.Detail, s) {
			t.Fatalf("detail %q holds the value %q", te.Detail, s)
		}
	}
}

// distinctive reports whether s is a text a detail could not hold by
// chance: at least 8 bytes, one of them an upper-case letter, a digit or
// not ASCII (the details' own words are lower case).
func distinctive(s string) bool {
	if len(s) < 8 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80 {
			return true
		}
	}
	return false
}

// stringValues returns the distinctive string values (not names) of v
// that are no part of a member name: a detail may name members, and must
// hold no value.
func stringValues(v any) []string {
	var vals, names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			vals = append(vals, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				names = append(names, k)
				walk(e)
			}
		}
	}
	walk(v)
	var out []string
	for _, s := range vals {
		if !distinctive(s) || strings.Contains(strings.Join(names, "\x00"), s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// FuzzBodyArgs fuzzes the POST body decoder: it never panics; a body it
// accepts decodes to exactly what encoding/json decodes; a refusal is an
// invalid_request with a bounded detail that holds no string value.
func FuzzBodyArgs(f *testing.F) {
	for _, s := range []string{
		`{"tree":"tzdocs"}`, `{"tree":"nope","tree":"tzdocs"}`, `{"tree":"cloud","x":{"a":1,"a":2}}`,
		`{"query":"\ud800"}`, `{"query":"\ud83d\ude00"}`, "{\"query\":\"\xff\xfe\"}", "{\"\xff\":1}",
		`{"tree":"cloud","limit":500,"offset":0,"stamp":"abc"}`, `[1]`, `{"a":`, `{} {}`, ``, `  `, `null`,
	} {
		f.Add([]byte(s))
	}
	tooLarge := tooLargeError("1048576B")
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := bodyArgs(bytes.NewReader(raw), tooLarge)
		var want any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		derr := dec.Decode(&want)
		if err != nil {
			var secrets []string
			if derr == nil {
				secrets = stringValues(want)
			}
			checkRefusal(t, err, secrets)
			return
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if len(args) != 0 {
				t.Fatalf("an empty body gave %v", args)
			}
			return
		}
		if derr != nil || dec.More() {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", raw, derr)
		}
		if !reflect.DeepEqual(any(args), want) {
			t.Fatalf("accepted %q as %v; encoding/json decodes %v", raw, args, want)
		}
	})
}

// FuzzQueryArgs fuzzes the GET parameter reader: it never panics; a
// refusal is an invalid_request with a bounded detail that holds no
// value and no name of a parameter that is not a member; what it accepts
// a POST of the same members reads as the same arguments.
func FuzzQueryArgs(f *testing.F) {
	for _, s := range []string{
		"tree=cloud", "tree=tzdocs&query=R&D", "tree=tzdocs&query=R%26D", "tree=cloud&tree=cloud",
		"page=%C0%AF", "page=%FF", "%FF=1", "limit=01", "limit=500&offset=0", "query=a+b%20c", "tree=%ZZ",
		"&&tree=cloud&", "limit=9007199254740992", "stamp=" + strings.Repeat("a", 64),
	} {
		f.Add(s)
	}
	a, err := readDocumentation()
	if err != nil {
		f.Fatal(err)
	}
	tooLarge := tooLargeError("1048576B")
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := queryArgs(raw, a)
		if err != nil {
			var secrets []string
			for _, kv := range strings.Split(raw, "&") {
				k, v, _ := strings.Cut(kv, "=")
				known := a.Name + " " + membersOf(a).list
				if key, kerr := url.QueryUnescape(k); kerr == nil && distinctive(key) && !strings.Contains(known, key) {
					secrets = append(secrets, key)
				}
				if val, verr := url.QueryUnescape(v); verr == nil && distinctive(val) && !strings.Contains(known, val) {
					secrets = append(secrets, val)
				}
			}
			checkRefusal(t, err, secrets)
			return
		}
		body, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("accepted %q as %v, which does not marshal: %v", raw, args, err)
		}
		posted, err := bodyArgs(bytes.NewReader(body), tooLarge)
		if err != nil {
			t.Fatalf("GET %q was accepted as %v; POST %s was refused: %v", raw, args, body, err)
		}
		if !reflect.DeepEqual(posted, args) {
			t.Fatalf("GET %q reads as %v, POST %s as %v", raw, args, body, posted)
		}
	})
}

// BenchmarkBodyArgs measures the POST decoder on a typical body and on
// one of 64 KiB, beside encoding/json's decode alone: the strict pass is
// the difference.
func BenchmarkBodyArgs(b *testing.B) {
	tooLarge := tooLargeError("1048576B")
	for _, c := range []struct{ name, body string }{
		{"typical", `{"tree":"tzdocs","page":"/tzdocs/7.6/CimCmdlets/Get-CimClass/","limit":8000,"offset":0,"stamp":"` + strings.Repeat("ab", 32) + `"}`},
		{"64KiB", `{"tree":"cloud","query":"` + strings.Repeat("route über ", 64<<10/12) + `"}`},
	} {
		raw := []byte(c.body)
		b.Run(c.name+"/bodyArgs", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := bodyArgs(bytes.NewReader(raw), tooLarge); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/decode-only", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				dec := json.NewDecoder(bytes.NewReader(raw))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
