package strictjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/leaf/strictjson"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name, text string
		kind       strictjson.Kind
		path       []string
	}{
		{"object", `{"tree":"tzdocs","limit":5}`, 0, nil},
		{"nested", ` {"a":{"b":[1,{"c":null}],"c":true}} `, 0, nil},
		{"surrogate pair", `{"q":"\ud83d\ude00"}`, 0, nil},
		{"escaped names differ", `{"a":1,"\u0062":2}`, 0, nil},
		{"names differ in case", `{"tree":1,"TREE":2}`, 0, nil},
		{"same name in two objects", `{"a":{"x":1},"b":{"x":1}}`, 0, nil},
		{"raw non-ASCII", `{"q":"über ☃ 😀"}`, 0, nil},
		{"duplicate", `{"tree":"nope","tree":"tzdocs"}`, strictjson.Duplicate, []string{"tree"}},
		{"duplicate by escape", `{"tree":1,"\u0074ree":2}`, strictjson.Duplicate, []string{"tree"}},
		{"nested duplicate", `{"a":[0,{"x":1,"x":2}]}`, strictjson.Duplicate, []string{"a", "1", "x"}},
		{"duplicate past the small set", `{"a0":0,"a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9,"b0":0,"b1":1,"b2":2,"b3":3,"b4":4,"b5":5,"b6":6,"b7":7,"a3":3}`, strictjson.Duplicate, []string{"a3"}},
		{"lone high surrogate", `{"q":"\ud800"}`, strictjson.BadString, []string{"q"}},
		{"high surrogate then letter", `{"q":"\ud800x"}`, strictjson.BadString, []string{"q"}},
		{"two high surrogates", `{"q":"\ud800\ud800"}`, strictjson.BadString, []string{"q"}},
		{"lone low surrogate", `{"q":"\udc00"}`, strictjson.BadString, []string{"q"}},
		{"raw FF FE in value", "{\"q\":\"a\xff\xfe\"}", strictjson.BadString, []string{"q"}},
		{"overlong", "{\"q\":\"\xc0\xaf\"}", strictjson.BadString, []string{"q"}},
		{"bad string in array", "{\"q\":[\"ok\",\"\xff\"]}", strictjson.BadString, []string{"q", "1"}},
		{"raw FF FE in name", "{\"\xff\xfe\":1}", strictjson.BadName, []string{}},
		{"lone surrogate in nested name", `{"a":{"\udfff":1}}`, strictjson.BadName, []string{"a"}},
		{"top-level bad string", "\"\xff\"", strictjson.BadString, []string{}},
		{"syntax", `{"a":`, strictjson.Syntax, []string{"a"}},
		{"bad escape", `{"a":"\x"}`, strictjson.Syntax, []string{"a"}},
		{"control character", "{\"a\":\"\n\"}", strictjson.Syntax, []string{"a"}},
		{"duplicate in a text cut short", `{"tree":"","tree"`, strictjson.Syntax, nil},
		{"bad string in a text cut short", `{"q":"\ud800",`, strictjson.Syntax, nil},
		{"bad names given twice", `{"\ud800":1,"\ud800":2}`, strictjson.BadName, []string{}},
		{"high surrogate at the end of a name", `{"a\ud800":1}`, strictjson.BadName, []string{}},
		{"duplicate before a bad string", `{"a":1,"a":"\udc00"}`, strictjson.Duplicate, []string{"a"}},
		{"trailing", `{} {}`, strictjson.Trailing, []string{}},
		{"trailing bracket", `{} ]`, strictjson.Trailing, []string{}},
		{"leading zero", `{"a":01}`, strictjson.Syntax, nil},
		{"empty", ``, strictjson.Syntax, []string{}},
		{"too deep", strings.Repeat("[", strictjson.MaxDepth+1) + strings.Repeat("]", strictjson.MaxDepth+1), strictjson.TooDeep, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := strictjson.Check([]byte(c.text))
			if c.kind == 0 {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var f *strictjson.Fault
			if !errors.As(err, &f) {
				t.Fatalf("Check = %v, want a fault of kind %d", err, c.kind)
			}
			if f.Kind != c.kind {
				t.Errorf("kind = %d, want %d (%v)", f.Kind, c.kind, err)
			}
			if c.path != nil && !reflect.DeepEqual(f.Path, c.path) {
				t.Errorf("path = %q, want %q", f.Path, c.path)
			}
		})
	}
}

