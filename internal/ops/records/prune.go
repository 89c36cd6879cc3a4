package records

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Segment names: <UTC creation time>-<pid>-<random>-<seq>.jsonl.
const (
	nameTime   = "20060102T150405Z"
	segmentExt = ".jsonl"
)

var segmentRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9]+-[0-9a-f]+-[0-9]+\.jsonl$`)

// isSegment reports whether a folder entry's name is a segment's: other
// files in the folder are neither read nor deleted.
func isSegment(name string) bool { return segmentRE.MatchString(name) }

// segment is one segment file as a listing saw it.
type segment struct {
	name string
	size int64
	mod  time.Time
}

// listSegments lists the segments of dir in name order; one that vanishes
// while it is listed is left out.
func listSegments(dir string) ([]segment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []segment
	for _, e := range ents {
		if !e.Type().IsRegular() || !isSegment(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, segment{name: e.Name(), size: fi.Size(), mod: fi.ModTime()})
	}
	return out, nil
}

// prune deletes, of the segments no writer holds, every one last
// modified more than opts.RetentionDays days before now, and then the
// least recently modified ones until the folder holds at most
// opts.MaxBytes of segments. Several processes may prune one folder at
// once.
func prune(dir string, opts Options, now time.Time) error {
	if opts.RetentionDays <= 0 && opts.MaxBytes <= 0 {
		return nil
	}
	segs, err := listSegments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // no record was written yet
	}
	if err != nil {
		return err
	}
	var errs []error
	if opts.RetentionDays > 0 {
		cutoff := now.Add(-time.Duration(opts.RetentionDays) * 24 * time.Hour)
		kept := segs[:0]
		for _, s := range segs {
			if s.mod.Before(cutoff) {
				gone, err := removeIdle(filepath.Join(dir, s.name))
				if err != nil {
					errs = append(errs, err)
				}
				if gone {
					continue
				}
			}
			kept = append(kept, s)
		}
		segs = kept
	}
	if opts.MaxBytes > 0 {
		var total int64
		for _, s := range segs {
			total += s.size
		}
		slices.SortFunc(segs, func(a, b segment) int {
			if c := a.mod.Compare(b.mod); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		for _, s := range segs {
			if total <= opts.MaxBytes {
				break
			}
			if s.size == 0 {
				continue // deleting it frees nothing
			}
			gone, err := removeIdle(filepath.Join(dir, s.name))
			if err != nil {
				errs = append(errs, err)
			}
			if gone {
				total -= s.size
			}
		}
	}
	return errors.Join(errs...)
}

// removeIdle deletes the segment at path where no writer holds it: it
// takes the segment's lock exclusively, without waiting, and deletes the
// file it locked. It reports whether the segment is gone, deleted here or
// by another pruner; a held segment is kept and is no fault.
func removeIdle(path string) (gone bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return true, nil // another pruner deleted it first
	case err != nil:
		return false, err
	case !os.SameFile(fi, pi):
		return false, nil // replaced; segment names are never reused
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return true, nil
}
