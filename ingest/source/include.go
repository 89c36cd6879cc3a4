package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Includes says which include forms a tree's generator expands in its
// pages at build time, and where their paths start. A Source sets it; the
// zero value expands none (Mintlify's trees unless --mintlify-snippets
// expand: their snippet imports are served as written by default, see
// contracts/choices/links.md#ch-mintlify-snippets).
type Includes struct {
	// Form names the generator whose forms apply: IncludeMdBook,
	// IncludeVitePress, IncludeMkDocs, IncludeDocusaurus, IncludeGitBook
	// or IncludeMintlify; "" for none.
	Form string
	// Root is the folder an "@" path starts at, relative to the tree
	// folder: VitePress's srcDir, Docusaurus's site folder ("@site/");
	// for GitBook and Mintlify, the folder a "/" path starts at.
	Root string
	// Snippets is set where mkdocs.yml enables pymdownx.snippets, and
	// BasePaths are its base_path entries, relative to the tree folder.
	Snippets  bool
	BasePaths []string
}

// The include forms of Includes.Form.
const (
	IncludeMdBook     = "mdbook"
	IncludeVitePress  = "vitepress"
	IncludeMkDocs     = "mkdocs"
	IncludeDocusaurus = "docusaurus"
	IncludeGitBook    = "gitbook"
	IncludeMintlify   = "mintlify"
)

// IncludeBounds bound what a tree's includes may pull into its pages. A
// zero field takes its default.
type IncludeBounds struct {
	// MaxDepth bounds the nesting of includes: a page's own directives
	// are level 1 (--max-include-depth).
	MaxDepth int
	// MaxFileBytes bounds each included file, as a page file is bounded
	// (--max-page-bytes).
	MaxFileBytes int64
	// MaxPageBytes bounds the bytes one page may pull in: every inclusion
	// counts the whole size of the file it names (--max-include-bytes).
	MaxPageBytes int64
	// MaxVersionBytes bounds the same over every page of a version
	// (--max-version-include-bytes).
	MaxVersionBytes int64
}

// The defaults of IncludeBounds.
const (
	// DefaultMaxIncludeDepth is mdBook's own nesting bound.
	DefaultMaxIncludeDepth        = 10
	DefaultMaxIncludeFileBytes    = 16 << 20
	DefaultMaxIncludeBytes        = 16 << 20
	DefaultMaxVersionIncludeBytes = 256 << 20
)

func (b IncludeBounds) withDefaults() IncludeBounds {
	if b.MaxDepth <= 0 {
		b.MaxDepth = DefaultMaxIncludeDepth
	}
	if b.MaxFileBytes <= 0 {
		b.MaxFileBytes = DefaultMaxIncludeFileBytes
	}
	if b.MaxPageBytes <= 0 {
		b.MaxPageBytes = DefaultMaxIncludeBytes
	}
	if b.MaxVersionBytes <= 0 {
		b.MaxVersionBytes = DefaultMaxVersionIncludeBytes
	}
	return b
}

// Expander expands the include directives of one tree's pages into the
// text the site renders, reading every included file through the tree's
// folder. What it cannot include (a missing file, anchor, region or
// range; a path outside the folder; a bound reached) stays as written,
// with a warning naming the page, the line and the path.
type Expander struct {
	Dir    *sitefs.Folder
	Rules  Includes
	Bounds IncludeBounds
	// Check refuses an included text no page could hold (not UTF-8, a
	// control character); nil takes every text.
	Check func([]byte) error
	// Used counts the bytes the version's pages have pulled in so far;
	// the trees of one version share it. nil counts for this tree alone.
	Used *int64
	// Warnings are what could not be included, in page order.
	Warnings []string
	// Expanded counts the directives expanded, nested ones included.
	Expanded int
	// Left counts the directives left as written for a fault (each has
	// a warning, but those a page's or the version's byte bound left
	// after the first it warned about).
	Left int
	// Reads counts the files read (each at most once a page).
	Reads int

	versionWarned bool
}

