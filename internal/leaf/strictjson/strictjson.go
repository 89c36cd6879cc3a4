// Package strictjson checks a JSON text for what encoding/json lets pass
// silently: a member name given twice in one object (encoding/json keeps
// the last) and strings that are not valid UTF-8 or hold a lone surrogate
// escape (encoding/json turns them into U+FFFD). It is one linear pass
// over the bytes, made before the text is decoded.
package strictjson

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a Fault.
type Kind int

// The kinds of fault Check reports.
const (
	// Syntax is a text that is not one JSON value.
	Syntax Kind = iota + 1
	// Trailing is one JSON value followed by more than white space.
	Trailing
	// Duplicate is a member name given twice in one object.
	Duplicate
	// BadString is a string value that is not valid UTF-8 or holds a
	// lone surrogate escape.
	BadString
	// BadName is a member name that is not valid UTF-8 or holds a lone
	// surrogate escape.
	BadName
	// TooDeep is a text nested deeper than MaxDepth.
	TooDeep
)

// MaxDepth bounds the nesting of arrays and objects, as encoding/json
// bounds it.
const MaxDepth = 10000

// Fault is what Check finds wrong with a text. Its Error text names no
// member and holds nothing of the text: a name or value may be a query's
// words.
type Fault struct {
	Kind Kind
	// Path leads from the top-level value to the faulty one: member
	// names as decoded, and array indexes in decimal. For Duplicate its
	// last element is the name given twice; for BadName it leads to the
	// object holding the name.
	Path []string
	// Offset is the byte offset of the fault in the text.
	Offset int
}

// Error implements error.
func (f *Fault) Error() string {
	what := map[Kind]string{
		Syntax:    "not valid JSON",
		Trailing:  "more than one JSON value",
		Duplicate: "a member name given twice",
		BadString: "a string that is not valid UTF-8",
		BadName:   "a member name that is not valid UTF-8",
		TooDeep:   "nested too deep",
	}[f.Kind]
	return "json text: " + what + " at byte " + strconv.Itoa(f.Offset)
}

// step is one element of the path to the value being scanned.
type step struct {
	name  []byte // decoded
	index int    // -1 for a member name
}

type scanner struct {
	s    []byte
	i    int
	path []step
	// first is the first fault of a text that may yet prove not to be
	// JSON: a syntax fault is reported before it.
	first *Fault
}

// Check returns nil where raw is one JSON value, white space around it
// allowed, with every member name once in its object and every string
// valid UTF-8 without lone surrogate escapes; otherwise it returns a
// *Fault: of kind Syntax, Trailing or TooDeep where raw is not a JSON
// value encoding/json decodes, and otherwise the first fault in the text.
func Check(raw []byte) error {
	sc := &scanner{s: raw}
	sc.space()
	if f := sc.value(0); f != nil {
		return f
	}
	sc.space()
	if sc.i < len(sc.s) {
		return sc.fault(Trailing)
	}
	if sc.first != nil {
		return sc.first
	}
	return nil
}

// note keeps the fault of kind k at offset at, where it is the first.
func (sc *scanner) note(k Kind, at int) {
	if sc.first == nil {
		i := sc.i
		sc.i = at
		sc.first = sc.fault(k)
		sc.i = i
	}
}

func (sc *scanner) fault(k Kind) *Fault {
	p := make([]string, len(sc.path))
	for j, st := range sc.path {
		if st.index >= 0 {
			p[j] = strconv.Itoa(st.index)
		} else {
			p[j] = string(st.name)
		}
	}
	return &Fault{Kind: k, Path: p, Offset: sc.i}
}

func (sc *scanner) space() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

func (sc *scanner) value(depth int) *Fault {
	if sc.i >= len(sc.s) {
		return sc.fault(Syntax)
	}
	switch c := sc.s[sc.i]; {
	case c == '{':
		if depth >= MaxDepth {
			return sc.fault(TooDeep)
		}
		return sc.object(depth + 1)
	case c == '[':
		if depth >= MaxDepth {
			return sc.fault(TooDeep)
		}
		return sc.array(depth + 1)
	case c == '"':
		_, _, bad, f := sc.str()
		if f != nil {
			return f
		}
		if bad >= 0 {
			sc.note(BadString, bad)
		}
		return nil
	case c == '-' || ('0' <= c && c <= '9'):
		return sc.number()
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	}
	return sc.fault(Syntax)
}

func (sc *scanner) literal(lit string) *Fault {
	if !bytes.HasPrefix(sc.s[sc.i:], []byte(lit)) {
		return sc.fault(Syntax)
	}
	sc.i += len(lit)
	return nil
}

