// Package manifest walks the navigation of a Mintlify-style docs.json and
// returns the ordered list of page paths it names.
//
// Walk reads docs.json from a site folder, follows the "navigation" member
// through every Mintlify navigation division (pages, groups, tabs, anchors,
// dropdowns, products, versions, languages, a tab's menu items, and the
// global anchors and tabs), nested in any order, and lists the pages in
// document order. A group's root page comes before the group's pages.
//
// The walker is liberal in the shapes it accepts and strict about JSON:
//
//   - A division may hold an array of entries, a single entry, or nested
//     arrays of entries; an entry is a page path string or an object.
//     The navigation itself may be an object or an array of entries.
//   - Members that are not divisions (titles, icons, hidden, boost, tag,
//     expanded, default and the like) are ignored. Hidden tabs and groups
//     are walked: their pages are still pages of the site.
//   - Numbers, booleans and null where an entry is expected are errors.
//   - Object members are read in document order. When an object repeats a
//     member name, the last value wins and keeps the first name's position,
//     as JavaScript's JSON.parse does. A leading UTF-8 byte order mark is
//     ignored.
//
// Entries that are not page files are skipped and recorded in Result.Skips:
//
//   - An object with an "href" member is a link; the href counts as one
//     skipped entry. Any divisions the object also holds are still walked.
//   - A string such as "GET /users", "openapi.json POST /users" or
//     "WEBHOOK /plant" is an OpenAPI operation (an upper-case method
//     GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE or WEBHOOK,
//     optionally preceded by a spec file path) and counts as one skipped entry.
//   - An "openapi" or "asyncapi" member on a group, tab or other division
//     counts as one skipped entry; explicit pages beside it are walked.
//
// Any other string is a page path. A leading slash is removed; a path that
// is empty, absolute ("//x", "C:/x"), a URL, climbs with "..", has empty or
// "." segments, has a segment with surrounding spaces, carries a query,
// fragment, backslash or control character, or ends in .md or .mdx is
// rejected with an *Error rather than skipped: such an entry is a mistake in
// the manifest, and skipping it would silently drop a page.
//
// A page listed more than once keeps its first position; each later listing
// is recorded in Result.Repeats and counted in Result.Duplicates.
//
// An object with a "$ref" member is replaced by the JSON value of the file
// it names, read relative to the folder of the file that holds the $ref.
// References resolve recursively, wherever they stand in the navigation.
// A reference must stay inside the site folder (the folder that holds the
// root docs.json): the check is lexical, on the cleaned slash-separated
// path, and the file is then read through sitefs, which refuses a symbolic
// link that resolves outside the folder and anything that is not a regular
// file. Absolute references, URLs,
// fragments ("#...") and reference cycles are refused. Members beside
// "$ref" are merged with the referenced object's members, and the siblings
// win: a sibling replaces the referenced member of the same name in place,
// and other siblings follow the referenced members in their own order.
// Siblings beside a reference to a value that is not an object are an
// error. Every page keeps the file and JSON pointer of the entry that
// listed it, so a page that came from es.json points into es.json and a
// sibling's page points into the referring file. A file referenced more
// than once without a cycle is read once and walked at each reference.
//
// Every manifest file a walk reads is also held to the embedded manifest
// schema (schemas/docs_manifest.schema.json, the one source of what
// docs.json may hold): docs.json to the whole schema, a $ref file to its
// #/$defs/entry. The walker's own errors come first, being the more
// precise; a file the walk accepts and the schema refuses is an *Error
// wrapping ErrSchema, naming the file, the JSON pointer of the value and
// what the schema expects there (CheckSchema).
//
// A walk is bounded (Options): each manifest file's size, the navigation
// entries visited after $ref resolution, which a fan-out of references
// multiplies, and the nesting depth of the navigation across $ref files.
// Memory stays linear in the size of the manifest files: a parsed value
// keeps no JSON pointer; the walk builds one from its own path only for
// a page, a skipped entry or an error.
package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// ManifestName is the file name of the root manifest inside a site folder.
const ManifestName = "docs.json"

