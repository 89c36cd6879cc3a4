package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrUnrenderedKeyword is the error, in the chain of Generate's, of a
// schema keyword the reference does not know how to print: the generator
// refuses it rather than leave a contract fact out of the human reference.
var ErrUnrenderedKeyword = errors.New("the reference does not render this schema keyword")

// constraint is a schema keyword the tables print as one line, in the
// order the lines take.
type constraint struct {
	keyword, label string
}

var constraints = []constraint{
	{"type", "Type"},
	{"const", "Required value"},
	{"enum", "Allowed values"},
	{"required", "Required fields"},
	{"additionalProperties", "Additional properties"},
	{"minimum", "Minimum"},
	{"maximum", "Maximum"},
	{"exclusiveMinimum", "Exclusive minimum"},
	{"exclusiveMaximum", "Exclusive maximum"},
	{"minLength", "Minimum length"},
	{"maxLength", "Maximum length"},
	{"pattern", "Pattern"},
	{"format", "Format"},
	{"minItems", "Minimum items"},
	{"maxItems", "Maximum items"},
	{"uniqueItems", "Unique items"},
	{"default", "Default"},
}

// structural are the keywords a table walks into or prints otherwise.
var structural = map[string]bool{"description": true, "properties": true, "items": true, "anyOf": true, "oneOf": true, "allOf": true}

// row is one row of a request or response table.
type row struct {
	pointer     string
	description string
	lines       []string
}

// rows returns the table rows of a resolved schema: the node itself, then
// its properties, items and alternatives, depth first, in written order.
func rows(v any, side, pointer string) ([]row, error) {
	o, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("%s %s: a schema is an object, not %s", side, displayPointer(pointer), compact(v))
	}
	known := map[string]bool{}
	for k := range structural {
		known[k] = true
	}
	for _, c := range constraints {
		known[c.keyword] = true
	}
	r := row{pointer: pointer}
	for _, m := range o {
		if !known[m.key] {
			return nil, fmt.Errorf("%s %s: keyword %q: %w; teach the reference generator to print it", side, displayPointer(pointer), m.key, ErrUnrenderedKeyword)
		}
	}
	if d, ok := o.get("description"); ok {
		s, _ := d.(string)
		r.description = s
	}
	for _, c := range constraints {
		val, ok := o.get(c.keyword)
		if !ok {
			continue
		}
		if _, isSchema := val.(object); isSchema && c.keyword == "additionalProperties" {
			continue // a schema of its own: a row of its own below
		}
		r.lines = append(r.lines, c.label+": "+constraintValue(c.keyword, val))
	}
	out := []row{r}
	walk := func(p string, child any) error {
		sub, err := rows(child, side, p)
		if err != nil {
			return err
		}
		out = append(out, sub...)
		return nil
	}
	if props, ok := o.get("properties"); ok {
		po, ok := props.(object)
		if !ok {
			return nil, fmt.Errorf("%s %s/properties: not an object", side, displayPointer(pointer))
		}
		for _, m := range po {
			if err := walk(pointer+"/properties/"+escapePointer(m.key), m.val); err != nil {
				return nil, err
			}
		}
	}
	if ap, ok := o.get("additionalProperties"); ok {
		if _, isSchema := ap.(object); isSchema {
			if err := walk(pointer+"/additionalProperties", ap); err != nil {
				return nil, err
			}
		}
	}
	if items, ok := o.get("items"); ok {
		if err := walk(pointer+"/items", items); err != nil {
			return nil, err
		}
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		alts, ok := o.get(kw)
		if !ok {
			continue
		}
		list, ok := alts.([]any)
		if !ok {
			return nil, fmt.Errorf("%s %s/%s: not an array", side, displayPointer(pointer), kw)
		}
		for i, alt := range list {
			if err := walk(fmt.Sprintf("%s/%s/%d", pointer, kw, i), alt); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// constraintValue prints a keyword's value as its line does: numbers,
// booleans and a single type word as they are, a pattern and any other
// JSON value in a code span, compact.
func constraintValue(keyword string, v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case bool:
		return fmt.Sprint(x)
	case string:
		if keyword == "type" || keyword == "format" {
			return x
		}
		if keyword == "pattern" {
			return codeSpan(x)
		}
	}
	return codeSpan(compact(v))
}

// codeSpan returns s as a Markdown code span, fenced by more backticks
// than any run s holds.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// table renders rows as the Markdown table of the published form: the
// JSON pointer, then the description and, after a blank line, one line
// per constraint.
func table(rs []row) string {
	var b strings.Builder
	b.WriteString("| JSON pointer | Description and constraints |\n|---|---|\n")
	for _, r := range rs {
		ptr := codeSpan(r.pointer)
		if r.pointer == "" {
			ptr = "`\"\"` (root)"
		}
		var cell []string
		if r.description != "" {
			cell = append(cell, r.description)
		}
		if len(r.lines) > 0 {
			cell = append(cell, strings.Join(r.lines, "<br>"))
		}
		text := strings.Join(cell, "<br><br>")
		if text == "" {
			text = "Any JSON value."
		}
		b.WriteString("| " + cellText(ptr) + " | " + cellText(text) + " |\n")
	}
	return b.String()
}

// cellText keeps a table cell on one line and its pipes inside it.
func cellText(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
}
