package query

import (
	"context"
	"strings"
	"testing"
)

// renamedVersion is the served version under another name: what a reader
// sees once an operator activates another version.
type renamedVersion struct {
	Version
	name string
}

func (v renamedVersion) Name() string { return v.name }

// switchingVersions serves the sample store's version under the name in
// *name.
type switchingVersions struct {
	base Versions
	name *string
}

func (s switchingVersions) Acquire() (Version, error) {
	v, err := s.base.Acquire()
	if err != nil || *s.name == "" {
		return v, err
	}
	return renamedVersion{v, *s.name}, nil
}

// TestEntrySizesOfTheListedVersion: a catalog page's sizes are its
// documentation entries' sizes in the version it was listed from; once
// another version is served, they are unknown (-1), never another text's.
func TestEntrySizesOfTheListedVersion(t *testing.T) {
	t.Parallel()
	name := ""
	r := NewReader(Config{Limits: testLimits(), Origin: "https://turnzero.ai", Access: map[string]Access{}}, switchingVersions{FromStore(sampleStore), &name})
	a, _, err := r.ListContext(context.Background(), ListRequest{}, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for i, s := range a.EntrySizes() {
		if strings.HasPrefix(a.Entries[i].ID, "docs:") {
			docs++
			if s <= 0 {
				t.Errorf("%s: size %d in the version listed; want its text's bytes", a.Entries[i].ID, s)
			}
		}
	}
	if docs == 0 {
		t.Fatal("the catalog's first page holds no documentation entry")
	}
	name = "another-version"
	for i, s := range a.EntrySizes() {
		if strings.HasPrefix(a.Entries[i].ID, "docs:") && s != -1 {
			t.Errorf("%s: size %d after another version is served; want -1 (unknown)", a.Entries[i].ID, s)
		}
	}
}