// DefaultMaxFileBytes, DefaultMaxNodes and DefaultMaxDepth are the bounds
// of a walk whose Options leave them zero. Real manifests are far below
// them: the largest corpus manifest is 230 KB, lists 3,077 pages and nests
// 12 deep.
const (
	// DefaultMaxFileBytes bounds each manifest file: docs.json and every
	// $ref file.
	DefaultMaxFileBytes = 16 << 20
	// DefaultMaxNodes bounds the navigation values a walk visits after
	// $ref resolution: page paths, objects and arrays, each counted at
	// every place a reference expands it.
	DefaultMaxNodes = 1_000_000
	// DefaultMaxDepth bounds the nesting of a navigation value: the
	// objects and arrays around it, from the root of docs.json through
	// every $ref file. A JSON pointer holds one token per level, so the
	// depth bound also bounds the length of every pointer a walk records.
	DefaultMaxDepth = 64
)

// ErrTooManyNodes and ErrTooDeep are the bounds a walk can pass; an
// *Error wraps them and errors.Is finds them.
var (
	ErrTooManyNodes = errors.New("the navigation has more entries than the bound")
	ErrTooDeep      = errors.New("the navigation nests deeper than the bound")
)

// Options bound a walk. A zero field takes its default.
type Options struct {
	MaxFileBytes int64 // bytes of each manifest file
	MaxNodes     int   // navigation values visited after $ref resolution
	MaxDepth     int   // nesting of a navigation value across $ref files
	// CountOnly counts skipped and repeated entries (Skipped, Duplicates)
	// without listing them in Skips and Repeats, for a caller that needs
	// only the counts: it saves a JSON pointer per such entry.
	CountOnly bool
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// Result is what Walk found in a site's manifest.
type Result struct {
	Pages   []Page // in manifest order, deduplicated
	Skipped int    // entries that are not page files (href, openapi ops, openapi groups)
	// SkippedBy counts Skipped by kind, CountOnly or not.
	SkippedBy  map[SkipKind]int
	Duplicates int      // page paths listed again after their first position
	Files      []string // manifest files read (root docs.json and every $ref file), relative to the site folder

	// Skips lists the skipped entries in manifest order; len(Skips) ==
	// Skipped unless Options.CountOnly.
	Skips []Skip
	// Repeats lists every listing of a page after its first, in manifest
	// order; len(Repeats) == Duplicates unless Options.CountOnly.
	Repeats []Page
	// Name is the root manifest's "name" member where it is a string, the
	// site's name; empty otherwise.
	Name string
}

// Page is one page of the manifest.
type Page struct {
	Path    string // e.g. "guides/errors" or "index"
	Pointer string // RFC 6901 JSON pointer of the entry in the file that listed it, e.g. "/navigation/tabs/0/groups/2/pages/5"
	File    string // that file, relative to the site folder ("docs.json" or "es.json")
}

// Paths returns the page paths of r in manifest order.
func (r *Result) Paths() []string {
	out := make([]string, len(r.Pages))
	for i, p := range r.Pages {
		out[i] = p.Path
	}
	return out
}

// SkipKind says why an entry was skipped.
type SkipKind string

// SkipHref, SkipOperation, SkipOpenAPI and SkipAsyncAPI are the kinds of skipped entries.
const (
	SkipHref      SkipKind = "href"      // an object with an href member: a link
	SkipOperation SkipKind = "operation" // an OpenAPI operation string such as "GET /users"
	SkipOpenAPI   SkipKind = "openapi"   // an openapi member on a division
	SkipAsyncAPI  SkipKind = "asyncapi"  // an asyncapi member on a division
)

// Skip is one entry that names no page file.
type Skip struct {
	Kind    SkipKind
	Value   string // the href, the operation string, or the spec reference when it is a string
	Pointer string // RFC 6901 pointer of the href, openapi or asyncapi member, or of the operation string
	File    string // the file that holds it, relative to the site folder
}

// Error reports a manifest that cannot be walked.
type Error struct {
	File    string // the manifest file at fault, relative to the site folder
	Pointer string // RFC 6901 pointer of the offending value; empty for the whole file
	Line    int    // for invalid JSON, the 1-based line of the offending character; otherwise 0
	Column  int    // for invalid JSON, the 1-based column (in characters) of the offending character; otherwise 0
	Problem string // what is wrong, lower case
	Fix     string // what to do about it, lower case
	Err     error  // the underlying error, if any
}

// Error returns the message "FILE at POINTER: PROBLEM; FIX". Without a
// pointer it names the line and column when known, or just the file.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Pointer != "":
		b.WriteString(" at ")
		b.WriteString(e.Pointer)
	case e.Line > 0:
		fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Walk reads dir/docs.json and walks it with the default bounds. Every
// failure is an *Error that names the manifest file, the JSON pointer (or,
// for invalid JSON, the line and column) and what to do; a missing
// docs.json or $ref file also matches fs.ErrNotExist through errors.Is.
func Walk(dir string) (*Result, error) {
	return WalkDir(context.Background(), dir, Options{})
}

// WalkDir is Walk with a context and bounds.
func WalkDir(ctx context.Context, dir string, opts Options) (*Result, error) {
	f, err := sitefs.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: ManifestName,
				Problem: fmt.Sprintf("file not found in %s", filepath.Clean(dir)),
				Fix:     "pass the documentation folder that holds docs.json",
				Err:     err}
		}
		return nil, &Error{File: ManifestName,
			Problem: fmt.Sprintf("cannot open the folder %s: %v", dir, err),
			Fix:     "pass a readable documentation folder",
			Err:     err}
	}
	defer f.Close()
	return WalkFolder(ctx, f, opts)
}

