package manifest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
)

// resolvePointer answers the value an RFC 6901 pointer names in a JSON
// document, read as encoding/json reads it (a repeated member name's last
// value wins, as the walker's does).
func resolvePointer(doc []byte, pointer string) (any, bool) {
	var v any
	if err := json.Unmarshal(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")), &v); err != nil {
		return nil, false
	}
	if pointer == "" {
		return v, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// FuzzWalk walks a site folder whose docs.json and whose one referenced
// file, es.json, hold fuzzed bytes. A refusal is a *manifest.Error naming
// one of the two files with a problem and never a panic; a walk that
// succeeds is deterministic, lists each page once with a well-formed
// path, names only files it read, counts what it lists, and every page's
// JSON pointer names, in the file it names, the string that listed it.
// The files the walk accepted also satisfy the schema in one validation.
func FuzzWalk(f *testing.F) {
	seeds := [][2]string{
		{`{"navigation":{"pages":["index","/guides/intro","guides/errors"]}}`, `{}`},
		{`{"navigation":{"languages":[{"language":"en","pages":["a"]},{"$ref":"es.json"}]}}`, `{"language":"es","pages":["es/a","es/b"]}`},
		{`{"navigation":{"groups":[{"group":"A","pages":["a1",{"group":"B","pages":["b1","b2"],"root":"b/index"},"a2"]}]}}`, `[]`},
		{`{"navigation":{"tabs":[{"tab":"API","openapi":"o.json","pages":["GET /users","x",{"href":"https://e.com"}]}]}}`, `{}`},
		{`{"navigation":{"pages":[{"$ref":"es.json","group":"override"}]}}`, `{"group":"G","pages":["p","p","q/r"]}`},
		{`{"navigation":{"$ref":"es.json"}}`, `{"pages":[{"$ref":"docs.json"}]}`},
		{`{"navigation":{"pages":[{"$ref":"../x.json"},{"$ref":"/etc/passwd"},{"$ref":"es.json#/a"}]}}`, `{}`},
		{`{"navigation":{"pages":["a/../b","a//b","x.mdx","https://e.com/x"," a","a?b"]}}`, `{}`},
		{"\xef\xbb\xbf{\"navigation\":[\"a\",[\"b\",[\"c\"]]],\"name\":\"Site\"}", `{}`},
		{`{"navigation":{"pages":["a"],"pages":["b"]}}`, `{"pages":[1,true,null]}`},
		{`{"navigation":{"pages":["a~b","c/d"]},"navigation":{"anchors":[{"anchor":"x","pages":["a~b"]}]}}`, `{}`},
		{`{"navigation":`, `{`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, docs, es []byte) {
		files := map[string][]byte{manifest.ManifestName: docs, "es.json": es}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := manifest.Walk(dir)
		if err != nil {
			var me *manifest.Error
			if !errors.As(err, &me) {
				t.Fatalf("refusal %v is a %T, not a *manifest.Error", err, err)
			}
			if me.File != manifest.ManifestName && me.File != "es.json" || me.Problem == "" || !strings.HasPrefix(err.Error(), me.File) {
				t.Fatalf("refusal %+v does not name a manifest file and a problem", me)
			}
			if me.Pointer != "" && !strings.HasPrefix(me.Pointer, "/") {
				t.Fatalf("refusal pointer %q is not a JSON pointer", me.Pointer)
			}
			return
		}
		again, err := manifest.Walk(dir)
		if err != nil || !reflect.DeepEqual(res, again) {
			t.Fatalf("a second walk of the same files differs: %v", err)
		}
		read := map[string]bool{}
		for _, name := range res.Files {
			if _, ok := files[name]; !ok || read[name] {
				t.Fatalf("files read %v: %q is not a manifest file of the folder, or is listed twice", res.Files, name)
			}
			read[name] = true
			if err := manifest.CheckSchemaWhole(name, files[name]); err != nil {
				t.Fatalf("the walk accepted %s, which the schema refuses: %v", name, err)
			}
		}
		if len(res.Files) == 0 || res.Files[0] != manifest.ManifestName {
			t.Fatalf("files read %v do not start with docs.json", res.Files)
		}
		if len(res.Skips) != res.Skipped || len(res.Repeats) != res.Duplicates {
			t.Fatalf("%d skips listed, %d counted; %d repeats listed, %d counted", len(res.Skips), res.Skipped, len(res.Repeats), res.Duplicates)
		}
		seen := map[string]bool{}
		check := func(what string, p manifest.Page) {
			if !read[p.File] {
				t.Fatalf("%s %q is listed in %s, which the walk did not read", what, p.Path, p.File)
			}
			v, ok := resolvePointer(files[p.File], p.Pointer)
			s, isString := v.(string)
			if !ok || !isString || strings.TrimPrefix(s, "/") != p.Path {
				t.Fatalf("%s %q: pointer %s in %s names %#v", what, p.Path, p.Pointer, p.File, v)
			}
			if p.Path == "" || strings.HasPrefix(p.Path, "/") || strings.HasSuffix(p.Path, ".md") || strings.HasSuffix(p.Path, ".mdx") ||
				strings.ContainsAny(p.Path, "\\?#") || strings.Contains(p.Path, "//") {
				t.Fatalf("%s path %q should have been refused", what, p.Path)
			}
			for _, seg := range strings.Split(p.Path, "/") {
				if seg == "" || seg == "." || seg == ".." || strings.TrimSpace(seg) != seg {
					t.Fatalf("%s path %q has a segment %q that should have been refused", what, p.Path, seg)
				}
			}
		}
		for _, p := range res.Pages {
			if seen[p.Path] {
				t.Fatalf("page %q listed twice in Pages", p.Path)
			}
			seen[p.Path] = true
			check("page", p)
		}
		for _, p := range res.Repeats {
			if !seen[p.Path] {
				t.Fatalf("repeat %q of no listed page", p.Path)
			}
			check("repeat", p)
		}
		for _, s := range res.Skips {
			if !read[s.File] || !strings.HasPrefix(s.Pointer, "/") {
				t.Fatalf("skip %+v names a file not read or no pointer", s)
			}
			if _, ok := resolvePointer(files[s.File], s.Pointer); !ok {
				t.Fatalf("skip %+v: its pointer names nothing in %s", s, s.File)
			}
		}
	})
}
