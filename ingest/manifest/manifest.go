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
// path, and does not resolve symbolic links. Absolute references, URLs,
// fragments ("#...") and reference cycles are refused. Members beside
// "$ref" are merged with the referenced object's members, and the siblings
// win: a sibling replaces the referenced member of the same name in place,
// and other siblings follow the referenced members in their own order.
// Siblings beside a reference to a value that is not an object are an
// error. Every page keeps the file and JSON pointer of the entry that
// listed it, so a page that came from es.json points into es.json and a
// sibling's page points into the referring file. A file referenced more
// than once without a cycle is read once and walked at each reference.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ManifestName is the file name of the root manifest inside a site folder.
const ManifestName = "docs.json"

// Result is what Walk found in a site's manifest.
type Result struct {
	Pages      []Page   // in manifest order, deduplicated
	Skipped    int      // entries that are not page files (href, openapi ops, openapi groups)
	Duplicates int      // page paths listed again after their first position
	Files      []string // manifest files read (root docs.json and every $ref file), relative to the site folder

	// Skips lists the skipped entries in manifest order; len(Skips) == Skipped.
	Skips []Skip
	// Repeats lists every listing of a page after its first, in manifest
	// order; len(Repeats) == Duplicates.
	Repeats []Page
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

// Walk reads dir/docs.json and walks it. Every failure is an *Error that
// names the manifest file, the JSON pointer (or, for invalid JSON, the line
// and column) and what to do; a missing docs.json or $ref file also matches
// fs.ErrNotExist through errors.Is.
func Walk(dir string) (*Result, error) {
	w := &walker{
		site:  filepath.Clean(dir),
		cache: map[string]*node{},
		seen:  map[string]bool{},
		res:   &Result{},
	}
	data, err := os.ReadFile(filepath.Join(w.site, ManifestName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: ManifestName,
				Problem: fmt.Sprintf("file not found in %s", w.site),
				Fix:     "pass the documentation folder that holds docs.json",
				Err:     err}
		}
		return nil, &Error{File: ManifestName,
			Problem: fmt.Sprintf("cannot read the file: %v", err),
			Fix:     "make docs.json a readable file",
			Err:     err}
	}
	root, err := w.parse(ManifestName, data)
	if err != nil {
		return nil, err
	}
	chain := []string{ManifestName}
	if err := w.walkRoot(root, chain); err != nil {
		return nil, err
	}
	return w.res, nil
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

// node is a parsed JSON value that remembers where it stands.
type node struct {
	kind    kind
	str     string
	elems   []*node
	members []member
	file    string // file that holds the value, relative to the site folder
	ptr     string // RFC 6901 pointer of the value in that file
}

// member is an object member. chain lists the manifest files whose
// expansion led to the value, for reference cycle detection.
type member struct {
	name  string
	val   *node
	chain []string
}

// walker holds the state of one Walk.
type walker struct {
	site  string
	cache map[string]*node
	seen  map[string]bool
	res   *Result
}

// parse validates data as JSON and builds an order-preserving tree.
func (w *walker) parse(file string, data []byte) (*node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
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
	n, err := parseValue(dec, file, "")
	if err != nil { // unreachable after validation, kept for safety
		return nil, &Error{File: file, Problem: "invalid JSON: " + err.Error(),
			Fix: "fix the JSON syntax", Err: err}
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

// parseValue reads one JSON value from dec, recording file and pointer on every node.
func parseValue(dec *json.Decoder, file, ptr string) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{file: file, ptr: ptr}
	switch t := tok.(type) {
	case json.Delim:
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
				v, err := parseValue(dec, file, ptr+"/"+escapePointer(name))
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
		case '[':
			n.kind = kindArray
			for i := 0; dec.More(); i++ {
				v, err := parseValue(dec, file, fmt.Sprintf("%s/%d", ptr, i))
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
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

// escapePointer escapes one reference token as RFC 6901 requires.
func escapePointer(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// walkRoot walks the navigation member of the root manifest.
func (w *walker) walkRoot(root *node, chain []string) error {
	members, alt, _, err := w.expand(root, chain)
	if err != nil {
		return err
	}
	if alt != nil || root.kind != kindObject {
		v := root
		if alt != nil {
			v = alt
		}
		return &Error{File: v.file, Pointer: v.ptr,
			Problem: fmt.Sprintf("the manifest is %s, not an object", v.kind),
			Fix:     `make docs.json an object with a "navigation" member`}
	}
	for _, m := range members {
		if m.name == "navigation" {
			return w.walkNavigation(m.val, m.chain)
		}
	}
	return &Error{File: root.file, Pointer: "/navigation",
		Problem: "the navigation member is missing",
		Fix:     `add a "navigation" object that lists the pages`}
}

// walkNavigation walks the navigation value, which must be an object or an array.
func (w *walker) walkNavigation(v *node, chain []string) error {
	for {
		switch v.kind {
		case kindArray:
			return w.walkEntry(v, chain)
		case kindObject:
			members, alt, altChain, err := w.expand(v, chain)
			if err != nil {
				return err
			}
			if alt == nil {
				return w.walkMembers(members)
			}
			v, chain = alt, altChain
		default:
			return &Error{File: v.file, Pointer: v.ptr,
				Problem: fmt.Sprintf("navigation is %s, not an object or array", v.kind),
				Fix:     "make navigation an object holding pages, groups, tabs or another division"}
		}
	}
}

// walkEntry walks one navigation entry: a page path, an object, or an array of entries.
func (w *walker) walkEntry(v *node, chain []string) error {
	switch v.kind {
	case kindString:
		return w.walkString(v)
	case kindArray:
		for _, e := range v.elems {
			if err := w.walkEntry(e, chain); err != nil {
				return err
			}
		}
		return nil
	case kindObject:
		members, alt, altChain, err := w.expand(v, chain)
		if err != nil {
			return err
		}
		if alt != nil {
			return w.walkEntry(alt, altChain)
		}
		return w.walkMembers(members)
	default:
		return &Error{File: v.file, Pointer: v.ptr,
			Problem: fmt.Sprintf("navigation entry is %s, not a page path or an object", v.kind),
			Fix:     "list a page as a string path or a group as an object"}
	}
}

// walkMembers walks the divisions of an object: root first, then the
// other members in document order.
func (w *walker) walkMembers(members []member) error {
	for _, m := range members {
		if m.name == "root" {
			if err := w.walkEntry(m.val, m.chain); err != nil {
				return err
			}
		}
	}
	for _, m := range members {
		switch {
		case m.name == "href":
			w.skip(SkipHref, m.val)
		case m.name == "openapi":
			w.skip(SkipOpenAPI, m.val)
		case m.name == "asyncapi":
			w.skip(SkipAsyncAPI, m.val)
		case divisions[m.name]:
			if err := w.walkEntry(m.val, m.chain); err != nil {
				return err
			}
		}
	}
	return nil
}

// skip records the entry v as skipped for kind k.
func (w *walker) skip(k SkipKind, v *node) {
	s := Skip{Kind: k, Pointer: v.ptr, File: v.file}
	if v.kind == kindString {
		s.Value = v.str
	}
	w.res.Skips = append(w.res.Skips, s)
	w.res.Skipped++
}

// walkString records a page path or skips an operation string.
func (w *walker) walkString(v *node) error {
	if opRE.MatchString(v.str) {
		w.skip(SkipOperation, v)
		return nil
	}
	p, problem, fix := cleanPage(v.str)
	if problem != "" {
		return &Error{File: v.file, Pointer: v.ptr, Problem: problem, Fix: fix}
	}
	page := Page{Path: p, Pointer: v.ptr, File: v.file}
	if w.seen[p] {
		w.res.Repeats = append(w.res.Repeats, page)
		w.res.Duplicates++
		return nil
	}
	w.seen[p] = true
	w.res.Pages = append(w.res.Pages, page)
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

// expand resolves a $ref on an object. It returns the object's members,
// merged with the referenced object's when there is a reference, or, when
// the reference names a value that is not an object, that value (alt) and
// the chain to walk it with.
func (w *walker) expand(n *node, chain []string) (members []member, alt *node, altChain []string, err error) {
	var ref *node
	var siblings []member
	for _, m := range n.members {
		if m.name == "$ref" {
			ref = m.val
			continue
		}
		siblings = append(siblings, member{name: m.name, val: m.val, chain: chain})
	}
	if ref == nil {
		return siblings, nil, nil, nil
	}
	target, err := w.resolve(ref, chain)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := w.load(target, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	tchain := append(append([]string(nil), chain...), target)
	var tm []member
	if t.kind == kindObject {
		tm, alt, altChain, err = w.expand(t, tchain)
		if err != nil {
			return nil, nil, nil, err
		}
	} else {
		alt, altChain = t, tchain
	}
	if alt != nil {
		if len(siblings) > 0 {
			return nil, nil, nil, &Error{File: ref.file, Pointer: ref.ptr,
				Problem: fmt.Sprintf("reference %q names %s, which cannot merge with the members beside $ref", ref.str, alt.kind),
				Fix:     "move the members beside $ref into the referenced file, or reference an object"}
		}
		return nil, alt, altChain, nil
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
	return merged, nil, nil, nil
}

// resolve checks a $ref value and returns the file it names, relative to
// the site folder.
func (w *walker) resolve(ref *node, chain []string) (string, error) {
	bad := func(problem, fix string) (string, error) {
		return "", &Error{File: ref.file, Pointer: ref.ptr, Problem: problem, Fix: fix}
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

// load returns the parsed file named by a reference, reading it on first use.
func (w *walker) load(target string, ref *node) (*node, error) {
	if n, ok := w.cache[target]; ok {
		return n, nil
	}
	q := fmt.Sprintf("%q", ref.str)
	data, err := os.ReadFile(filepath.Join(w.site, filepath.FromSlash(target)))
	if err != nil {
		e := &Error{File: ref.file, Pointer: ref.ptr, Err: err}
		if errors.Is(err, fs.ErrNotExist) {
			e.Problem = "reference " + q + " names " + target + ", which does not exist"
			e.Fix = "create the file or correct the reference"
		} else {
			e.Problem = "reference " + q + " names " + target + ", which cannot be read: " + err.Error()
			e.Fix = "reference a readable JSON file"
		}
		return nil, e
	}
	return w.parse(target, data)
}
