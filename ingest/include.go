package ingest

import (
	"errors"
	"fmt"

	"github.com/turnzerocloud/tzctx/ingest/sitefs"
	"github.com/turnzerocloud/tzctx/ingest/source"
)

// newExpander returns the expander of a tree's includes within the bounds
// of opts: each included file is bounded as a page file is and must be
// text a page could hold (checkText).
func newExpander(dir *sitefs.Folder, rules source.Includes, opts Options) *source.Expander {
	used := opts.included
	if used == nil {
		used = new(int64)
	}
	return &source.Expander{
		Dir:   dir,
		Rules: rules,
		Bounds: source.IncludeBounds{
			MaxDepth:        opts.MaxIncludeDepth,
			MaxFileBytes:    opts.MaxPageBytes,
			MaxPageBytes:    opts.MaxIncludeBytes,
			MaxVersionBytes: opts.MaxVersionIncludeBytes,
		},
		Check: func(data []byte) error {
			if e := checkText(data); e != nil {
				return errors.New(e.Problem)
			}
			return nil
		},
		Used: used,
	}
}

// sideExpander returns an expander like newExpander's whose counts and
// warnings are its own, starting from the version's count so far: a pass
// that reads the pages before ingest writes them (gatherLinks) sees the
// headings the served text will hold without counting the includes twice
// against the version's bound or warning twice.
func sideExpander(dir *sitefs.Folder, rules source.Includes, opts Options) *source.Expander {
	used := new(int64)
	if opts.included != nil {
		*used = *opts.included
	}
	opts.included = used
	return newExpander(dir, rules, opts)
}

// What ingest does with a Mintlify page's snippets (Options.MintlifySnippets,
// --mintlify-snippets): keep serves its imports and tags as written, as
// every version before the option did; expand serves the text Mintlify
// renders in their place. See
// contracts/choices/links.md#ch-mintlify-snippets.
const (
	MintlifySnippetsKeep   = "keep"
	MintlifySnippetsExpand = "expand"
)

// ErrMintlifySnippets is the fault of a --mintlify-snippets value other
// than keep or expand.
var ErrMintlifySnippets = errors.New("--mintlify-snippets takes keep or expand")

// CheckMintlifySnippets refuses a value of Options.MintlifySnippets other
// than "", keep and expand, naming the flag and its values.
func (o *Options) CheckMintlifySnippets() error {
	switch o.MintlifySnippets {
	case "", MintlifySnippetsKeep, MintlifySnippetsExpand:
		return nil
	}
	return fmt.Errorf("--mintlify-snippets %q: %w (keep, the default, serves a Mintlify page's snippet imports and tags as written; expand serves the snippets' text in their place)", o.MintlifySnippets, ErrMintlifySnippets)
}