// TestFaultTextHoldsNoWords pins that a fault's text names nothing of the
// text it was found in.
func TestFaultTextHoldsNoWords(t *testing.T) {
	for _, text := range []string{`{"zebra":1,"zebra":2}`, `{"zebra":"\ud800"}`, "{\"zebra\xff\":1}", `{"zebra":`} {
		err := strictjson.Check([]byte(text))
		if err == nil || strings.Contains(err.Error(), "zebra") {
			t.Errorf("Check(%q) = %v", text, err)
		}
	}
}

// FuzzCheck checks Check against encoding/json: it refuses what
// encoding/json does not decode, and a text it accepts decodes to what
// encoding/json decodes and holds no string encoding/json would alter.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"tree":"tzdocs"}`, `{"tree":"a","tree":"b"}`, `{"q":"\ud83d\ude00"}`, `{"q":"\ud800"}`,
		"{\"q\":\"\xff\"}", `[1,-0.5e+3,true,false,null,{"a":{}}]`, `{"a":{"b":1,"b":2}}`, `"\u00e9"`, ` 1 `, `{} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := strictjson.Check(raw)
		var f *strictjson.Fault
		if err != nil && !errors.As(err, &f) {
			t.Fatalf("Check = %v, not a *Fault", err)
		}
		valid := json.Valid(raw)
		if err == nil {
			if !valid {
				t.Fatalf("Check accepted %q, which encoding/json refuses", raw)
			}
			var v any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if derr := dec.Decode(&v); derr != nil {
				t.Fatalf("Check accepted %q, which does not decode: %v", raw, derr)
			}
			// Nothing was replaced: a U+FFFD decoded was written.
			if holdsReplacement(v) && !bytes.Contains(raw, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
				t.Fatalf("Check accepted %q, which decodes with U+FFFD replacements", raw)
			}
			if duplicates(raw) {
				t.Fatalf("Check accepted %q, which repeats a member name", raw)
			}
			return
		}
		if f.Offset < 0 || f.Offset > len(raw) {
			t.Fatalf("fault offset %d out of the text of %d bytes", f.Offset, len(raw))
		}
		switch f.Kind {
		case strictjson.Syntax, strictjson.Trailing:
			if valid {
				t.Fatalf("Check found a syntax fault (%v) in %q, which encoding/json accepts", err, raw)
			}
		case strictjson.Duplicate:
			if !valid || !duplicates(raw) {
				t.Fatalf("Check found %v in %q, which is not valid JSON or repeats no name", err, raw)
			}
		case strictjson.BadString, strictjson.BadName:
			if !valid {
				t.Fatalf("Check found %v in %q, which is not valid JSON", err, raw)
			}
		}
	})
}

// holdsReplacement reports whether a string or member name of v holds
// U+FFFD.
func holdsReplacement(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, utf8.RuneError)
	case []any:
		for _, e := range v {
			if holdsReplacement(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.ContainsRune(k, utf8.RuneError) || holdsReplacement(e) {
				return true
			}
		}
	}
	return false
}

// duplicates reports, by json.Decoder's tokens, whether an object of raw,
// which is valid JSON, repeats a member name.
func duplicates(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		names  map[string]bool
		object bool
		key    bool // the next token of an object is a name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return true
			}
			top.names[name] = true
			top.key = false
			continue
		}
		if top != nil && top.object {
			top.key = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, object: true, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// BenchmarkCheck measures the pass on a typical request body and on one
// of 64 KiB of non-ASCII text.
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"typical", `{"tree":"tzdocs","page":"/tzdocs/7.6/CimCmdlets/Get-CimClass/","limit":8000,"offset":0,"stamp":"` + strings.Repeat("ab", 32) + `"}`},
		{"64KiB", `{"tree":"cloud","query":"` + strings.Repeat("route über ", 64<<10/12) + `"}`},
	} {
		raw := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := strictjson.Check(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