// WalkFolder walks the docs.json of an open folder; every manifest file is
// read through it. It stops with ctx's error when ctx ends.
func WalkFolder(ctx context.Context, f *sitefs.Folder, opts Options) (*Result, error) {
	w := &walker{
		ctx:   ctx,
		opts:  opts.withDefaults(),
		dir:   f,
		cache: map[string]*node{},
		seen:  map[string]bool{},
		clean: map[string]string{},
		res:   &Result{},
	}
	data, err := f.ReadFile(ctx, ManifestName, w.opts.MaxFileBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, fs.ErrNotExist) && !isLink(err) {
			return nil, &Error{File: ManifestName,
				Problem: fmt.Sprintf("file not found in %s", filepath.Clean(f.Dir())),
				Fix:     "pass the documentation folder that holds docs.json",
				Err:     err}
		}
		return nil, &Error{File: ManifestName, Problem: readProblem(err), Fix: readFix(err, "make docs.json"), Err: err}
	}
	root, err := w.parse(ManifestName, data)
	if err != nil {
		return nil, err
	}
	chain := []string{ManifestName}
	if err := w.walkRoot(root, &loc{}, chain); err != nil {
		return nil, err
	}
	// The walker's errors are the more precise; the schema's refusal of a
	// file the walk accepted comes after them.
	if w.schemaErr != nil {
		return nil, w.schemaErr
	}
	return w.res, nil
}

// isLink reports whether a sitefs error is about a symbolic link.
func isLink(err error) bool {
	var e *sitefs.Error
	return errors.As(err, &e) && e.Link != ""
}

// readProblem says why a manifest file could not be read.
func readProblem(err error) string {
	var e *sitefs.Error
	if errors.As(err, &e) && !errors.Is(err, fs.ErrNotExist) || isLink(err) {
		return e.Error()
	}
	return fmt.Sprintf("cannot read the file: %v", err)
}

// readFix says what to do about a manifest file that could not be read;
// what is "make docs.json" or "reference".
func readFix(err error, what string) string {
	switch {
	case errors.Is(err, sitefs.ErrTooLarge):
		return "split the manifest with $ref files, or raise the bound with --max-manifest-bytes"
	case errors.Is(err, sitefs.ErrOutside):
		return "copy the file into the documentation folder, or make the link point inside it"
	case errors.Is(err, sitefs.ErrNotRegular):
		return what + " a regular JSON file"
	case errors.Is(err, fs.ErrNotExist):
		return "make the link point to a file that exists"
	}
	return what + " a readable file"
}