func (sc *scanner) digits() int {
	n := 0
	for sc.i < len(sc.s) && '0' <= sc.s[sc.i] && sc.s[sc.i] <= '9' {
		sc.i++
		n++
	}
	return n
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (sc *scanner) number() *Fault {
	if sc.s[sc.i] == '-' {
		sc.i++
	}
	switch {
	case sc.i < len(sc.s) && sc.s[sc.i] == '0':
		sc.i++
	case sc.digits() == 0:
		return sc.fault(Syntax)
	}
	if sc.i < len(sc.s) && sc.s[sc.i] == '.' {
		sc.i++
		if sc.digits() == 0 {
			return sc.fault(Syntax)
		}
	}
	if sc.i < len(sc.s) && (sc.s[sc.i] == 'e' || sc.s[sc.i] == 'E') {
		sc.i++
		if sc.i < len(sc.s) && (sc.s[sc.i] == '+' || sc.s[sc.i] == '-') {
			sc.i++
		}
		if sc.digits() == 0 {
			return sc.fault(Syntax)
		}
	}
	return nil
}

func (sc *scanner) array(depth int) *Fault {
	sc.i++ // [
	sc.space()
	if sc.i < len(sc.s) && sc.s[sc.i] == ']' {
		sc.i++
		return nil
	}
	sc.path = append(sc.path, step{index: 0})
	for n := 0; ; n++ {
		sc.path[len(sc.path)-1].index = n
		sc.space()
		if f := sc.value(depth); f != nil {
			return f
		}
		sc.space()
		if sc.i >= len(sc.s) {
			return sc.fault(Syntax)
		}
		switch sc.s[sc.i] {
		case ',':
			sc.i++
		case ']':
			sc.i++
			sc.path = sc.path[:len(sc.path)-1]
			return nil
		default:
			return sc.fault(Syntax)
		}
	}
}

// smallObject is how many names an object's names are compared with one
// by one before they go into a map.
const smallObject = 16

func (sc *scanner) object(depth int) *Fault {
	sc.i++ // {
	sc.space()
	if sc.i < len(sc.s) && sc.s[sc.i] == '}' {
		sc.i++
		return nil
	}
	var held [smallObject][]byte
	names := held[:0]
	var seen map[string]bool
	for {
		sc.space()
		if sc.i >= len(sc.s) || sc.s[sc.i] != '"' {
			return sc.fault(Syntax)
		}
		at := sc.i
		start, end, bad, f := sc.str()
		if f != nil {
			return f
		}
		if bad >= 0 {
			sc.note(BadName, bad)
		}
		name := decode(sc.s[start:end])
		dup := false
		if seen != nil {
			dup = seen[string(name)]
			seen[string(name)] = true
		} else {
			for _, n := range names {
				if bytes.Equal(n, name) {
					dup = true
					break
				}
			}
			if len(names) < smallObject {
				names = append(names, name)
			} else {
				seen = make(map[string]bool, 2*smallObject)
				for _, n := range names {
					seen[string(n)] = true
				}
				seen[string(name)] = true
			}
		}
		sc.path = append(sc.path, step{name: name, index: -1})
		if dup {
			sc.note(Duplicate, at)
		}
		sc.space()
		if sc.i >= len(sc.s) || sc.s[sc.i] != ':' {
			return sc.fault(Syntax)
		}
		sc.i++
		sc.space()
		if f := sc.value(depth); f != nil {
			return f
		}
		sc.path = sc.path[:len(sc.path)-1]
		sc.space()
		if sc.i >= len(sc.s) {
			return sc.fault(Syntax)
		}
		switch sc.s[sc.i] {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.fault(Syntax)
		}
	}
}

// str scans the string at sc.i, returning the bounds of its contents
// between the quotes and the offset of its first byte or escape that is
// not valid UTF-8 or is a lone surrogate (-1 for none). A syntax fault
// ends the scan.
func (sc *scanner) str() (start, end, bad int, f *Fault) {
	sc.i++ // "
	start, bad = sc.i, -1
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == '"':
			end = sc.i
			sc.i++
			return start, end, bad, nil
		case c < 0x20:
			return 0, 0, 0, sc.fault(Syntax)
		case c == '\\':
			if sc.i+1 >= len(sc.s) {
				return 0, 0, 0, sc.fault(Syntax)
			}
			switch sc.s[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				r, ok := hex4(sc.s, sc.i+2)
				if !ok {
					return 0, 0, 0, sc.fault(Syntax)
				}
				esc := sc.i
				sc.i += 6
				if utf16.IsSurrogate(r) {
					lo, ok := rune(0), false
					if r < 0xdc00 && sc.i+1 < len(sc.s) && sc.s[sc.i] == '\\' && sc.s[sc.i+1] == 'u' {
						lo, ok = hex4(sc.s, sc.i+2)
						ok = ok && 0xdc00 <= lo && lo <= 0xdfff
					}
					if ok {
						sc.i += 6
					} else if bad < 0 {
						bad = esc
					}
				}
			default:
				return 0, 0, 0, sc.fault(Syntax)
			}
		case c < utf8.RuneSelf:
			sc.i++
		default:
			r, size := utf8.DecodeRune(sc.s[sc.i:])
			if r == utf8.RuneError && size == 1 && bad < 0 {
				bad = sc.i
			}
			sc.i += size
		}
	}
	return 0, 0, 0, sc.fault(Syntax)
}

// hex4 reads the four hex digits at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// decode returns the bytes the contents of a scanned string hold, which
// str found to be of valid syntax: b itself where it holds no escape. A
// lone surrogate escape decodes as U+FFFD, as encoding/json decodes it.
func decode(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	var sb bytes.Buffer
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' {
			sb.WriteByte(c)
			i++
			continue
		}
		switch b[i+1] {
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, _ := hex4(b, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				lo, ok := rune(0), false
				if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
					lo, ok = hex4(b, i+2)
				}
				if d := utf16.DecodeRune(r, lo); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
			continue
		default: // " \ /
			sb.WriteByte(b[i+1])
		}
		i += 2
	}
	return sb.Bytes()
}
