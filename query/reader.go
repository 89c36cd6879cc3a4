package query

import (
	"errors"
	"sync"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/store"
)

// Versions hands out the served version; *store.Store is one.
type Versions interface {
	Acquire() (*store.Version, error)
}

var _ Versions = (*store.Store)(nil)

// Reader answers documentation reads from the served version.
type Reader struct {
	cfg      Config
	versions Versions
	// scanned holds, per contract-set entry ID, its stamp and plain place
	// table, computed on its first read: the texts are fixed for the
	// process's life, and the keys are the catalog's own IDs.
	scanned sync.Map // string -> *scannedText
}

// NewReader returns a Reader over versions.
func NewReader(cfg Config, versions Versions) *Reader {
	if cfg.Access == nil {
		cfg.Access = DefaultAccess()
	}
	return &Reader{cfg: cfg, versions: versions}
}

// Config returns the reader's configuration.
func (r *Reader) Config() Config { return r.cfg }

// acquire returns the served version, or context_unavailable.
func (r *Reader) acquire() (*store.Version, error) {
	v, err := r.versions.Acquire()
	if errors.Is(err, store.ErrNoVersion) {
		return nil, tzctx.Errorf(tzctx.ContextUnavailable, "no site version is served yet; an operator ingests and activates one")
	}
	return v, err
}

// treeText loads one stored text, or context_unavailable.
func treeText(v *store.Version, tree, key, what string) (*store.Tree, *store.Text, error) {
	t := v.Tree(tree)
	if t == nil {
		return nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version has no %s tree", tree)
	}
	txt, err := t.Text(key)
	if err != nil {
		return nil, nil, err
	}
	if txt == nil {
		return nil, nil, tzctx.Errorf(tzctx.ContextUnavailable, "the served site version lacks the %s of the %s tree", what, tree)
	}
	return t, txt, nil
}

// partWhat names a tree's part for an error detail.
func partWhat(part string) string {
	switch part {
	case PartFull:
		return "whole text"
	case PartOutline:
		return "outline"
	}
	return "index"
}
