package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// object is a JSON object with its members in the order its source
// writes them. The reference prints schemas and metadata in that order,
// as the published form does; a Go map would sort them.
type object []member

type member struct {
	key string
	val any
}

// get returns the value of the member key, and whether there is one.
func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// decodeOrdered decodes JSON into object, []any, string, json.Number,
// bool and nil values, keeping the order of every object's members.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := object{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{key: k.(string), val: v})
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// pretty encodes v as JSON indented by two spaces, members in their
// order, with <, > and & as they are: the form json.MarshalIndent gives a
// struct, and the form the reference's JSON blocks take.
func pretty(v any) string {
	var b strings.Builder
	writeJSON(&b, v, "", "  ")
	return b.String()
}

// compact encodes v as JSON with no spaces, as the constraint lines of
// the reference's tables print values such as ["id"].
func compact(v any) string {
	var b strings.Builder
	writeJSON(&b, v, "", "")
	return b.String()
}

func writeJSON(b *strings.Builder, v any, prefix, indent string) {
	newline := func(p string) {
		if indent != "" {
			b.WriteString("\n" + p)
		}
	}
	sep := ":"
	if indent != "" {
		sep = ": "
	}
	switch x := v.(type) {
	case object:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, m := range x {
			if i > 0 {
				b.WriteString(",")
			}
			newline(prefix + indent)
			b.WriteString(jsonString(m.key) + sep)
			writeJSON(b, m.val, prefix+indent, indent)
		}
		newline(prefix)
		b.WriteString("}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, y := range x {
			if i > 0 {
				b.WriteString(",")
			}
			newline(prefix + indent)
			writeJSON(b, y, prefix+indent, indent)
		}
		newline(prefix)
		b.WriteString("]")
	case string:
		b.WriteString(jsonString(x))
	case json.Number:
		b.WriteString(x.String())
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		// Only the generator builds values; a type here is its defect.
		panic(fmt.Sprintf("reference: cannot encode a %T", v))
	}
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// resolver inlines the $ref members of a schema with the shared shapes
// they name, and notes each reference it resolves.
type resolver struct {
	defs object
	refs []sharedRef
}

// sharedRef is one place a request or response references a shared
// shape.
type sharedRef struct {
	name, side, pointer string
}

// resolve returns v with every {"$ref": "#/$defs/NAME", …} replaced by the
// named shape's members followed by the reference's other members (which
// win where both hold a key), at any depth. side and pointer say where v
// is, for the notes and the errors.
func (r *resolver) resolve(v any, side, pointer string, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("%s %s: $ref chain too deep", side, displayPointer(pointer))
	}
	switch x := v.(type) {
	case object:
		var out object
		if ref, ok := x.get("$ref"); ok {
			s, _ := ref.(string)
			name, ok := strings.CutPrefix(s, "#/$defs/")
			def, found := r.defs.get(name)
			defObj, isObj := def.(object)
			if !ok || !found || !isObj {
				return nil, fmt.Errorf("%s %s: $ref %q names no shared shape under $defs", side, displayPointer(pointer), s)
			}
			r.refs = append(r.refs, sharedRef{name: name, side: side, pointer: pointer})
			resolvedDef, err := r.resolve(defObj, side, pointer, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, resolvedDef.(object)...)
		}
		for _, m := range x {
			if m.key == "$ref" {
				continue
			}
			val, err := r.resolve(m.val, side, pointer+"/"+escapePointer(m.key), depth+1)
			if err != nil {
				return nil, err
			}
			out = set(out, m.key, val)
		}
		if out == nil {
			out = object{}
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			val, err := r.resolve(y, side, pointer+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = val
		}
		return out, nil
	}
	return v, nil
}

// set returns o with key's value replaced in place, or appended.
func set(o object, key string, val any) object {
	for i, m := range o {
		if m.key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, member{key: key, val: val})
}

// sharedNames returns the distinct shared shapes the notes name, in the
// order first referenced.
func sharedNames(refs []sharedRef) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r.name] {
			seen[r.name] = true
			out = append(out, r.name)
		}
	}
	return out
}

// escapePointer escapes one reference token of an RFC 6901 JSON pointer.
func escapePointer(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// displayPointer prints a JSON pointer as the reference's tables do: the
// empty pointer is "" (root).
func displayPointer(p string) string {
	if p == "" {
		return `"" (root)`
	}
	return p
}
