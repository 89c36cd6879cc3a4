// Package stepctx gives tests a context that is cancelled at a counted
// check, so that a test can show a loop observes cancellation at its next
// step, by counting checks rather than timing the loop: after New(n), the
// first n calls of Err pass and the next one cancels the context and
// reports context.Canceled, as every later call does and as Done then
// says.
package stepctx

import (
	"context"
	"sync/atomic"
)

// Context is a context cancelled at its (n+1)th check.
type Context struct {
	context.Context
	cancel context.CancelFunc
	passes int64
	checks atomic.Int64
}

// New returns a context whose first n checks (calls of Err) pass.
func New(n int) *Context {
	ctx, cancel := context.WithCancel(context.Background())
	return &Context{Context: ctx, cancel: cancel, passes: int64(n)}
}

// Err counts the check and, from the (n+1)th on, cancels the context.
func (c *Context) Err() error {
	if c.checks.Add(1) > c.passes {
		c.cancel()
	}
	return c.Context.Err()
}

// Checks returns how many times Err was called.
func (c *Context) Checks() int { return int(c.checks.Load()) }
