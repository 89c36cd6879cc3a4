package dispatch

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// quickCheck proves a call's arguments valid against a request schema
// without the schema validator, for schemas of the subset of JSON Schema
// the contract's requests use: an object of named members, each a string
// (enum, minLength, maxLength, pattern) or an integer (minimum, maximum),
// directly or through a $ref into $defs, with required members and no
// others. It proves nothing it is unsure of: arguments it does not prove
// valid go to the validator, which refuses them or not and says why, so
// every outcome is the validator's. The validator costs a page read
// several microseconds; the check costs a few map lookups.
type quickCheck struct {
	members  map[string]*quickMember
	required []string
}

// quickMember is the check of one member's value.
type quickMember struct {
	kind     string   // "string" or "integer"
	enum     []string // nil for no enum
	min, max int      // code points of a string; -1 for no bound
	pattern  *regexp.Regexp
	lo, hi   int64 // an integer's bounds
}

// annotations are the keywords that assert nothing.
var annotations = []string{"description", "title", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"}

// compileQuick returns the quick check of schema, or nil where schema
// uses anything beyond the subset.
func compileQuick(schema map[string]any) *quickCheck {
	q := &quickCheck{members: map[string]*quickMember{}}
	defs, _ := schema["$defs"].(map[string]any)
	for k, v := range schema {
		switch k {
		case "type":
			if v != "object" {
				return nil
			}
		case "additionalProperties":
			if v != false {
				return nil
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, p := range props {
				m := compileMember(p, defs)
				if m == nil {
					return nil
				}
				q.members[name] = m
			}
		case "required":
			req, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, r := range req {
				s, ok := r.(string)
				if !ok {
					return nil
				}
				q.required = append(q.required, s)
			}
		case "$defs", "$schema":
		default:
			if !slices.Contains(annotations, k) {
				return nil
			}
		}
	}
	if schema["type"] != "object" || schema["additionalProperties"] != false {
		return nil
	}
	for _, r := range q.required {
		if q.members[r] == nil {
			return nil
		}
	}
	return q
}

// compileMember compiles one member's schema, or returns nil.
func compileMember(v any, defs map[string]any) *quickMember {
	p, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := p["$ref"].(string); ok {
		for k := range p {
			if k != "$ref" && !slices.Contains(annotations, k) {
				return nil // $ref beside assertions applies both
			}
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok || strings.ContainsAny(name, "/~%") {
			return nil
		}
		return compileMember(defs[name], nil)
	}
	m := &quickMember{min: -1, max: -1, lo: math.MinInt64, hi: math.MaxInt64}
	for k, val := range p {
		switch k {
		case "type":
			s, ok := val.(string)
			if !ok || (s != "string" && s != "integer") {
				return nil
			}
			m.kind = s
		case "enum":
			list, ok := val.([]any)
			if !ok || len(list) == 0 {
				return nil
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil
				}
				m.enum = append(m.enum, s)
			}
		case "minLength", "maxLength":
			n, ok := schemaInt(val)
			if !ok || n < 0 {
				return nil
			}
			if k == "minLength" {
				m.min = int(n)
			} else {
				m.max = int(n)
			}
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return nil
			}
			re, err := regexp.Compile(s) // the validator's engine
			if err != nil {
				return nil
			}
			m.pattern = re
		case "minimum", "maximum":
			n, ok := schemaInt(val)
			if !ok {
				return nil
			}
			if k == "minimum" {
				m.lo = n
			} else {
				m.hi = n
			}
		default:
			if !slices.Contains(annotations, k) {
				return nil
			}
		}
	}
	switch {
	case m.kind == "" && m.enum == nil:
		return nil // any value: left to the validator
	case m.kind == "" || m.kind == "string":
		if m.lo != math.MinInt64 || m.hi != math.MaxInt64 {
			return nil
		}
		if m.kind == "" {
			m.kind = "string" // an enum of strings holds strings alone
		}
	case m.kind == "integer":
		if m.enum != nil || m.min >= 0 || m.max >= 0 || m.pattern != nil {
			return nil
		}
	}
	return m
}

// schemaInt reads an integer of a schema, as the embedded contract's
// decoding gives it.
func schemaInt(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// valid reports whether args are proven valid; false says only that the
// validator must decide.
func (q *quickCheck) valid(args map[string]any) bool {
	for k, v := range args {
		m := q.members[k]
		if m == nil || !m.valid(v) {
			return false
		}
	}
	for _, r := range q.required {
		if _, ok := args[r]; !ok {
			return false
		}
	}
	return true
}

func (m *quickMember) valid(v any) bool {
	switch m.kind {
	case "string":
		s, ok := v.(string)
		if !ok || (m.enum != nil && !slices.Contains(m.enum, s)) {
			return false
		}
		if m.min >= 0 || m.max >= 0 {
			n := utf8.RuneCountInString(s)
			if (m.min >= 0 && n < m.min) || (m.max >= 0 && n > m.max) {
				return false
			}
		}
		return m.pattern == nil || m.pattern.MatchString(s)
	case "integer":
		n, ok := v.(json.Number)
		if !ok || !IntegerLiteral(string(n)) {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil && i >= m.lo && i <= m.hi
	}
	return false
}
