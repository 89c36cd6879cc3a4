// Package jsonwire writes the JSON of the answers the front ends send,
// byte for byte as an encoding/json Encoder with SetEscapeHTML(false)
// writes it, but appended to a caller's buffer and without the reflection
// and allocation encoding/json spends on every value.
//
// A page read answers several kilobytes of text in one JSON string, and
// encoding/json escapes it a byte at a time; jsonwire checks eight bytes
// at a time for the few that need escaping and copies the runs between
// them. It encodes the types answers are made of: booleans, integers,
// strings, structs without embedded fields, pointers, slices (other than
// of bytes), maps with string keys and interfaces holding any of these.
// Any other type (floats, byte slices, arrays, a type with its own
// MarshalJSON or MarshalText, a struct with an embedded field or a tag
// option other than omitempty) is encoded by encoding/json itself, so the
// bytes are always encoding/json's.
package jsonwire

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Append appends the JSON encoding of v to dst, as
// json.Encoder.Encode with SetEscapeHTML(false) writes it without the
// newline it ends with. Its error is encoding/json's for v; dst is then
// returned unchanged.
func Append(dst []byte, v any) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	rv := reflect.ValueOf(v)
	enc := encoderOf(rv.Type())
	out, ok := enc(dst, rv, 0)
	if !ok {
		return fallback(dst, v)
	}
	return out, nil
}

// AppendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping: invalid UTF-8 becomes \ufffd, and U+2028 and
// U+2029 are escaped.
func AppendString(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			// Eight bytes at once: a byte's high bit in t marks a byte
			// that is not ASCII (x's own bit), below 0x20, '"' or '\\'
			// (zero after the XOR). A subtraction's borrow runs only
			// from such a byte upwards, so the lowest mark is the first
			// byte to look at.
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			t := (x | (x - lows*0x20) | ((x ^ (lows * '"')) - lows) | ((x ^ (lows * '\\')) - lows)) & highs
			if t == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(t) / 8
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
		default:
			i += size
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

var hexDigits = "0123456789abcdef"

// safe marks the bytes a JSON string holds as they are with no look of
// their own: ASCII from 0x20 on, but '"' and '\\'.
var safe = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// fallback appends encoding/json's encoding of v.
func fallback(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// encoder appends the encoding of v and reports false where encoding/json
// must encode the value instead (an unsupported type, or nesting past
// maxDepth, where encoding/json looks for a cycle).
type encoder func(dst []byte, v reflect.Value, depth int) ([]byte, bool)

const maxDepth = 500

var (
	mu       sync.Mutex
	encoders sync.Map // reflect.Type to encoder
)

// encoderOf returns the encoder of t, building it once.
func encoderOf(t reflect.Type) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	mu.Lock()
	defer mu.Unlock()
	building := map[reflect.Type]*encoder{}
	e := build(t, building)
	// Published once whole: a recursive type's encoders call each other
	// through the pointers building holds, all of them set by now.
	for t, p := range building {
		encoders.Store(t, *p)
	}
	return e
}

// build returns the encoder of t; building holds the encoders under
// construction, so a recursive type refers to its own.
func build(t reflect.Type, building map[reflect.Type]*encoder) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	if p, ok := building[t]; ok {
		return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) { return (*p)(dst, v, depth) }
	}
	p := new(encoder)
	building[t] = p
	*p = newEncoder(t, building)
	return *p
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

func unsupported(dst []byte, _ reflect.Value, _ int) ([]byte, bool) { return dst, false }

func newEncoder(t reflect.Type, building map[reflect.Type]*encoder) encoder {
	if t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		(t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType))) {
		return unsupported
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(dst []byte, v reflect.Value, _ int) ([]byte, bool) {
			return strconv.AppendBool(dst, v.Bool()), true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(dst []byte, v reflect.Value, _ int) ([]byte, bool) {
			return strconv.AppendInt(dst, v.Int(), 10), true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(dst []byte, v reflect.Value, _ int) ([]byte, bool) {
			return strconv.AppendUint(dst, v.Uint(), 10), true
		}
	case reflect.String:
		return func(dst []byte, v reflect.Value, _ int) ([]byte, bool) {
			return AppendString(dst, v.String()), true
		}
	case reflect.Interface:
		return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
			if v.IsNil() {
				return append(dst, "null"...), true
			}
			e := v.Elem()
			return encoderOf(e.Type())(dst, e, depth)
		}
	case reflect.Pointer:
		elem := build(t.Elem(), building)
		return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
			if v.IsNil() {
				return append(dst, "null"...), true
			}
			if depth > maxDepth {
				return dst, false
			}
			return elem(dst, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return unsupported // base64, and []byte's own rules
		}
		elem := build(t.Elem(), building)
		return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
			if v.IsNil() {
				return append(dst, "null"...), true
			}
			if depth > maxDepth {
				return dst, false
			}
			dst = append(dst, '[')
			for i := range v.Len() {
				if i > 0 {
					dst = append(dst, ',')
				}
				var ok bool
				if dst, ok = elem(dst, v.Index(i), depth+1); !ok {
					return dst, false
				}
			}
			return append(dst, ']'), true
		}
	case reflect.Map:
		if t.Key() != reflect.TypeFor[string]() {
			return unsupported // keys of other types have encoding/json's own rules
		}
		elem := build(t.Elem(), building)
		return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
			if v.IsNil() {
				return append(dst, "null"...), true
			}
			if depth > maxDepth {
				return dst, false
			}
			members := make([]member, 0, v.Len())
			for it := v.MapRange(); it.Next(); {
				members = append(members, member{it.Key().String(), it.Value()})
			}
			slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
			dst = append(dst, '{')
			for i, m := range members {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = AppendString(dst, m.key)
				dst = append(dst, ':')
				var ok bool
				if dst, ok = elem(dst, m.val, depth+1); !ok {
					return dst, false
				}
			}
			return append(dst, '}'), true
		}
	case reflect.Struct:
		return structEncoder(t, building)
	}
	return unsupported
}

// member is one member of a map.
type member struct {
	key string
	val reflect.Value
}

// field is one member a struct encodes.
type field struct {
	index     int
	key       string // `"name":`
	omitEmpty bool
	enc       encoder
}

// structEncoder encodes a struct with no embedded field, whose tags give
// a valid name, omitempty or nothing; any other struct is unsupported.
func structEncoder(t reflect.Type, building map[reflect.Type]*encoder) encoder {
	var fields []field
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return unsupported // embedded fields have encoding/json's promotion rules
		}
		if !sf.IsExported() {
			continue
		}
		tag, tagged := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		switch opts {
		case "", "omitempty":
		default:
			return unsupported
		}
		if !tagged || name == "" {
			name = sf.Name
		}
		if !plainName(name) || seen[name] {
			return unsupported
		}
		seen[name] = true
		fields = append(fields, field{
			index:     i,
			key:       strconv.Quote(name) + ":",
			omitEmpty: opts == "omitempty",
			enc:       build(sf.Type, building),
		})
	}
	return func(dst []byte, v reflect.Value, depth int) ([]byte, bool) {
		if depth > maxDepth {
			return dst, false
		}
		dst = append(dst, '{')
		first := true
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.key...)
			var ok bool
			if dst, ok = f.enc(dst, fv, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
}

// plainName reports whether name is a member name of letters, digits and
// underscores, which encoding/json takes as it is and writes unescaped.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
