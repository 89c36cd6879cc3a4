package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

type contextT = context.Context

func ingestTree(name, site string) ingest.TreeSource {
	return ingest.TreeSource{Name: name, Dir: filepath.Join(site, name)}
}

// storedText reads a whole text of the sample version from the store: the
// ground truth the HTTP answers are checked against.
func storedText(t *testing.T, tree, key string) string {
	t.Helper()
	v, err := sample.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	txt, err := v.Tree(tree).Text(key)
	if err != nil || txt == nil {
		t.Fatalf("no stored text %s %s: %v", tree, key, err)
	}
	return txt.Slice(0, txt.Total())
}

// recorders sends each record to several recorders.
type recorders []tzctx.Recorder

func (rs recorders) Record(ctx context.Context, r tzctx.Record) {
	for _, x := range rs {
		x.Record(ctx, r)
	}
}

func testkitSite(t *testing.T) string { return testkit.SampleSite(t) }

func ingestSite(t *testing.T, trees ...ingest.TreeSource) *store.Store {
	return testkit.Ingest(t, trees...)
}

// responseSchemas are the compiled response schemas of every action the
// contract enumerates, by name, compiled once from the embedded contract
// rather than from what the dispatcher carries.
var responseSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c, err := schemas.Load()
	if err != nil {
		return nil, err
	}
	out := map[string]*jsonschema.Schema{}
	for _, e := range c.Enumeration() {
		a, err := c.Action(e.Name)
		if err != nil {
			return nil, err
		}
		if out[e.Name], err = compile("urn:test:response:"+e.Name, a.Response); err != nil {
			return nil, fmt.Errorf("%s response schema: %w", e.Name, err)
		}
	}
	return out, nil
})

func compile(url string, doc map[string]any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// checkAnswer validates a successful answer of action, as the server
// wrote it, against the action's response schema.
func checkAnswer(action string, raw []byte) error {
	all, err := responseSchemas()
	if err != nil {
		return err
	}
	s := all[action]
	if s == nil {
		return fmt.Errorf("a successful answer of %q, which has no response schema", action)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("the answer does not fit the %s response schema: %w", action, err)
	}
	return nil
}