// opRE matches an OpenAPI operation string, optionally preceded by a spec file path.
var opRE = regexp.MustCompile(`^(?:\S+\s+)?(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|WEBHOOK)\s`)

// opLowerRE matches an operation string written with a lower-case method.
var opLowerRE = regexp.MustCompile(`(?i)^(?:\S+\s+)?(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|WEBHOOK)\s`)

// divisions are the members whose values hold navigation entries.
var divisions = map[string]bool{
	"pages": true, "groups": true, "tabs": true, "anchors": true,
	"dropdowns": true, "products": true, "versions": true, "languages": true,
	"menu": true, "global": true,
}

// kind is the JSON type of a node.
type kind int

// kindNull and the other kinds are the JSON types.
const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String names the kind with its article, as messages use it.
func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// node is a parsed JSON value. It keeps no JSON pointer: the walk knows
// where it stands (loc) and builds a pointer only when it records one.
type node struct {
	kind    kind
	str     string
	elems   []*node
	members []member
	file    string // file that holds the value, relative to the site folder
}

// member is an object member. Expanded members also carry chain, the
// manifest files whose expansion led to the value, for reference cycle
// detection and messages, and at, the place of the object that holds the
// member in its file.
type member struct {
	name  string
	val   *node
	chain []string
	at    *loc
}

// loc is where a value stands while the walk visits it: its reference
// token in its parent, within the file that holds it. Locations live on
// the walk's path only, so the walk holds O(depth) of them.
type loc struct {
	up    *loc   // the parent value's place; nil at the root of a file
	tok   string // the value's member name or element index, unescaped
	depth int    // objects and arrays around the value, from the root of docs.json across $ref files
}

// child is the place of the member or element tok of the value at l.
func (l *loc) child(tok string) *loc { return &loc{up: l, tok: tok, depth: l.depth + 1} }

// index is the place of element i of the array at l.
func (l *loc) index(i int) *loc { return l.child(strconv.Itoa(i)) }

// pointer is the RFC 6901 pointer of the value at l in its file.
func (l *loc) pointer() string {
	var toks []string
	for x := l; x != nil && x.up != nil; x = x.up {
		toks = append(toks, x.tok)
	}
	if len(toks) == 0 {
		return ""
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(escapePointer(toks[i]))
	}
	return b.String()
}

// walker holds the state of one Walk.
type walker struct {
	ctx    context.Context
	opts   Options
	dir    *sitefs.Folder
	cache  map[string]*node
	seen   map[string]bool
	res    *Result
	clean  map[string]string // page path strings seen, cleaned
	visits int
	tokens int
	// schemaErr is the first manifest file the schema refused, returned
	// once the walk has found no error of its own.
	schemaErr error
}

// parse validates data as JSON and builds an order-preserving tree.
func (w *walker) parse(file string, data []byte) (*node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !json.Valid(data) {
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		if err == nil { // unreachable: Valid and Unmarshal agree
			err = errors.New("invalid JSON")
		}
		e := &Error{File: file, Problem: "invalid JSON: " + err.Error(),
			Fix: "fix the JSON syntax", Err: err}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Line, e.Column = lineCol(data, se)
		}
		return nil, e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := w.parseValue(dec, file, &loc{})
	if err != nil {
		var me *Error
		if errors.As(err, &me) || w.ctx.Err() != nil {
			return nil, err
		}
		// unreachable after validation, kept for safety
		return nil, &Error{File: file, Problem: "invalid JSON: " + err.Error(),
			Fix: "fix the JSON syntax", Err: err}
	}
	// Each file is held to the manifest schema as it is parsed, so that no
	// file's bytes outlive its parse; the first refusal is kept for the end
	// of the walk.
	if w.schemaErr == nil {
		if err := CheckSchema(file, data); err != nil {
			w.schemaErr = err
		}
	}
	w.cache[file] = n
	w.res.Files = append(w.res.Files, file)
	return n, nil
}

