package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ExportFile exports version name to FILE.tmp, syncs it and renames it
// to file, and returns the archive's size. On any failure FILE.tmp is
// removed and file is left as it was.
func (s *Store) ExportFile(ctx context.Context, name, file string) (n int64, err error) {
	tmp := file + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if n, err = s.ExportTo(ctx, name, f); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("export: write %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("export: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if d, err := os.Open(filepath.Dir(file)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return n, nil
}

// ExportTo writes the archive of version name to w, as Export does, and
// returns its size in bytes.
func (s *Store) ExportTo(ctx context.Context, name string, w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	err := s.Export(ctx, name, cw)
	return cw.n, err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
