package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
	"github.com/turnzerocloud/tzctx/query"
)

// stdlib is what Append must match: an Encoder without HTML escaping,
// less its newline.
func stdlib(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func check(t *testing.T, v any) {
	t.Helper()
	want, werr := stdlib(v)
	prefix := []byte("prefix:")
	got, gerr := jsonwire.Append(prefix, v)
	if werr != nil {
		if gerr == nil || gerr.Error() != werr.Error() {
			t.Errorf("Append(%#v) error %v; encoding/json's is %v", v, gerr, werr)
		}
		if string(got) != "prefix:" {
			t.Errorf("Append(%#v) failed and changed dst to %q", v, got)
		}
		return
	}
	if gerr != nil || !bytes.Equal(got, append(prefix, want...)) {
		t.Errorf("Append(%#v) = %q, %v\nencoding/json:   %q", v, got, gerr, want)
	}
}

type plain struct {
	Name     string            `json:"name"`
	Count    int               `json:"count"`
	Skipped  string            `json:"-"`
	Optional string            `json:"optional,omitempty"`
	Ptr      *int              `json:"ptr"`
	OptPtr   *int              `json:"opt_ptr,omitempty"`
	List     []string          `json:"list"`
	OptList  []int             `json:"opt_list,omitempty"`
	Map      map[string]any    `json:"map"`
	OptMap   map[string]string `json:"opt_map,omitempty"`
	Any      any               `json:"any"`
	Untagged bool
	U8       uint8  `json:"u8"`
	I64      int64  `json:"i64,omitempty"`
	Named    named  `json:"named"`
	Inner    *inner `json:"inner,omitempty"`
	hidden   string
}

type named string

type inner struct {
	Text   string `json:"text"`
	Offset int    `json:"offset"`
}

type tree struct {
	Name string  `json:"name"`
	Kids []*tree `json:"kids,omitempty"`
}

// Types encoding/json encodes by rules of their own, which Append hands
// back to it.
type (
	embedded struct {
		inner
		Extra string `json:"extra"`
	}
	stringOpt struct {
		N int `json:"n,string"`
	}
	omitZero struct {
		T time.Time `json:"t,omitzero"`
	}
	marshaler  struct{ X int }
	ptrMarshal struct{ X int }
	oddName    struct {
		A string `json:"a-b"`
		B string `json:"c d"`
		C string `json:"<&>"`
	}
)

// dupNames is a struct of two fields of one member name, built at run
// time: vet refuses the tags written out.
func dupNames() any {
	str := reflect.TypeFor[string]()
	t := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: str, Tag: `json:"a"`},
		{Name: "B", Type: str, Tag: `json:"a"`},
	})
	v := reflect.New(t).Elem()
	v.Field(0).SetString("a")
	v.Field(1).SetString("b")
	return v.Interface()
}

func (marshaler) MarshalJSON() ([]byte, error)   { return []byte(`{"custom": "<&>"}`), nil }
func (*ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`"pointer"`), nil }

