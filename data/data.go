// Package data embeds the sample documentation site that a fresh server
// ingests when its data directory holds no version.
package data

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed site
var site embed.FS

// Site returns the sample site: a folder per tree.
func Site() fs.FS {
	sub, err := fs.Sub(site, "site")
	if err != nil {
		panic(err)
	}
	return sub
}

// Extract writes the sample site into dir, which must exist, and returns
// the site folder's path.
func Extract(dir string) (string, error) {
	root := filepath.Join(dir, "site")
	err := fs.WalkDir(Site(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(root, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(Site(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	return root, err
}
