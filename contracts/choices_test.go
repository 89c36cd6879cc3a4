package contracts

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxChoicesLines bounds a subject file of the choices: the contents page
// asks for about 400 lines, and a file past this is to be split in two
// subjects.
const maxChoicesLines = 450

// anchorLine is a section's stable anchor, alone on the line before its
// heading.
var anchorLine = regexp.MustCompile(`^<a id="(ch-[a-z0-9]+(?:-[a-z0-9]+)*)"></a>$`)

// contentsLink is a link of the contents page to a subject file, or to a
// section of one by its anchor.
var contentsLink = regexp.MustCompile(`\]\(choices/([a-z0-9-]+\.md)(?:#([^)\s]*))?\)`)

// citation is a citation of a subject file, with or without an anchor, in
// the repository's code and documents.
var citation = regexp.MustCompile(`contracts/choices/([A-Za-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]*))?`)

// titleCitation is a citation of the choices by a section's title, as the
// choices were cited before they were split: contracts/choices.md, then a
// comma or parenthesis, perhaps "section", and a quoted title.
var titleCitation = regexp.MustCompile("contracts/\\s*choices\\.md`?\\s*[,(]\\s*(?:section\\s+)?\"([^\"]*)\"")

// subject is one subject file of the choices.
type subject struct {
	lines    []string
	anchors  map[string]bool // every anchor the file defines
	sections []string        // the anchors of its "## " sections, in order
	// heads are the citations of the anchored headings, by the title and
	// by its start before " (" or ":"; leads are those of the bold leads
	// of items ("Text content"), the item's section and its lead.
	heads, leads map[string]string
}

// boldLead is an item's bold lead, "- **Text content.** …".
var boldLead = regexp.MustCompile(`^- \*\*([^*]+?)\.?\*\*`)