// lineCol turns the offset of a syntax error into the line and column of
// the offending character, or of the end of input.
func lineCol(data []byte, se *json.SyntaxError) (line, col int) {
	off := int(se.Offset)
	if off > len(data) {
		off = len(data)
	}
	pos := off
	if off > 0 && off <= len(data) && se.Error() != "unexpected end of JSON input" {
		pos = off - 1
	}
	before := data[:pos]
	line = 1 + bytes.Count(before, []byte("\n"))
	start := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + utf8.RuneCount(before[start:])
	return line, col
}

// parseValue reads one JSON value from dec. at is the value's place in
// its file, for the depth bound and its message; the node keeps none of it.
func (w *walker) parseValue(dec *json.Decoder, file string, at *loc) (*node, error) {
	if w.tokens++; w.tokens%4096 == 0 {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{file: file}
	switch t := tok.(type) {
	case json.Delim:
		if at.depth >= w.opts.MaxDepth {
			return nil, w.tooDeep(file, at, nil)
		}
		switch t {
		case '{':
			n.kind = kindObject
			index := map[string]int{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				name, _ := kt.(string)
				v, err := w.parseValue(dec, file, at.child(name))
				if err != nil {
					return nil, err
				}
				if i, ok := index[name]; ok {
					n.members[i].val = v
					continue
				}
				index[name] = len(n.members)
				n.members = append(n.members, member{name: name, val: v})
			}
			n.members = slices.Clip(n.members)
		case '[':
			n.kind = kindArray
			for i := 0; dec.More(); i++ {
				v, err := w.parseValue(dec, file, at.index(i))
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
			n.elems = slices.Clip(n.elems)
		}
		if _, err := dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = kindString, t
	case json.Number:
		n.kind, n.str = kindNumber, string(t)
	case bool:
		n.kind = kindBool
	case nil:
		n.kind = kindNull
	}
	return n, nil
}

// tooDeep is the error for a value nested past the depth bound.
func (w *walker) tooDeep(file string, at *loc, chain []string) error {
	through := ""
	if len(chain) > 1 {
		through = " (through " + strings.Join(chain, " → ") + ")"
	}
	return &Error{File: file, Pointer: at.pointer(),
		Problem: fmt.Sprintf("the navigation nests more than %d objects and arrays deep%s", w.opts.MaxDepth, through),
		Fix:     "flatten the nested groups, or raise the bound with --max-nav-depth",
		Err:     ErrTooDeep}
}

// visit counts one navigation value visited at at, refusing a walk past
// the bounds and checking the context now and then.
func (w *walker) visit(v *node, at *loc, chain []string) error {
	w.visits++
	if w.visits%1024 == 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
	if w.visits > w.opts.MaxNodes {
		return &Error{File: v.file, Pointer: at.pointer(),
			Problem: fmt.Sprintf("the navigation expands to more than %d entries after resolving $ref, reached through %s",
				w.opts.MaxNodes, strings.Join(chain, " → ")),
			Fix: "reference each file once where it is meant to appear, or raise the bound with --max-nav-nodes",
			Err: ErrTooManyNodes}
	}
	if (v.kind == kindObject || v.kind == kindArray) && at.depth >= w.opts.MaxDepth {
		return w.tooDeep(v.file, at, chain)
	}
	return nil
}

// escapePointer escapes one reference token as RFC 6901 requires.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// walkRoot walks the navigation member of the root manifest.
func (w *walker) walkRoot(root *node, at *loc, chain []string) error {
	members, alt, altAt, _, err := w.expand(root, at, chain)
	if err != nil {
		return err
	}
	if alt != nil || root.kind != kindObject {
		v, vat := root, at
		if alt != nil {
			v, vat = alt, altAt
		}
		return &Error{File: v.file, Pointer: vat.pointer(),
			Problem: fmt.Sprintf("the manifest is %s, not an object", v.kind),
			Fix:     `make docs.json an object with a "navigation" member`}
	}
	for _, m := range members {
		if m.name == "name" && m.val.kind == kindString {
			w.res.Name = m.val.str
		}
	}
	for _, m := range members {
		if m.name == "navigation" {
			return w.walkNavigation(m.val, m.at.child(m.name), m.chain)
		}
	}
	return &Error{File: root.file, Pointer: "/navigation",
		Problem: "the navigation member is missing",
		Fix:     `add a "navigation" object that lists the pages`}
}

// walkNavigation walks the navigation value, which must be an object or an array.
func (w *walker) walkNavigation(v *node, at *loc, chain []string) error {
	for {
		switch v.kind {
		case kindArray:
			return w.walkEntry(v, at, chain)
		case kindObject:
			if err := w.visit(v, at, chain); err != nil {
				return err
			}
			members, alt, altAt, altChain, err := w.expand(v, at, chain)
			if err != nil {
				return err
			}
			if alt == nil {
				return w.walkMembers(members)
			}
			v, at, chain = alt, altAt, altChain
		default:
			return &Error{File: v.file, Pointer: at.pointer(),
				Problem: fmt.Sprintf("navigation is %s, not an object or array", v.kind),
				Fix:     "make navigation an object holding pages, groups, tabs or another division"}
		}
	}
}

// walkEntry walks one navigation entry: a page path, an object, or an array of entries.
func (w *walker) walkEntry(v *node, at *loc, chain []string) error {
	if err := w.visit(v, at, chain); err != nil {
		return err
	}
	switch v.kind {
	case kindString:
		return w.walkString(v, at)
	case kindArray:
		for i, e := range v.elems {
			if err := w.walkEntry(e, at.index(i), chain); err != nil {
				return err
			}
		}
		return nil
	case kindObject:
		members, alt, altAt, altChain, err := w.expand(v, at, chain)
		if err != nil {
			return err
		}
		if alt != nil {
			return w.walkEntry(alt, altAt, altChain)
		}
		return w.walkMembers(members)
	default:
		return &Error{File: v.file, Pointer: at.pointer(),
			Problem: fmt.Sprintf("navigation entry is %s, not a page path or an object", v.kind),
			Fix:     "list a page as a string path or a group as an object"}
	}
}

// walkMembers walks the divisions of an object: root first, then the
// other members in document order.
func (w *walker) walkMembers(members []member) error {
	for _, m := range members {
		if m.name == "root" {
			if err := w.walkEntry(m.val, m.at.child(m.name), m.chain); err != nil {
				return err
			}
		}
	}
	for _, m := range members {
		switch {
		case m.name == "href":
			w.skip(SkipHref, m.val, m.at.child(m.name))
		case m.name == "openapi":
			w.skip(SkipOpenAPI, m.val, m.at.child(m.name))
		case m.name == "asyncapi":
			w.skip(SkipAsyncAPI, m.val, m.at.child(m.name))
		case divisions[m.name]:
			if err := w.walkEntry(m.val, m.at.child(m.name), m.chain); err != nil {
				return err
			}
		}
	}
	return nil
}

// skip records the entry v at at as skipped for kind k.
func (w *walker) skip(k SkipKind, v *node, at *loc) {
	w.res.Skipped++
	if w.res.SkippedBy == nil {
		w.res.SkippedBy = map[SkipKind]int{}
	}
	w.res.SkippedBy[k]++
	if w.opts.CountOnly {
		return
	}
	s := Skip{Kind: k, Pointer: at.pointer(), File: v.file}
	if v.kind == kindString {
		s.Value = v.str
	}
	w.res.Skips = append(w.res.Skips, s)
}

// walkString records a page path or skips an operation string.
func (w *walker) walkString(v *node, at *loc) error {
	p, known := w.clean[v.str]
	if !known {
		if opRE.MatchString(v.str) {
			w.skip(SkipOperation, v, at)
			return nil
		}
		var problem, fix string
		if p, problem, fix = cleanPage(v.str); problem != "" {
			return &Error{File: v.file, Pointer: at.pointer(), Problem: problem, Fix: fix}
		}
		// A string walked again (a file referenced many times) is a
		// page path cleaned once.
		w.clean[v.str] = p
	}
	if w.seen[p] {
		w.res.Duplicates++
		if !w.opts.CountOnly {
			w.res.Repeats = append(w.res.Repeats, Page{Path: p, Pointer: at.pointer(), File: v.file})
		}
		return nil
	}
	w.seen[p] = true
	w.res.Pages = append(w.res.Pages, Page{Path: p, Pointer: at.pointer(), File: v.file})
	return nil
}

// cleanPage normalises a page path or says what is wrong with it.
func cleanPage(s string) (p, problem, fix string) {
	const fixPath = "list the page by its path inside the documentation folder, without extension"
	q := fmt.Sprintf("%q", s)
	switch {
	case strings.TrimSpace(s) == "":
		return "", "page path " + q + " is empty", "remove the entry or name a page"
	case !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "", "page path " + q + " contains a control character or invalid UTF-8", fixPath
	case strings.Contains(s, "://") || strings.HasPrefix(s, "mailto:"):
		return "", "page path " + q + " is a URL, not a page file", `link external pages with an object that has an "href" member`
	case strings.ContainsRune(s, '\\'):
		return "", "page path " + q + " contains a backslash", "separate folders with forward slashes"
	case strings.ContainsAny(s, "?#"):
		return "", "page path " + q + " has a query or fragment", "list the page file only, without ? or #"
	case len(s) >= 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z':
		return "", "page path " + q + " is an absolute path", fixPath
	}
	p = strings.TrimPrefix(s, "/")
	if strings.HasPrefix(p, "/") {
		return "", "page path " + q + " is an absolute path", fixPath
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "..":
			return "", "page path " + q + ` has a ".." segment`, fixPath
		case seg == ".":
			return "", "page path " + q + ` has a "." segment`, `write the path without "./" segments`
		case seg == "":
			return "", "page path " + q + " has an empty segment", "remove the doubled or trailing slash"
		case strings.TrimSpace(seg) != seg:
			if opLowerRE.MatchString(s) {
				return "", "page path " + q + " has a segment with surrounding spaces", "write an openapi operation's method in capitals, e.g. \"GET /users\""
			}
			return "", "page path " + q + " has a segment with surrounding spaces", "remove the spaces around the slash"
		}
	}
	if lower := strings.ToLower(p); strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".mdx") {
		return "", "page path " + q + " includes the file extension", "write the path without .md or .mdx"
	}
	return p, "", ""
}