// ErrInclude is the kind of every fault an include directive meets; the
// expansion goes on without it.
var ErrInclude = errors.New("include not expanded")

// pageRun is the expansion of one page.
type pageRun struct {
	ctx    context.Context
	x      *Expander
	b      IncludeBounds
	page   string
	used   int64
	warned bool // the page bound was reached and warned about
	files  map[string]string
	err    error // the context's, once seen
}

// where is the place of a text being expanded: the file it came from, the
// line its first line is in that file, its nesting level and, for a nested
// one, the place of the directive that included it.
type where struct {
	file  string
	line  int
	depth int
	via   string
}

func (w where) at(line int) string {
	loc := fmt.Sprintf("%s:%d", w.file, w.line+line)
	if w.via != "" {
		loc = w.via + " > " + loc
	}
	return loc
}

// Page expands the includes of the page file page, whose text (after its
// front matter) begins at line firstLine. It returns the text as the site
// renders it; its only error is the context's.
func (x *Expander) Page(ctx context.Context, page string, firstLine int, text string) (string, error) {
	if x == nil || x.Rules.Form == "" {
		return text, nil
	}
	if x.Used == nil {
		x.Used = new(int64)
	}
	r := &pageRun{ctx: ctx, x: x, b: x.Bounds.withDefaults(), page: page, files: map[string]string{}}
	w := where{file: page, line: firstLine}
	switch x.Rules.Form {
	case IncludeMdBook:
		text = hideRustLines(r.mdbook(text, w))
	case IncludeVitePress:
		var lm lineMap
		text = r.vitepressIncludes(text, w, &lm)
		text = r.vitepressSnippets(text, lm.loc)
	case IncludeMkDocs:
		r.fastAPIHooks(text, w)
		if x.Rules.Snippets {
			text = r.snippets(text, w, nil)
		}
	case IncludeDocusaurus:
		text = r.rawLoader(text, w)
	case IncludeGitBook:
		text = r.gitbook(text, w)
	case IncludeMintlify:
		text = r.mintlify(text, w, nil)
	}
	if r.err != nil {
		return "", r.err
	}
	return text, nil
}

// warn records what a directive at loc could not include: it is left as
// written.
func (r *pageRun) warn(loc, problem, fix string) {
	r.x.Left++
	r.x.Warnings = append(r.x.Warnings, loc+": "+problem+"; "+fix)
}

// stopped reports whether the context is done, keeping its error.
func (r *pageRun) stopped() bool {
	if r.err == nil {
		r.err = r.ctx.Err()
	}
	return r.err != nil
}

// deeper reports whether a directive of w may include: its level is
// within the depth bound. It warns where it is not.
func (r *pageRun) deeper(w where, loc, directive string) bool {
	if w.depth+1 <= r.b.MaxDepth {
		return true
	}
	r.warn(loc, "nesting bound: "+strconv.Quote(directive)+fmt.Sprintf(" nests includes deeper than the bound of %d levels (a cycle?)", r.b.MaxDepth),
		"the directive is left as written, raise the bound with --max-include-depth")
	return false
}

// resolve joins a directive's path to the folder it is relative to (a
// path relative to the tree folder), refusing one that leaves the tree
// folder; it warns, naming the directive, where it refuses.
func (r *pageRun) resolve(base, p, loc, directive string) (string, bool) {
	j, ok := safeJoin(base, p)
	if !ok {
		r.warn(loc, "outside the folder: "+strconv.Quote(directive)+" names "+strconv.Quote(p)+", which is outside the tree folder",
			"the directive is left as written, ingest a folder that holds the file")
	}
	return j, ok
}

// fetch returns the included file a directive of w names, resolved (ok
// false where resolving refused it) to name, within the depth bound.
func (r *pageRun) fetch(w where, loc, directive, name string, resolved bool) (string, bool) {
	if !resolved || !r.deeper(w, loc, directive) {
		return "", false
	}
	return r.read(name, loc, directive)
}

