package store

import (
	"context"
	"errors"
	"fmt"
)

// Entry is one stored version as tzctx versions lists it.
type Entry struct {
	// Meta is the version's metadata; only Name is set where the version's
	// metadata does not read (Unreadable).
	Meta
	// Active is set on the version the pointer names.
	Active bool
	// Damaged is set where the version fails verification or its
	// metadata does not read.
	Damaged bool
	// Bytes is the version's size on disk.
	Bytes int64
}

// Inventory lists every stored version, oldest first, then those whose
// metadata does not read, each verified as a server verifies a version
// before it serves it. Faults are the verification faults, in order, and a
// pointer that names no stored version.
func (s *Store) Inventory(ctx context.Context) (entries []Entry, faults []string, err error) {
	ms, err := s.List()
	if err != nil {
		return nil, nil, err
	}
	active, err := s.ActiveName()
	if err != nil {
		return nil, nil, err
	}
	listed := false
	for _, m := range ms {
		e := Entry{Meta: m, Active: m.Name == active, Bytes: s.Size(m.Name)}
		listed = listed || e.Active
		if err := s.Verify(ctx, m.Name); err != nil {
			if !errors.Is(err, ErrDamaged) {
				return nil, nil, err
			}
			e.Damaged = true
			faults = append(faults, err.Error())
		}
		entries = append(entries, e)
	}
	unreadable, err := s.Unreadable()
	if err != nil {
		return nil, nil, err
	}
	for _, name := range unreadable {
		e := Entry{Meta: Meta{Name: name}, Active: name == active, Damaged: true, Bytes: s.Size(name)}
		listed = listed || e.Active
		if _, err := s.Lookup(name); err != nil {
			faults = append(faults, err.Error())
		}
		entries = append(entries, e)
	}
	if active != "" && !listed {
		faults = append(faults, fmt.Sprintf("the pointer names version %q, which is not stored; no server serves it: run 'tzctx activate NAME'", active))
	}
	return entries, faults, nil
}
