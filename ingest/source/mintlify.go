package source

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// Mintlify reads a Mintlify folder: docs.json's navigation (manifest.Walk
// follows its $ref files), each page from PATH.mdx or PATH.md, and
// docs.json's redirects.
type Mintlify struct{}

var _ Source = Mintlify{}

// Format implements Source.
func (Mintlify) Format() string { return "mintlify" }

// Recognises implements Source: the folder holds docs.json.
func (Mintlify) Recognises(dir *sitefs.Folder) bool { return dir.Exists(manifest.ManifestName) }

// Read implements Source. Its errors are manifest's *manifest.Error,
// naming the manifest file relative to the folder.
func (Mintlify) Read(ctx context.Context, dir *sitefs.Folder, opts Options) (*Tree, error) {
	res, err := manifest.WalkFolder(ctx, dir, manifest.Options{MaxFileBytes: opts.MaxFileBytes, MaxNodes: opts.MaxNodes, MaxDepth: opts.MaxDepth, CountOnly: true})
	if err != nil {
		return nil, err
	}
	t := &Tree{Name: res.Name, Navigation: manifest.ManifestName, Pages: make([]Page, len(res.Pages))}
	for k, n := range res.SkippedBy {
		t.skipN(mintlifySkips[k], n)
	}
	for i, mp := range res.Pages {
		p := Page{Path: mp.Path, ListedIn: mp.File, Pointer: mp.Pointer}
		if f, ok := pageFile(dir, mp.Path); ok {
			p.File = f
		} else {
			p.Tried = mp.Path + ".mdx or " + mp.Path + ".md"
		}
		t.Pages[i] = p
	}
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = manifest.DefaultMaxFileBytes
	}
	t.Redirects = readRedirects(ctx, dir, maxBytes)
	return t, nil
}

// mintlifySkips names the kinds of entries manifest.Walk skips.
var mintlifySkips = map[manifest.SkipKind]SkipKind{
	manifest.SkipHref:      {"navigation entry", "navigation entries", "a link (href)"},
	manifest.SkipOperation: {"navigation entry", "navigation entries", "an OpenAPI operation"},
	manifest.SkipOpenAPI:   {"navigation entry", "navigation entries", "an OpenAPI specification"},
	manifest.SkipAsyncAPI:  {"navigation entry", "navigation entries", "an AsyncAPI specification"},
}

// pageFile finds the file of page path p: PATH.mdx where that name is
// present in any form, else PATH.md. A present name that is not a regular
// file inside the folder is the page's file all the same, so that reading
// it refuses it by name rather than another file being read.
func pageFile(dir *sitefs.Folder, p string) (string, bool) {
	for _, ext := range []string{".mdx", ".md"} {
		if dir.Exists(p + ext) {
			return p + ext, true
		}
	}
	return "", false
}

// readRedirects reads docs.json's "redirects": an array of {"source",
// "destination"} objects, or {"$ref": FILE} naming a file inside the
// folder that holds one. None where it holds none that reads: the
// redirects only help tzctx check follow a moved link, and a manifest
// that did not read was refused already.
func readRedirects(ctx context.Context, dir *sitefs.Folder, maxBytes int64) []Redirect {
	raw, err := dir.ReadFile(ctx, manifest.ManifestName, maxBytes)
	if err != nil {
		return nil
	}
	var doc struct {
		Redirects json.RawMessage `json:"redirects"`
	}
	if json.Unmarshal(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")), &doc) != nil {
		return nil
	}
	var ref struct {
		Ref string `json:"$ref"`
	}
	if json.Unmarshal(doc.Redirects, &ref) == nil && ref.Ref != "" {
		name := path.Clean(ref.Ref)
		if name == ".." || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") {
			return nil
		}
		if doc.Redirects, err = dir.ReadFile(ctx, name, maxBytes); err != nil {
			return nil
		}
	}
	var rs []Redirect
	_ = json.Unmarshal(doc.Redirects, &rs)
	return rs
}