// expand resolves a $ref on the object n at at. It returns the object's
// members, merged with the referenced object's when there is a reference,
// or, when the reference names a value that is not an object, that value
// (alt) with its place and the chain to walk it with.
func (w *walker) expand(n *node, at *loc, chain []string) (members []member, alt *node, altAt *loc, altChain []string, err error) {
	var ref *node
	var siblings []member
	for _, m := range n.members {
		if m.name == "$ref" {
			ref = m.val
			continue
		}
		siblings = append(siblings, member{name: m.name, val: m.val, chain: chain, at: at})
	}
	if ref == nil {
		return siblings, nil, nil, nil, nil
	}
	refAt := at.child("$ref")
	target, err := w.resolve(ref, refAt, chain)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	t, err := w.load(target, ref, refAt)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	tchain := append(append([]string(nil), chain...), target)
	// The referenced file's root stands where the referring object stands.
	tAt := &loc{depth: at.depth}
	var tm []member
	if t.kind == kindObject {
		tm, alt, altAt, altChain, err = w.expand(t, tAt, tchain)
		if err != nil {
			return nil, nil, nil, nil, err
		}
	} else {
		alt, altAt, altChain = t, tAt, tchain
	}
	if alt != nil {
		if len(siblings) > 0 {
			return nil, nil, nil, nil, &Error{File: ref.file, Pointer: refAt.pointer(),
				Problem: fmt.Sprintf("reference %q names %s, which cannot merge with the members beside $ref", ref.str, alt.kind),
				Fix:     "move the members beside $ref into the referenced file, or reference an object"}
		}
		return nil, alt, altAt, altChain, nil
	}
	merged := append([]member(nil), tm...)
	for _, s := range siblings {
		replaced := false
		for i := range merged {
			if merged[i].name == s.name {
				merged[i] = s
				replaced = true
				break
			}
		}
		if !replaced {
			merged = append(merged, s)
		}
	}
	return merged, nil, nil, nil, nil
}

