package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// The version's flat files: every text's bytes, one after another, in the
// text file; every place table, lower-cased copy and heading list in the
// aux file. bbolt records where each lies.
const (
	textsFile = "texts.bin"
	auxFile   = "aux.bin"
)

// ref is where a piece of data lies in one flat file.
type ref struct{ off, n uint64 }

// textEntry is where one text and its layout lie.
type textEntry struct{ text, layout ref }

func (e textEntry) encode() []byte {
	b := make([]byte, 0, 32)
	for _, v := range []uint64{e.text.off, e.text.n, e.layout.off, e.layout.n} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// searchEntry is where a page's lower-cased copy (n 0 where none is
// stored) and its headings lie.
type searchEntry struct{ lower, headings ref }

func (e searchEntry) encode() []byte {
	return textEntry{text: e.lower, layout: e.headings}.encode()
}

func decodeRefs(raw []byte) (a, b ref, ok bool) {
	if len(raw) != 32 {
		return ref{}, ref{}, false
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[8*i:]) }
	return ref{u(0), u(1)}, ref{u(2), u(3)}, true
}

// slice returns the bytes r names in data, or false where r lies outside.
func (r ref) slice(data []byte) ([]byte, bool) {
	if r.off > uint64(len(data)) || r.n > uint64(len(data))-r.off {
		return nil, false
	}
	return data[r.off : r.off+r.n : r.off+r.n], true
}

// flatWriter appends to one flat file of a version being built.
type flatWriter struct {
	f   *os.File
	w   *bufio.Writer
	off uint64
	err error
}

func newFlatWriter(path string) (*flatWriter, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &flatWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// write appends p; the string view of p lives only while bufio copies it.
func (fw *flatWriter) write(p []byte) (ref, error) {
	return fw.writeString(unsafe.String(unsafe.SliceData(p), len(p)))
}

// writeString appends s, with no copy of it on the way.
func (fw *flatWriter) writeString(s string) (ref, error) {
	if fw.err != nil {
		return ref{}, fw.err
	}
	r := ref{off: fw.off, n: uint64(len(s))}
	if _, err := fw.w.WriteString(s); err != nil {
		fw.err = err
		return ref{}, err
	}
	fw.off += uint64(len(s))
	return r, nil
}

// close flushes and syncs the file.
func (fw *flatWriter) close() error {
	err := fw.err
	if err == nil {
		err = fw.w.Flush()
	}
	if err == nil {
		err = fw.f.Sync()
	}
	if cerr := fw.f.Close(); err == nil {
		err = cerr
	}
	fw.f = nil
	return err
}

func (fw *flatWriter) abort() {
	if fw != nil && fw.f != nil {
		fw.f.Close()
		fw.f = nil
	}
}

// mapFile maps a flat file read only; an empty file maps to nil.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, fmt.Errorf("%s is too large to map", path)
	}
	return syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmap(data []byte) {
	if data != nil {
		_ = syscall.Munmap(data)
	}
}

// fullDiskError is an error of the index library, which does not wrap
// the system error it met, taken for ENOSPC: the file system it wrote on
// was full when the error came back.
type fullDiskError struct{ err error }

func (e *fullDiskError) Error() string   { return e.err.Error() }
func (e *fullDiskError) Unwrap() []error { return []error{e.err, syscall.ENOSPC} }

// fullDiskRoom is the free space under which a file system counts as
// full. A write that runs out of room first takes what room there is (a
// short write, which os.File follows with another write that fails), so
// once the error comes back the room left is a few blocks at most.
const fullDiskRoom = 1 << 20

// indexFault returns err, marked as ENOSPC where the file system of dir
// is full (see fullDiskError).
func indexFault(dir string, err error) error {
	if err == nil || errors.Is(err, syscall.ENOSPC) {
		return err
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) == nil && int64(fs.Bavail)*fs.Bsize < fullDiskRoom {
		return &fullDiskError{err}
	}
	return err
}