// TestAppendMatchesEncodingJSON checks Append against encoding/json on
// the kinds of values answers are made of, and on those it hands back.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	n := 7
	next := 15992
	deep := &tree{Name: "root"}
	for cur, i := deep, 0; i < 5; i++ {
		kid := &tree{Name: strings.Repeat("k", i)}
		cur.Kids = append(cur.Kids, kid, &tree{})
		cur = kid
	}
	values := []any{
		nil, true, false, 0, -1, math.MaxInt64, math.MinInt64, uint64(math.MaxUint64), "", "a<b>&c",
		"line\nbreak\t\"quoted\" back\\slash \b\f\r \x00\x01\x1f\x7f",
		"\u2028\u2029 é 日本語 🙂 \xff\xfe invalid \xe2\x80 truncated \xed\xa0\x80 surrogate",
		named("named"), []string(nil), []string{}, []string{"a", "b"}, map[string]any(nil), map[string]any{},
		map[string]any{"z": 1, "a": "x", "m": []any{true, nil, "s", map[string]any{"k": "v"}}},
		map[string]int{"b": 2, "a": 1, "": 0, "é": 3, "A": 4},
		plain{}, &plain{}, (*plain)(nil),
		plain{Name: "n", Count: 3, Skipped: "no", Optional: "o", Ptr: &n, OptPtr: &n,
			List: []string{"x"}, OptList: []int{1}, Map: map[string]any{"k": []string{"v"}}, OptMap: map[string]string{"a": "b"},
			Any: &inner{Text: "t"}, Untagged: true, U8: 255, I64: -5, Named: "nm", Inner: &inner{"h", 2}, hidden: "h"},
		deep,
		query.Answer{}, &query.Answer{ContractVersion: 1, Stamp: "abc", Total: 381189, NextOffset: &next, ID: "docs:tzdocs",
			MimeType: "text/markdown", Continuation: "Read on.", Headings: []query.HeadingEntry{{Text: "# A <b>", Offset: 3}},
			Text: "# Title\n\n```powershell\nGet-ChildItem -Path \"C:\\\" | Where-Object { $_.Length -gt 1KB }\n```\n"},
		map[string]any{"error": map[string]any{"code": "invalid_request", "detail": "member \"x\" <must> be & so"}},
		// Handed back to encoding/json.
		1.5, float32(0.1), 1e21, []any{1.0, 2}, []byte("bytes"), [2]int{1, 2}, json.Number("12"),
		map[int]string{2: "b", 1: "a"}, embedded{inner{"t", 1}, "e"}, stringOpt{5}, omitZero{},
		marshaler{1}, []marshaler{{}}, &ptrMarshal{}, ptrMarshal{}, []*ptrMarshal{{}}, map[string]any{"m": marshaler{}},
		dupNames(), oddName{"1", "2", "3"}, time.Date(2026, 12, 1, 9, 0, 0, 5, time.UTC),
		errors.New("an error value"), struct{ F func() }{}, math.NaN(), map[string]any{"bad": math.Inf(1)},
		make(chan int), struct {
			A int `json:"a"`
			B any `json:"b"`
		}{1, []any{complex(1, 2)}},
	}
	for _, v := range values {
		check(t, v)
	}
}

// TestAppendStringRandom checks strings of the bytes that need a look of
// their own, at every alignment the eight-byte scan meets, against
// encoding/json.
func TestAppendStringRandom(t *testing.T) {
	pieces := []string{"a", "Z", " ", "~", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "日", "🙂", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xe2", "\xf0\x9f", "abcdefgh", "12345678901234567"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want, _ := stdlib(s)
		if got := jsonwire.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %q; encoding/json writes %q", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for pad := range 9 {
			s := strings.Repeat("x", pad) + string([]byte{byte(c)}) + strings.Repeat("y", 9-pad)
			want, _ := stdlib(s)
			if got := jsonwire.AppendString(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("AppendString(%q) = %q; encoding/json writes %q", s, got, want)
			}
		}
	}
}

// FuzzAppendString compares AppendString with encoding/json on any
// string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text", "\"\\\n\x00\u2028\xff", "日本語 🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := stdlib(s)
		if got := jsonwire.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %q; encoding/json writes %q", s, got, want)
		}
	})
}

// TestAppendConcurrent encodes one recursive type from many goroutines
// at once, the first use of its encoder among them, for the race
// detector.
func TestAppendConcurrent(t *testing.T) {
	type node struct {
		Name string           `json:"name"`
		Next *node            `json:"next"`
		Kids []node           `json:"kids"`
		Map  map[string]*node `json:"map"`
	}
	v := &node{Name: "a", Next: &node{Name: "b"}, Kids: []node{{Name: "c"}}, Map: map[string]*node{"d": {Name: "d"}}}
	want, _ := stdlib(v)
	done := make(chan []byte)
	for range 8 {
		go func() {
			got, _ := jsonwire.Append(nil, v)
			done <- got
		}()
	}
	for range 8 {
		if got := <-done; !bytes.Equal(got, want) {
			t.Errorf("Append = %q; want %q", got, want)
		}
	}
}

// BenchmarkAppendString encodes a page of Markdown of the kind page
// reads answer, with AppendString and with encoding/json.
func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("## Example 2: Get the files\n\nThis example gets the \"*.log\" files of a folder:\n\n"+
		"```powershell\nGet-ChildItem -Path C:\\Windows | Where-Object { $_.Name -like \"*.log\" }\n```\n\n"+
		"- [Get-Item](/tzdocs/7.6/Microsoft.PowerShell.Management/Get-Item/): gets the item at the location.\n", 40)
	b.Run("jsonwire", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		var buf []byte
		for b.Loop() {
			buf = jsonwire.AppendString(buf[:0], s)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			_ = enc.Encode(s)
		}
	})
}
