package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
)

// Bind decodes validated args into the request struct v, as decoding the
// JSON of args into v with encoding/json would. The members requests are
// made of (strings, integer literals, booleans and null, into fields of
// those types or pointers to them, embedded structs included) are set
// directly; any other argument or field takes the JSON round trip, so the
// outcome is always encoding/json's.
func Bind(args map[string]any, v any) error {
	if bindDirect(args, v) {
		return nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return tzctx.Errorf(tzctx.InvalidRequest, "the request does not fit the action's schema")
	}
	return nil
}

// Typed returns the Handler that binds a call's validated arguments into
// a request of type R (Bind) and runs h with it: an action's handler is
// then h itself, a method of what answers it, which takes the request
// typed and never the arguments. Where the arguments do not bind, the
// call is refused with the subject unbound gives of them.
func Typed[R, A any](h func(ctx context.Context, req R) (A, string, error), unbound func(args map[string]any) string) Handler {
	return func(ctx context.Context, args map[string]any) (any, string, error) {
		var req R
		if err := Bind(args, &req); err != nil {
			return nil, unbound(args), err
		}
		return h(ctx, req)
	}
}

// bindField is a request member Bind sets directly: the index path of its
// field and the field's type.
type bindField struct {
	index []int
	typ   reflect.Type
}

// bindPlan is the members of a request struct by exact name; nil where
// the struct has a field Bind does not set directly.
type bindPlan struct {
	fields map[string]bindField
}

var bindPlans sync.Map // reflect.Type of the struct to *bindPlan

// bindDirect sets the members of args in *v, a struct, and reports
// whether it did; false leaves *v as it was, for the JSON round trip.
func bindDirect(args map[string]any, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	plan := planOf(rv.Elem().Type())
	if plan == nil {
		return false
	}
	// Every member first checked, so that a refusal sets nothing.
	for k, a := range args {
		f, ok := plan.fields[k]
		if !ok {
			if plan.folds(k) || !ignorable(a) {
				// encoding/json matches names case-insensitively, and
				// a member no field takes must still marshal.
				return false
			}
			continue
		}
		if !bindable(a, f.typ) {
			return false
		}
	}
	s := rv.Elem()
	for k, a := range args {
		f, ok := plan.fields[k]
		if !ok {
			continue
		}
		set(s.FieldByIndex(f.index), a)
	}
	return true
}

// folds reports whether name may match a member's name in another case,
// as encoding/json matches names; a name not all ASCII may.
func (p *bindPlan) folds(name string) bool {
	for i := range len(name) {
		if name[i] >= 0x80 {
			return true
		}
	}
	for n := range p.fields {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func planOf(t reflect.Type) *bindPlan {
	if p, ok := bindPlans.Load(t); ok {
		return p.(*bindPlan)
	}
	p := &bindPlan{fields: map[string]bindField{}}
	if !p.add(t, nil) {
		p = nil
	}
	bindPlans.Store(t, p)
	return p
}

// add adds the fields of struct t, below the index path at; it reports
// false for a struct Bind does not set directly.
func (p *bindPlan) add(t reflect.Type, at []int) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(append([]int(nil), at...), i)
		tag, _ := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" {
			return false
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are promoted; a name
			// promoted twice has encoding/json's dominance rules.
			if !p.add(sf.Type, index) {
				return false
			}
			continue
		}
		if sf.Anonymous || !sf.IsExported() {
			return false
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || !bindType(sf.Type) {
			return false
		}
		for n := range p.fields {
			if strings.EqualFold(n, name) {
				return false
			}
		}
		p.fields[name] = bindField{index: index, typ: sf.Type}
	}
	return true
}

// plainName reports whether name is of letters, digits and underscores.
func plainName(name string) bool {
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return name != ""
}

// bindType reports whether Bind sets a field of type t directly: a
// string, bool or signed integer, or a pointer to one.
func bindType(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.PkgPath() != "" {
		return false // a named type may unmarshal itself
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// bindable reports whether a, a decoded argument, sets a field of type t
// directly as encoding/json would set it.
func bindable(a any, t reflect.Type) bool {
	if a == nil {
		return true // null leaves a value and sets a pointer nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch a := a.(type) {
	case string:
		// The round trip writes invalid UTF-8 as U+FFFD.
		return t.Kind() == reflect.String && utf8.ValidString(a)
	case bool:
		return t.Kind() == reflect.Bool
	case json.Number:
		if t.Kind() == reflect.String || t.Kind() == reflect.Bool || !IntegerLiteral(string(a)) {
			return false
		}
		n, err := strconv.ParseInt(string(a), 10, 64)
		return err == nil && !reflect.Zero(t).OverflowInt(n)
	}
	return false
}

// ignorable reports whether a, of a member no field takes, marshals
// without fault, which the round trip needs of every member.
func ignorable(a any) bool {
	switch a := a.(type) {
	case nil, string, bool:
		return true
	case json.Number:
		return IntegerLiteral(string(a))
	}
	return false
}

// IntegerLiteral reports whether s is a JSON number without fraction or
// exponent, -?(0|[1-9][0-9]*): the one check of an integer's form, for
// JSON bodies and, less the sign, for GET parameters.
func IntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// set stores a, which bindable accepted, in the field f.
func set(f reflect.Value, a any) {
	if a == nil {
		if f.Kind() == reflect.Pointer {
			f.SetZero()
		}
		return
	}
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		f.Set(p)
		f = p.Elem()
	}
	switch a := a.(type) {
	case string:
		f.SetString(a)
	case bool:
		f.SetBool(a)
	case json.Number:
		n, _ := strconv.ParseInt(string(a), 10, 64)
		f.SetInt(n)
	}
}
