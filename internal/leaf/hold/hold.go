// Package hold lets a front end keep what an answer borrows alive until
// the answer is written. A page read answers the page's text as it lies
// in the served version's memory-mapped file, without a copy, only where
// the request's context carries a Holder: the reader then gives its
// reference to the version to the holder instead of dropping it when the
// read returns, and the front end releases the holder once it has
// encoded the answer. A context without a holder gets copies, as every
// caller that keeps an answer (MCP, tests) does.
package hold

import "context"

// Releaser is a reference the holder drops: a site version's.
type Releaser interface{ Release() }

// Holder holds references for one request. One goroutine uses it: the
// request's, which reads and then writes the answer.
type Holder struct {
	first [2]Releaser
	more  []Releaser
	n     int
}

type key struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h *Holder) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// Keep gives r to the holder ctx carries and reports true, or reports
// false where ctx carries none: the caller then releases r itself when
// it is done with what it read.
func Keep(ctx context.Context, r Releaser) bool {
	h, _ := ctx.Value(key{}).(*Holder)
	if h == nil {
		return false
	}
	if h.n < len(h.first) {
		h.first[h.n] = r
	} else {
		h.more = append(h.more, r)
	}
	h.n++
	return true
}

// Release drops every reference the holder keeps, once what was read
// under them is written; the holder may then be used again.
func (h *Holder) Release() {
	for i := range min(h.n, len(h.first)) {
		h.first[i].Release()
		h.first[i] = nil
	}
	for i, r := range h.more {
		r.Release()
		h.more[i] = nil
	}
	h.more, h.n = h.more[:0], 0
}
