// Package jslit reads navigation written as JavaScript or TypeScript
// (Docusaurus's config and sidebars, VitePress's and Starlight's configs,
// Nextra's _meta modules) without running it: each module is scanned
// within bounds (Guard), stripped of its types by esbuild's Transform,
// parsed by tdewolff's parser, and only its literal values are evaluated
// (ParseModule, ReadModule). It is the one reader of JavaScript literals
// of the ingest, and Budget is the one node budget its readers count
// against.
package jslit

import (
	"context"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
)

// The defaults of Limits, the navigation readers' (a zero field of
// Limits takes its default).
const (
	DefaultMaxFileBytes = manifest.DefaultMaxFileBytes
	DefaultMaxNodes     = manifest.DefaultMaxNodes
	DefaultMaxDepth     = manifest.DefaultMaxDepth
	DefaultMaxModules   = 64
)

// Limits bound the reading of one navigation module and of the modules
// it imports.
type Limits struct {
	// MaxFileBytes bounds each module's bytes, and the bytes of a module
	// and every module it imports, together (--max-manifest-bytes).
	MaxFileBytes int64
	// MaxNodes bounds the values evaluated (--max-nav-nodes); the scan
	// before parsing allows MaxNodes×8+4,096 tokens.
	MaxNodes int
	// MaxDepth bounds the nesting of values (--max-nav-depth); the scan
	// before parsing allows MaxDepth×16 levels of syntax.
	MaxDepth int
	// MaxModules bounds the modules one read follows imports into, the
	// first module aside (--max-nav-modules).
	MaxModules int
}

// WithDefaults returns l with its zero fields filled.
func (l Limits) WithDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxModules <= 0 {
		l.MaxModules = DefaultMaxModules
	}
	return l
}

// Budget is a count of navigation work (values evaluated, sidebar items
// walked) against a bound, MaxNodes (--max-nav-nodes): the one node
// budget of every reader of navigation code. It checks its context each
// time the count passes a multiple of 1,024, so a long walk stops on
// cancellation.
type Budget struct {
	ctx  context.Context
	max  int
	used int
}

// NewBudget returns a budget of max units (DefaultMaxNodes where max is
// not positive) whose spending checks ctx.
func NewBudget(ctx context.Context, max int) *Budget {
	if max <= 0 {
		max = DefaultMaxNodes
	}
	return &Budget{ctx: ctx, max: max}
}

// Max returns the bound.
func (b *Budget) Max() int { return b.max }

// Used returns the units spent.
func (b *Budget) Used() int { return b.used }

// Spend spends n units. Past the bound it returns the error refuse
// makes of the bound, which names the file, the line and the flag; else
// the context's error where the count has just passed a multiple of
// 1,024; else nil.
func (b *Budget) Spend(n int, refuse func(max int) error) error {
	before := b.used
	b.used += n
	if b.used > b.max {
		return refuse(b.max)
	}
	if b.used/1024 != before/1024 {
		return b.ctx.Err()
	}
	return nil
}
