package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/turnzerocloud/tzctx/store"
)

func newExportCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "export VERSION FILE",
		Short: "Write a stored version as one archive file, for 'tzctx import' on another machine",
		Long: `Export verifies the named version as a server does before it serves it, and
writes it to FILE as one gzip-compressed tar archive: a manifest listing every
file with its size and SHA-256, then the version's files. A damaged version is
refused. FILE "-" writes the archive to stdout; otherwise it is written to
FILE.tmp and renamed to FILE once complete, so a failed export leaves no FILE.
'tzctx import FILE' stores the version in another data directory.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, file := args[0], args[1]
			st, err := store.OpenExisting(g.dataDir())
			if err != nil {
				return err
			}
			if _, err := st.Lookup(name); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if file == "-" {
				out := cmd.OutOrStdout()
				if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					return errors.New("stdout is a terminal; give a FILE, or redirect stdout to one")
				}
				cw := &countingWriter{w: out}
				if err := st.Export(ctx, name, cw); err != nil {
					return err
				}
				// stdout is the archive: the report goes to stderr.
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to stdout (%d bytes)\n", name, cw.n)
				return nil
			}
			n, err := exportFile(ctx, st, name, file)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %s to %s (%d bytes)\n", name, file, n)
			return nil
		},
	}
}

// exportFile exports version name to FILE.tmp, syncs it and renames it
// to file, and returns the archive's size. On any failure FILE.tmp is
// removed and file is left as it was.
func exportFile(ctx context.Context, st *store.Store, name, file string) (n int64, err error) {
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
	cw := &countingWriter{w: f}
	if err := st.Export(ctx, name, cw); err != nil {
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
	return cw.n, nil
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