// read returns the text of the included file name (relative to the tree
// folder), counting its bytes against the page's and the version's
// bounds; ok is false, with a warning, where it cannot.
func (r *pageRun) read(name, loc, directive string) (string, bool) {
	if r.stopped() {
		return "", false
	}
	text, seen := r.files[name]
	if !seen {
		data, err := r.x.Dir.ReadFile(r.ctx, name, r.b.MaxFileBytes)
		if err != nil {
			if r.stopped() {
				return "", false
			}
			switch {
			case errors.Is(err, fs.ErrNotExist):
				r.warn(loc, "missing file: "+strconv.Quote(directive)+" names "+name+", which does not exist", "the directive is left as written, fix its path")
			case errors.Is(err, sitefs.ErrOutside):
				r.warn(loc, "outside the folder: "+strconv.Quote(directive)+": "+err.Error(), "the directive is left as written, ingest a folder that holds the file")
			case errors.Is(err, sitefs.ErrTooLarge):
				r.warn(loc, "file bound: "+strconv.Quote(directive)+" names "+name+fmt.Sprintf(", over the bound of %d bytes", r.b.MaxFileBytes), "the directive is left as written, raise the bound with --max-page-bytes")
			default:
				r.warn(loc, "unreadable file: "+strconv.Quote(directive)+": "+err.Error(), "the directive is left as written, make it a regular file inside the folder")
			}
			return "", false
		}
		r.x.Reads++
		if r.x.Check != nil {
			if err := r.x.Check(data); err != nil {
				r.warn(loc, "unreadable text: "+strconv.Quote(directive)+" names "+name+": "+err.Error(), "the directive is left as written, save the file as UTF-8 text")
				return "", false
			}
		}
		text = strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
		r.files[name] = text
	}
	n := int64(len(text))
	if r.used+n > r.b.MaxPageBytes {
		if r.warned {
			r.x.Left++
		} else {
			r.warned = true
			r.warn(loc, "page bound: "+strconv.Quote(directive)+fmt.Sprintf(" would make the page pull in more than the bound of %d bytes", r.b.MaxPageBytes),
				"it and the page's further directives are left as written, raise the bound with --max-include-bytes")
		}
		return "", false
	}
	if *r.x.Used+n > r.b.MaxVersionBytes {
		if r.x.versionWarned {
			r.x.Left++
		} else {
			r.x.versionWarned = true
			r.warn(loc, "version bound: "+strconv.Quote(directive)+fmt.Sprintf(" would make the version's pages pull in more than the bound of %d bytes", r.b.MaxVersionBytes),
				"it and every further directive are left as written, raise the bound with --max-version-include-bytes")
		}
		return "", false
	}
	r.used += n
	*r.x.Used += n
	return text, true
}

// splitLines splits a text into its lines as Rust's str::lines and
// Python's file iteration do: no empty last line for a final newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lineAt returns the 0-based line of the byte offset off in s, counting
// on from a previous answer (prevOff, prevLine) where off is past it.
func lineAt(s string, off, prevOff, prevLine int) int {
	if off < prevOff {
		prevOff, prevLine = 0, 0
	}
	return prevLine + strings.Count(s[prevOff:off], "\n")
}

// fenceFor returns a backtick fence longer than any backtick run that
// opens a line of content, so the content cannot close it.
func fenceFor(content string) string {
	n := 3
	for l := range strings.SplitSeq(content, "\n") {
		l = strings.TrimLeft(l, " \t")
		k := len(l) - len(strings.TrimLeft(l, "`"))
		if k >= n {
			n = k + 1
		}
	}
	return strings.Repeat("`", n)
}

// codeFence wraps content in a fence of the given info string, each line
// indented by indent.
func codeFence(indent, info, content string) string {
	f := fenceFor(content)
	var b strings.Builder
	b.WriteString(indent + f + info + "\n")
	for _, l := range splitLines(content) {
		if l != "" {
			b.WriteString(indent)
		}
		b.WriteString(l + "\n")
	}
	b.WriteString(indent + f)
	return b.String()
}