// readSubjects reads every subject file the build embeds under choices/.
func readSubjects(t *testing.T) map[string]*subject {
	t.Helper()
	entries, err := fs.ReadDir(FS, "choices")
	if err != nil {
		t.Fatalf("the build embeds no choices/ folder: %v", err)
	}
	out := map[string]*subject{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		raw, err := fs.ReadFile(FS, path.Join("choices", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := &subject{lines: strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n"), anchors: map[string]bool{}, heads: map[string]string{}, leads: map[string]string{}}
		cite := "contracts/choices/" + e.Name()
		section := cite
		for i, l := range s.lines {
			if m := boldLead.FindStringSubmatch(l); m != nil {
				s.leads[m[1]] = section + ` ("` + m[1] + `")`
			}
			m := anchorLine.FindStringSubmatch(l)
			if m == nil || i+1 >= len(s.lines) {
				continue
			}
			s.anchors[m[1]] = true
			title := strings.TrimLeft(s.lines[i+1], "# ")
			if strings.HasPrefix(s.lines[i+1], "## ") {
				s.sections = append(s.sections, m[1])
				section = cite + "#" + m[1]
			}
			s.heads[title] = cite + "#" + m[1]
			for _, sep := range []string{" (", ":"} {
				if short, _, ok := strings.Cut(title, sep); ok {
					s.heads[short] = cite + "#" + m[1]
				}
			}
		}
		out[e.Name()] = s
	}
	if len(out) == 0 {
		t.Fatal("the build embeds no subject file under choices/")
	}
	return out
}

// TestChoicesSubjectFiles: each subject file opens with its title, stays
// within maxChoicesLines, and gives each of its sections (and any
// subsection it anchors) an anchor on the line before the heading; no
// anchor is defined twice in the whole set, so a section moved to another
// file keeps an anchor no other section holds.
func TestChoicesSubjectFiles(t *testing.T) {
	seen := map[string]string{}
	for name, s := range readSubjects(t) {
		if !strings.HasPrefix(s.lines[0], "# ") {
			t.Errorf("choices/%s does not open with its title (a \"# \" heading)", name)
		}
		if len(s.lines) > maxChoicesLines {
			t.Errorf("choices/%s has %d lines, more than %d: split it into two subjects, each with its line on the contents page and its row in the index", name, len(s.lines), maxChoicesLines)
		}
		for i, l := range s.lines {
			if strings.HasPrefix(l, "## ") && (i == 0 || !anchorLine.MatchString(s.lines[i-1])) {
				t.Errorf("choices/%s:%d: section %q has no anchor on the line before it; write <a id=\"ch-<words>\"></a> there", name, i+1, l)
			}
			if m := anchorLine.FindStringSubmatch(l); m != nil {
				if i+1 >= len(s.lines) || !strings.HasPrefix(s.lines[i+1], "##") {
					t.Errorf("choices/%s:%d: anchor %s is not on the line before a heading", name, i+1, m[1])
				}
				if other, dup := seen[m[1]]; dup {
					t.Errorf("anchor %s is defined in choices/%s and in choices/%s; an anchor is defined once", m[1], other, name)
				}
				seen[m[1]] = name
			}
		}
	}
}

// TestChoicesContentsPage: the contents page links every subject file and
// every section of each by its anchor, and every link it holds names a
// file that exists and an anchor that file defines.
func TestChoicesContentsPage(t *testing.T) {
	subjects := readSubjects(t)
	raw, err := fs.ReadFile(FS, "choices.md")
	if err != nil {
		t.Fatal(err)
	}
	files, anchors := map[string]bool{}, map[string]bool{}
	for i, l := range strings.Split(string(raw), "\n") {
		for _, m := range contentsLink.FindAllStringSubmatch(l, -1) {
			s, ok := subjects[m[1]]
			switch {
			case !ok:
				t.Errorf("choices.md:%d links choices/%s, which does not exist", i+1, m[1])
			case m[2] != "" && !s.anchors[m[2]]:
				t.Errorf("choices.md:%d links choices/%s#%s, an anchor the file does not define", i+1, m[1], m[2])
			case m[2] == "":
				files[m[1]] = true
			default:
				anchors[m[1]+"#"+m[2]] = true
			}
		}
	}
	for name, s := range subjects {
		if !files[name] {
			t.Errorf("the contents page does not list choices/%s; give it a line saying what it covers", name)
		}
		for _, a := range s.sections {
			if !anchors[name+"#"+a] {
				t.Errorf("the contents page does not list the section choices/%s#%s; add a line for it under its file", name, a)
			}
		}
	}
}

// TestChoicesCitations: every citation of a subject file of the choices,
// contracts/choices/<file>.md#<anchor>, in the Go files, the Makefile, the
// test scripts, README.md and docs/, names a file that exists and an
// anchor it defines; and none cites the choices by a section's title, as
// they were cited before they were split, since a title may be edited and
// its section moved.
func TestChoicesCitations(t *testing.T) {
	subjects := readSubjects(t)
	byTitle := map[string]string{}
	for _, s := range subjects {
		for lead, c := range s.leads {
			byTitle[lead] = c
		}
	}
	for _, s := range subjects {
		for title, c := range s.heads {
			byTitle[title] = c
		}
	}
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("the module's root is not beside this package: %v", err)
	}
	var cited []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "vendor" || n == "bin" || rel == "data" || rel == "contracts") {
				return filepath.SkipDir
			}
			return nil
		}
		if !cites(rel) {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := string(raw)
		for _, m := range citation.FindAllStringSubmatchIndex(text, -1) {
			file, anchor := text[m[2]:m[3]], ""
			if m[4] >= 0 {
				anchor = text[m[4]:m[5]]
			}
			at := fmt.Sprintf("%s:%d", rel, 1+strings.Count(text[:m[0]], "\n"))
			s, ok := subjects[file]
			switch {
			case !ok:
				t.Errorf("%s cites contracts/choices/%s, which is no subject file of the choices", at, file)
			case m[4] >= 0 && !s.anchors[anchor]:
				t.Errorf("%s cites contracts/choices/%s#%s, an anchor the file does not define (the contents page, contracts/choices.md, lists them)", at, file, anchor)
			default:
				cited = append(cited, at)
			}
		}
		joined := commentBreak.ReplaceAllString(text, " ")
		for _, m := range titleCitation.FindAllStringSubmatch(joined, -1) {
			want := byTitle[m[1]]
			if want == "" {
				want = "contracts/choices/<file>.md#<anchor>"
			}
			t.Errorf("%s cites contracts/choices.md by the section title %q; cite %s instead: the anchor stays when the title changes", rel, m[1], want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) == 0 {
		t.Error("no file cites a subject file of the choices; the walk found none, so it read the wrong folder")
	}
}

// commentBreak is a line break inside a comment or a paragraph, with the
// next line's indentation and comment marker, so that a citation wrapped
// over two lines reads as one.
var commentBreak = regexp.MustCompile(`\s*\n[ \t]*(?://|#)?[ \t]*`)

// cites reports whether the file at the repository path rel is one whose
// citations of the choices TestChoicesCitations holds: Go files, the
// Makefile, the test scripts, README.md and the documents under docs/.
func cites(rel string) bool {
	switch {
	case strings.HasSuffix(rel, ".go"), strings.HasSuffix(rel, ".mjs"), rel == "Makefile", rel == "README.md":
		return true
	case strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"):
		return true
	}
	return false
}
