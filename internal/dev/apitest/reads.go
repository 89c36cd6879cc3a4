package apitest

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/store"
)

// ReadWhole reads a text from offset 0 to its end, following next_offset
// with the stamp, and checks the paging members on the way. It returns the
// text and its stamp.
func ReadWhole(t *testing.T, base string, req map[string]any) (string, string) {
	t.Helper()
	var b strings.Builder
	stamp := ""
	off := 0
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatalf("read %v: more than 10000 chunks", req)
		}
		body := map[string]any{}
		for k, v := range req {
			body[k] = v
		}
		if off > 0 {
			body["offset"], body["stamp"] = off, stamp
		}
		a := MustRead(t, base, body)
		if off > 0 && a.Stamp != stamp {
			t.Fatalf("read %v: stamp changed mid-read without context_changed", body)
		}
		if a.Offset != off {
			t.Fatalf("read %v: answer offset %d, want %d", body, a.Offset, off)
		}
		stamp = a.Stamp
		b.WriteString(a.Text)
		if a.NextOffset == nil {
			if utf8.RuneCountInString(b.String()) != a.Total {
				t.Fatalf("read %v: reassembled %d code points, total says %d", req, utf8.RuneCountInString(b.String()), a.Total)
			}
			break
		}
		if *a.NextOffset <= off {
			t.Fatalf("read %v: next_offset %d does not advance past %d", body, *a.NextOffset, off)
		}
		off = *a.NextOffset
	}
	if stamp != SHA256Hex(b.String()) {
		t.Fatalf("read %v: stamp %s is not the SHA-256 of the reassembled text", req, stamp)
	}
	return b.String(), stamp
}

// StoredText reads a text of the active version of dataDir from the
// store: the ground truth HTTP and MCP answers are checked against.
func StoredText(t *testing.T, dataDir, tree, key string) string {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	tr := v.Tree(tree)
	if tr == nil {
		t.Fatalf("the active version has no tree %s", tree)
	}
	txt, err := tr.Text(key)
	if err != nil || txt == nil {
		t.Fatalf("no stored text %s %s: %v", tree, key, err)
	}
	return txt.Slice(0, txt.Total())
}

// DirNames lists the names of the entries of dir, none where it is absent.
func DirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// ActiveName reads the ACTIVE pointer of a data directory through the store.
func ActiveName(t *testing.T, dataDir string) string {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.ActiveName()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
