package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// frontMatter holds the members of a page's front matter that ingest uses.
type frontMatter struct {
	Title       string
	Description string
}

// splitCopy removes a leading byte order mark and a leading YAML front
// matter block (a first line "---" up to the next line "---" or "...", LF
// or CRLF line ends) and returns the page's copy, byte for byte the rest
// of the file, with the front matter's title and description.
func splitCopy(file []byte) (copyText string, fm frontMatter, err error) {
	text := bytes.TrimPrefix(file, []byte("\ufeff"))
	first, rest, ok := cutLine(text)
	if !ok || string(first) != "---" {
		return string(text), fm, nil
	}
	var block []byte
	for len(rest) > 0 {
		line, after, _ := cutLine(rest)
		if s := string(line); s == "---" || s == "..." {
			fm, err = parseFrontMatter(block)
			return string(after), fm, err
		}
		block = append(block, rest[:len(rest)-len(after)]...)
		rest = after
	}
	// No closing line: not front matter; the file is its own copy.
	return string(text), frontMatter{}, nil
}

// cutLine returns the first line of b without its line end (LF or CRLF),
// the rest after the line end, and whether a line end was found.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.TrimSuffix(b, []byte("\r")), nil, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}

func parseFrontMatter(block []byte) (frontMatter, error) {
	var fm frontMatter
	var m map[string]any
	if err := yaml.Unmarshal(block, &m); err != nil {
		// Mintlify front matter is not always strict YAML; fall back to
		// reading "key: value" lines so a page still ingests.
		return scanFrontMatter(block), nil
	}
	fm.Title = scalar(m["title"])
	fm.Description = scalar(m["description"])
	return fm, nil
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case map[string]any, []any:
		return ""
	}
	return fmt.Sprint(v)
}

func scanFrontMatter(block []byte) frontMatter {
	var fm frontMatter
	for _, line := range strings.Split(string(block), "\n") {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		switch strings.TrimSpace(k) {
		case "title":
			fm.Title = v
		case "description":
			fm.Description = v
		}
	}
	return fm
}

// derivedTitle is the title of a page without a front matter title: the
// last path segment (the folder for x/index, the tree name for the home
// page) with dashes and underscores as spaces and a capital first letter.
func derivedTitle(tree, path string) string {
	seg := path
	if seg == "index" {
		seg = tree
	} else {
		seg = strings.TrimSuffix(seg, "/index")
		if i := strings.LastIndexByte(seg, '/'); i >= 0 {
			seg = seg[i+1:]
		}
	}
	seg = strings.NewReplacer("-", " ", "_", " ").Replace(seg)
	r, n := utf8.DecodeRuneInString(seg)
	if n == 0 {
		return seg
	}
	return string(unicode.ToUpper(r)) + seg[n:]
}

// oneLine replaces line ends in a title or description with spaces, so a
// composed index line stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
