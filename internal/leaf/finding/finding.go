// Package finding is the one form of what a check reports: tzctx check's
// lint of a documentation site and the contract-set checks of the catalog
// both give Findings, printed the same way.
package finding

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Finding is one thing a check reports: where (a file, a 1-based line or 0
// for the whole file), by which rule, and what is wrong and what to do.
type Finding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is FILE:LINE: RULE: MESSAGE, or FILE: RULE: MESSAGE without a
// line.
func (f Finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Rule, f.Message)
	}
	return fmt.Sprintf("%s: %s: %s", f.File, f.Rule, f.Message)
}

// Report is a check's results: errors fail it, warnings only when strict.
type Report struct {
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
}

// ErrFailed is in the chain of Write's error where the report holds an
// error, or, when strict, a warning.
var ErrFailed = errors.New("check failed")

// Write prints r to w, one finding a line and a count, or as one JSON
// object, and returns an error wrapping ErrFailed where r holds an error,
// or a warning when strict.
func (r Report) Write(w io.Writer, asJSON, strict bool) error {
	if asJSON {
		if r.Errors == nil {
			r.Errors = []Finding{}
		}
		if r.Warnings == nil {
			r.Warnings = []Finding{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		for _, f := range r.Errors {
			fmt.Fprintln(w, f)
		}
		for _, f := range r.Warnings {
			fmt.Fprintln(w, f)
		}
		fmt.Fprintf(w, "%d errors, %d warnings\n", len(r.Errors), len(r.Warnings))
	}
	if len(r.Errors) > 0 || strict && len(r.Warnings) > 0 {
		return fmt.Errorf("%w: %d errors, %d warnings", ErrFailed, len(r.Errors), len(r.Warnings))
	}
	return nil
}
