package source

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// MdBook reads an mdBook folder: book.toml at the root (its [book] title
// and src, default "src"; its [output.html.redirect] table as the
// redirects) and SUMMARY.md in src, read as SUMMARY.md is (summaryPages).
type MdBook struct{}

// GitBook reads a GitBook folder: SUMMARY.md at the root, or at the root
// and summary path .gitbook.yaml names, read as mdBook's is.
type GitBook struct{}

var (
	_ Source = MdBook{}
	_ Source = GitBook{}
)

// Format implements Source.
func (MdBook) Format() string { return "mdbook" }

// Recognises implements Source: the folder holds book.toml.
func (MdBook) Recognises(dir *sitefs.Folder) bool { return dir.Exists("book.toml") }

// Read implements Source.
func (MdBook) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	data, err := readNav(ctx, dir, "book.toml", opts)
	if err != nil {
		return nil, err
	}
	// The parser has no bound of its own: the scan holds its input to the
	// bounds of opts first.
	if err := scanTOML(ctx, "book.toml", data, opts); err != nil {
		return nil, err
	}
	var cfg struct {
		Book struct {
			Title string `toml:"title"`
			Src   string `toml:"src"`
		} `toml:"book"`
		Output struct {
			HTML struct {
				Redirect map[string]string `toml:"redirect"`
			} `toml:"html"`
		} `toml:"output"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		line := 0
		if pe, ok := err.(toml.ParseError); ok {
			line = pe.Position.Line
		}
		return nil, &Error{File: "book.toml", Line: line, Problem: "the file is not valid TOML: " + err.Error(), Fix: "fix the TOML"}
	}
	src := "src"
	if cfg.Book.Src != "" {
		src = cfg.Book.Src
	}
	root, ok := safeJoin(".", src)
	if !ok {
		if path.Clean(src) != "." {
			return nil, &Error{File: "book.toml", Problem: fmt.Sprintf("[book] src %q leaves the folder", src), Fix: "ingest the folder that holds both book.toml and the src folder"}
		}
		root = "."
	}
	t, err := summaryPages(ctx, dir, root, path.Join(root, "SUMMARY.md"), opts)
	if err != nil {
		return nil, err
	}
	if cfg.Book.Title != "" {
		t.Name = cfg.Book.Title
	}
	t.Includes = Includes{Form: IncludeMdBook}
	// The scan bounded the redirects' number with the file's entries.
	t.Redirects = make([]Redirect, 0, len(cfg.Output.HTML.Redirect))
	for from, to := range cfg.Output.HTML.Redirect {
		if len(t.Redirects)%tomlCtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t.Redirects = append(t.Redirects, Redirect{Source: "/" + strings.TrimPrefix(strings.TrimSuffix(from, ".html"), "/"), Destination: strings.TrimSuffix(to, ".html")})
	}
	sortRedirects(t.Redirects)
	t.Root = root
	return t, nil
}

// sortRedirects orders redirects by source (then destination, as "x"
// and "x.html" are one source), as a TOML table has no order.
func sortRedirects(rs []Redirect) { sortRedirectsBy(rs, compareRedirects) }

// sortRedirectsBy sorts redirects with compare, in O(n log n) calls of
// it (a test counts them).
func sortRedirectsBy(rs []Redirect, compare func(a, b Redirect) int) {
	slices.SortFunc(rs, compare)
}

func compareRedirects(a, b Redirect) int {
	return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Destination, b.Destination))
}

// Format implements Source.
func (GitBook) Format() string { return "gitbook" }

// Recognises implements Source: the folder holds .gitbook.yaml or
// SUMMARY.md.
func (GitBook) Recognises(dir *sitefs.Folder) bool {
	return dir.Exists(".gitbook.yaml") || dir.Exists("SUMMARY.md")
}

// Read implements Source.
func (GitBook) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	opts = opts.withDefaults()
	root, summary := ".", "SUMMARY.md"
	if dir.Exists(".gitbook.yaml") {
		data, err := readNav(ctx, dir, ".gitbook.yaml", opts)
		if err != nil {
			return nil, err
		}
		var cfg struct {
			Root      string `yaml:"root"`
			Structure struct {
				Summary string `yaml:"summary"`
			} `yaml:"structure"`
		}
		if err := yaml.Unmarshal(data, &cfg); err != nil {
			return nil, &Error{File: ".gitbook.yaml", Line: yamlLine(err), Problem: "the file is not valid YAML: " + err.Error(), Fix: "fix the YAML"}
		}
		if cfg.Root != "" {
			r, ok := safeJoin(".", cfg.Root)
			if !ok && path.Clean(cfg.Root) != "." {
				return nil, &Error{File: ".gitbook.yaml", Problem: fmt.Sprintf("root %q leaves the folder", cfg.Root), Fix: "ingest the folder that holds both .gitbook.yaml and the root"}
			}
			if ok {
				root = r
			}
		}
		if cfg.Structure.Summary != "" {
			summary = cfg.Structure.Summary
		}
	}
	name, ok := safeJoin(root, summary)
	if !ok {
		return nil, &Error{File: ".gitbook.yaml", Problem: fmt.Sprintf("structure.summary %q leaves the folder", summary), Fix: "name a summary file inside the root"}
	}
	t, err := summaryPages(ctx, dir, root, name, opts)
	if t != nil {
		t.Includes = Includes{Form: IncludeGitBook, Root: root}
	}
	return t, err
}

var (
	summaryHeadingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	summaryItemRE    = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
	summaryLinkRE    = regexp.MustCompile(`^\[(.*)\]\(\s*(<[^>]*>|[^()\s]*)\s*(?:"[^"]*")?\s*\)\s*$`)
	summarySepRE     = regexp.MustCompile(`^\s*(-{3,}|\*{3,}|_{3,})\s*$`)
)

// summaryPages reads a SUMMARY.md as mdBook and GitBook do. A heading
// before any chapter is the book's title; a later heading is a part
// title, the group of the chapters after it. Links before the first list
// item are prefix chapters, list items (nested by indentation) numbered
// chapters, links after the list suffix chapters. A draft chapter, a link
// with no target ("[Title]()"), and a link out of the site are counted as
// skipped; separators and HTML comments are left out. Paths are relative
// to root, the folder the pages are published from.
func summaryPages(ctx context.Context, dir *sitefs.Folder, root, name string, opts Options) (*Tree, error) {
	data, err := readNav(ctx, dir, name, opts)
	if err != nil {
		return nil, err
	}
	t := &Tree{Navigation: name, HeadingTitles: true}
	l := newLister(t)
	var group []string
	seenChapter := false
	inComment := false
	// found holds what existing said of each file, as a chapter listed
	// again (a million times, in one hostile summary) is looked up once.
	found := map[string][2]string{}
	rest := string(data)
	for ln := 1; rest != ""; ln++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if ln > opts.MaxNodes {
			return nil, &Error{File: name, Line: ln, Problem: fmt.Sprintf("the summary has more than %d lines", opts.MaxNodes), Fix: "shorten it, or raise the bound with --max-nav-nodes"}
		}
		line = strings.TrimRight(line, "\r")
		if inComment {
			if strings.Contains(line, "-->") {
				inComment = false
			}
			continue
		}
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "<!--") {
			inComment = !strings.Contains(s, "-->")
			continue
		}
		if strings.TrimSpace(line) == "" || summarySepRE.MatchString(line) {
			continue
		}
		if m := summaryHeadingRE.FindStringSubmatch(line); m != nil {
			if seenChapter || len(t.Pages) > 0 || t.Skipped > 0 || t.Name != "" {
				group = []string{m[2]}
			} else {
				t.Name = m[2]
			}
			continue
		}
		text := strings.TrimSpace(line)
		if m := summaryItemRE.FindStringSubmatch(line); m != nil {
			if indent := len(strings.ReplaceAll(m[1], "\t", "    ")); indent/2 > opts.MaxDepth {
				return nil, &Error{File: name, Line: ln, Problem: fmt.Sprintf("the chapter nests deeper than the bound of %d", opts.MaxDepth), Fix: "flatten the summary, or raise the bound with --max-nav-depth"}
			}
			text = strings.TrimSpace(m[2])
		}
		m := summaryLinkRE.FindStringSubmatch(text)
		if m == nil {
			if seenChapter || strings.HasPrefix(text, "[") {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: the line is not a chapter link and is left out; write it as [Title](file.md)", name, ln))
			}
			continue
		}
		seenChapter = true
		title := unescapeMarkdown(m[1])
		target := strings.TrimSuffix(strings.TrimPrefix(m[2], "<"), ">")
		if u, err := url.PathUnescape(target); err == nil {
			target = u
		}
		target, _, _ = strings.Cut(target, "#")
		if target == "" {
			t.skip(skipSummaryDraft)
			continue
		}
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			t.skip(skipSummaryURL)
			continue
		}
		if !isPageFile(target) {
			t.skip(skipSummaryOther)
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: %q names no Markdown page and is left out; link a .md file", name, ln, target))
			continue
		}
		file, ok := safeJoin(root, target)
		if !ok || root != "." && !strings.HasPrefix(file, root+"/") {
			return nil, &Error{File: name, Line: ln, Problem: fmt.Sprintf("the chapter %q names %s, outside %s", title, target, rootName(root)), Fix: "link a page inside the book's folder, or move the page into it"}
		}
		rel := file
		if root != "." {
			rel = strings.TrimPrefix(file, root+"/")
		}
		p := Page{Path: pagePath(rel), ListedIn: name, Pointer: strconv.Itoa(ln), Title: title, Group: group}
		f, ok := found[file]
		if !ok {
			f[0], f[1] = existing(dir, file)
			found[file] = f
		}
		p.File, p.Tried = f[0], f[1]
		l.add(p)
	}
	return t, nil
}

// rootName names a root folder for a message.
func rootName(root string) string {
	if root == "." {
		return "the folder"
	}
	return root
}

// unescapeMarkdown removes the backslash escapes of a link text.
func unescapeMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!<>", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