// resolve checks a $ref value at at and returns the file it names,
// relative to the site folder.
func (w *walker) resolve(ref *node, at *loc, chain []string) (string, error) {
	bad := func(problem, fix string) (string, error) {
		return "", &Error{File: ref.file, Pointer: at.pointer(), Problem: problem, Fix: fix}
	}
	if ref.kind != kindString {
		return bad(fmt.Sprintf("$ref is %s, not a file name", ref.kind), `write "$ref": "file.json" with a path relative to this file`)
	}
	r := ref.str
	q := fmt.Sprintf("%q", r)
	switch {
	case strings.TrimSpace(r) == "":
		return bad("reference "+q+" is empty", "name a JSON file relative to this file")
	case strings.Contains(r, "://"):
		return bad("reference "+q+" is a URL", "copy the referenced file into the documentation folder and reference it by path")
	case strings.Contains(r, "#"):
		return bad("reference "+q+" has a fragment", "reference a whole JSON file")
	case strings.ContainsRune(r, '\\'):
		return bad("reference "+q+" contains a backslash", "separate folders with forward slashes")
	case strings.HasPrefix(r, "/") || filepath.IsAbs(r) ||
		(len(r) >= 2 && r[1] == ':' && (r[0]|0x20) >= 'a' && (r[0]|0x20) <= 'z'):
		return bad("reference "+q+" is an absolute path", "write the path relative to the referring file's folder")
	}
	target := path.Clean(path.Join(path.Dir(ref.file), r))
	if target == ".." || strings.HasPrefix(target, "../") {
		return bad("reference "+q+" leaves the site folder", "keep referenced files inside the documentation folder")
	}
	if target == "." {
		return bad("reference "+q+" names the site folder, not a file", "name a JSON file")
	}
	for i, f := range chain {
		if f == target {
			cycle := append(append([]string(nil), chain[i:]...), target)
			return bad("reference "+q+" forms a cycle ("+strings.Join(cycle, " → ")+")", "remove one of the references in the cycle")
		}
	}
	return target, nil
}

