package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	schemakind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/turnzerocloud/tzctx/schemas"
)

// SchemaFile is the manifest schema's name in schemas.FS: the one source
// of what docs.json may hold, served as the catalog's manifest_schema
// entry.
const SchemaFile = "docs_manifest.schema.json"

// ErrSchema is in the chain of the *Error of a manifest file that the
// walker accepts but the manifest schema refuses.
var ErrSchema = errors.New("the manifest schema refuses the file")

// schemaFix is the fix of every schema refusal.
const schemaFix = "see the manifest_schema entry of the catalog"

// manifestSchemas are the compiled manifest schema: root for docs.json,
// navigation for its navigation member, entry (#/$defs/entry) for a
// navigation entry and a $ref file; entryMembers are the division members
// whose values are entries, read from the schema's #/$defs/division.
type manifestSchemas struct {
	root, navigation, entry *jsonschema.Schema
	entryMembers            map[string]bool
}

// compiledSchemas compiles the embedded manifest schema once.
var compiledSchemas = sync.OnceValues(func() (*manifestSchemas, error) {
	raw, err := fs.ReadFile(schemas.FS, SchemaFile)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaFile, err)
	}
	const url = "urn:turnzero:tzctx:docs-manifest"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaFile, err)
	}
	s := &manifestSchemas{entryMembers: map[string]bool{}}
	for _, x := range []struct {
		sch  **jsonschema.Schema
		frag string
	}{{&s.root, ""}, {&s.navigation, "#/properties/navigation"}, {&s.entry, "#/$defs/entry"}} {
		if *x.sch, err = c.Compile(url + x.frag); err != nil {
			return nil, fmt.Errorf("%s: %w", SchemaFile, err)
		}
	}
	var shape struct {
		Defs struct {
			Division struct {
				Properties map[string]struct {
					Ref string `json:"$ref"`
				} `json:"properties"`
			} `json:"division"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaFile, err)
	}
	for name, p := range shape.Defs.Division.Properties {
		if p.Ref == "#/$defs/entry" {
			s.entryMembers[name] = true
		}
	}
	if len(s.entryMembers) == 0 {
		return nil, fmt.Errorf("%s: #/$defs/division names no member holding entries", SchemaFile)
	}
	return s, nil
})

// CheckSchema holds data, the bytes of the manifest file file (relative to
// the site folder), to the embedded manifest schema: docs.json to the whole
// schema, any other file (a $ref file) to its #/$defs/entry. A refusal is
// an *Error wrapping ErrSchema that names the file, the JSON pointer of the
// value at fault and what the schema expects there. data must be JSON; a
// leading byte order mark is ignored.
func CheckSchema(file string, data []byte) error {
	s, err := compiledSchemas()
	if err != nil {
		return fmt.Errorf("the embedded manifest schema does not compile: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return &Error{File: file, Problem: "invalid JSON: " + err.Error(), Fix: "fix the JSON syntax", Err: err}
	}
	start := s.entry
	if file == ManifestName {
		start = s.root
	}
	at, err := s.validate(v, start)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	pointer, want := schemaExpects(ve)
	return &Error{File: file, Pointer: at + pointer,
		Problem: "the manifest schema expects " + want + " here",
		Fix:     schemaFix, Err: ErrSchema}
}

// stub stands in for a navigation entry while the value holding it is
// validated: an empty array, which #/$defs/entry accepts.
var stub = []any{}

// validate holds v to sch one navigation value at a time. The schema is
// recursive through #/$defs/entry, and a validator that follows it through
// a navigation nested thousands deep takes a stack frame per level and
// time per value; instead each value is validated with the entries it
// holds replaced by stubs, and each entry is then validated on its own,
// a string entry once per distinct string. The result is the schema's as
// long as the schema holds to two things, which TestSchemaAgreesWithWalker
// would show broken: an entry's schema does not depend on where it stands
// (every division member holding entries is a $ref to #/$defs/entry), and
// an array of entries is constrained by its items alone (no length bound). It returns the JSON pointer of the value
// whose validation failed and the failure, inside that value.
func (s *manifestSchemas) validate(v any, sch *jsonschema.Schema) (string, error) {
	strs := map[string]bool{} // string entries validated and accepted
	stack := []*schemaJob{{v: v, sch: sch}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var children []*schemaJob
		shallow := j.v
		switch x := j.v.(type) {
		case string:
			if j.sch == s.entry && strs[x] {
				continue
			}
		case map[string]any:
			if j.sch == s.root {
				if nav, ok := x["navigation"]; ok {
					children = append(children, &schemaJob{v: nav, sch: s.navigation, up: j, tok: "navigation"})
					m := maps.Clone(x)
					m["navigation"] = stub
					shallow = m
				}
				break
			}
			var names []string
			for name := range x {
				if s.entryMembers[name] {
					names = append(names, name)
				}
			}
			if len(names) == 0 {
				break
			}
			sort.Strings(names)
			m := maps.Clone(x)
			for _, name := range names {
				children = append(children, &schemaJob{v: x[name], sch: s.entry, up: j, tok: name})
				m[name] = stub
			}
			shallow = m
		case []any:
			if j.sch != s.root {
				for i, e := range x {
					if str, ok := e.(string); ok && strs[str] {
						continue
					}
					children = append(children, &schemaJob{v: e, sch: s.entry, up: j, index: i, isIndex: true})
				}
				// The schema holds an array of entries to its items alone,
				// so the array stands for itself as an empty one.
				shallow = stub
			}
		}
		if err := j.sch.Validate(shallow); err != nil {
			return j.pointer(), err
		}
		if str, ok := j.v.(string); ok && j.sch == s.entry {
			strs[str] = true
		}
		// Pushed in reverse, the children are validated in document order
		// for arrays and in name order for members.
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, children[i])
		}
	}
	return "", nil
}

// schemaJob is one value validate holds to a schema, with its place: the
// job of the value holding it and its member name or index there. The
// place becomes a JSON pointer only where the value is refused.
type schemaJob struct {
	v       any
	sch     *jsonschema.Schema
	up      *schemaJob
	tok     string
	index   int
	isIndex bool
}

// pointer is the JSON pointer of the job's value in its file.
func (j *schemaJob) pointer() string {
	var toks []string
	for x := j; x.up != nil; x = x.up {
		if x.isIndex {
			toks = append(toks, strconv.Itoa(x.index))
		} else {
			toks = append(toks, escapePointer(x.tok))
		}
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(toks[i])
	}
	return b.String()
}

// schemaExpects finds the most precise place a validation error names (the
// deepest instance location among its leaf causes) and says, in words,
// what the schema expects there.
func schemaExpects(ve *jsonschema.ValidationError) (pointer, want string) {
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	deepest := 0
	for _, l := range leaves {
		deepest = max(deepest, len(l.InstanceLocation))
	}
	// A leaf that is not a type mismatch is the precise one: the value
	// has the right type for one alternative and breaks its rule.
	var types, rules []string
	var loc []string
	got := ""
	seen := map[string]bool{}
	for _, l := range leaves {
		if len(l.InstanceLocation) != deepest {
			continue
		}
		loc = l.InstanceLocation
		switch k := l.ErrorKind.(type) {
		case *schemakind.Type:
			got = k.Got
			for _, t := range k.Want {
				if !seen[t] {
					seen[t] = true
					types = append(types, t)
				}
			}
		case *schemakind.Required:
			rules = append(rules, "a member "+strings.Join(quoteAll(k.Missing), " and "))
		case *schemakind.MinLength:
			rules = append(rules, fmt.Sprintf("a string of at least %d character", k.Want))
		case *schemakind.Not:
			rules = append(rules, "a page path inside the tree's folder: not blank, a URL or an absolute path, "+
				"and without a query, a fragment, a backslash, an empty, . or .. segment or a .md or .mdx extension")
		default:
			rules = append(rules, l.ErrorKind.LocalizedString(printer))
		}
	}
	if len(rules) == 0 && len(types) > 0 {
		sort.Strings(types)
		rules = []string{"a value of type " + orList(types) + ", not " + article(got)}
	}
	other := rules
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(tok))
	}
	return b.String(), strings.Join(other, "; ")
}

// printer words the schema's refusals that have no wording of ours.
var printer = message.NewPrinter(language.English)

// article names a JSON type with its article, as the walker's messages do.
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	case "":
		return "another type"
	}
	return "a " + t
}

// orList joins words as "a, b or c".
func orList(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