// load returns the parsed file named by a reference at at, reading it on
// first use.
func (w *walker) load(target string, ref *node, at *loc) (*node, error) {
	if n, ok := w.cache[target]; ok {
		return n, nil
	}
	q := fmt.Sprintf("%q", ref.str)
	data, err := w.dir.ReadFile(w.ctx, target, w.opts.MaxFileBytes)
	if err != nil {
		if w.ctx.Err() != nil {
			return nil, w.ctx.Err()
		}
		e := &Error{File: ref.file, Pointer: at.pointer(), Err: err}
		switch {
		case errors.Is(err, fs.ErrNotExist) && !isLink(err):
			e.Problem = "reference " + q + " names " + target + ", which does not exist"
			e.Fix = "create the file or correct the reference"
		case isLink(err) || errors.Is(err, sitefs.ErrNotRegular) || errors.Is(err, sitefs.ErrTooLarge) || errors.Is(err, sitefs.ErrOutside):
			e.Problem = "reference " + q + " names " + target + ", which cannot be read: " + readProblem(err)
			e.Fix = readFix(err, "reference")
		default:
			e.Problem = "reference " + q + " names " + target + ", which cannot be read: " + err.Error()
			e.Fix = "reference a readable JSON file"
		}
		return nil, e
	}
	return w.parse(target, data)
}
