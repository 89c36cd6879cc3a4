package actions

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
)

// fakeReader answers both reads, keeping the requests it was given.
type fakeReader struct {
	doc      []query.DocRequest
	ctx      []query.ContextRequest
	list     []query.ListRequest
	listable query.Listable
}

func (f *fakeReader) ReadDocumentation(_ context.Context, req query.DocRequest) (*query.Answer, string, error) {
	f.doc = append(f.doc, req)
	return &query.Answer{ID: "docs:cloud"}, "subject-doc", nil
}

func (f *fakeReader) ReadContext(_ context.Context, req query.ContextRequest, listable query.Listable) (*query.Answer, string, error) {
	f.ctx = append(f.ctx, req)
	f.listable = listable
	return &query.Answer{ID: req.ID}, "subject-ctx", nil
}

// RefusedContextSubject is a catalog-less reader's: the subject rule is
// the reader's, not the fake's.
func (f *fakeReader) RefusedContextSubject(args map[string]any, idMax int) string {
	return query.NewReader(query.Config{}, nil).RefusedContextSubject(args, idMax)
}

func (f *fakeReader) ListContext(_ context.Context, req query.ListRequest, listable query.Listable) (*query.ListAnswer, string, error) {
	f.list = append(f.list, req)
	f.listable = listable
	return &query.ListAnswer{}, query.SubjectCatalog, nil
}

type memRecorder []tzctx.Record

func (m *memRecorder) Record(_ context.Context, r tzctx.Record) { *m = append(*m, r) }

func contract(t *testing.T) *schemas.Contract {
	t.Helper()
	c, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// without returns a contract parsed from the embedded files, with edit
// applied to the decoded file named file.
func without(t *testing.T, file string, edit func(m map[string]any)) *schemas.Contract {
	t.Helper()
	m := fstest.MapFS{}
	for _, f := range []string{schemas.IndexFile, schemas.EnumerationFile, schemas.PayloadsFile} {
		raw, err := fs.ReadFile(schemas.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		if f == file {
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			edit(v)
			raw, _ = json.Marshal(v)
		}
		m[f] = &fstest.MapFile{Data: raw}
	}
	c, err := schemas.Parse(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dropEnumerated(name string) func(map[string]any) {
	return func(m map[string]any) {
		var kept []any
		for _, e := range m["actions"].([]any) {
			if e.(map[string]any)["name"] != name {
				kept = append(kept, e)
			}
		}
		m["actions"] = kept
	}
}

func dropShapes(name string) func(map[string]any) {
	return func(m map[string]any) { delete(m["actions"].(map[string]any), name) }
}

// TestRegistrationRefusesWhatTheContractLacks: the dispatcher refuses an
// action whose constructor names one that actions.json or
// action_payloads.json lacks, and says which file lacks it.
func TestRegistrationRefusesWhatTheContractLacks(t *testing.T) {
	r := &fakeReader{}
	lim := contract(t).Limits()
	handle := func(context.Context, map[string]any) (any, string, error) { return nil, "", nil }
	cases := []struct {
		name     string
		contract *schemas.Contract
		action   *dispatch.Action
		file     string
	}{
		{"a name no file knows", contract(t), define("read_contexts", handle, nil), schemas.EnumerationFile},
		{"read_context not enumerated", without(t, schemas.EnumerationFile, dropEnumerated("read_context")), ReadContext(nil, r, lim, nil), schemas.EnumerationFile},
		{"read_context without shapes", without(t, schemas.PayloadsFile, dropShapes("read_context")), ReadContext(nil, r, lim, nil), schemas.PayloadsFile},
		{"read_documentation not enumerated", without(t, schemas.EnumerationFile, dropEnumerated("read_documentation")), ReadDocumentation(nil, r), schemas.EnumerationFile},
		{"read_documentation without shapes", without(t, schemas.PayloadsFile, dropShapes("read_documentation")), ReadDocumentation(nil, r), schemas.PayloadsFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := dispatch.New(c.contract, nil, nil)
			err := d.Register(c.action)
			if !errors.Is(err, schemas.ErrUnknownAction) || !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), c.action.Name) {
				t.Errorf("Register = %v, want schemas.ErrUnknownAction naming %s and the action", err, c.file)
			}
			if d.Action(c.action.Name) != nil {
				t.Error("the refused action is registered")
			}
		})
	}
	// The same constructors register against the embedded contract.
	d := dispatch.New(contract(t), nil, nil)
	for _, a := range []*dispatch.Action{ListContext(nil, r, nil), ReadContext(nil, r, lim, nil), ReadDocumentation(nil, r)} {
		if err := d.Register(a); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
	}
}

// TestActionsCarryTheirContractDefinition: each constructor's value is
// its name's definition in the embedded contract, which front ends read.
func TestActionsCarryTheirContractDefinition(t *testing.T) {
	r := &fakeReader{}
	c := contract(t)
	for _, a := range []*dispatch.Action{ListContext(nil, r, nil), ReadContext(nil, r, c.Limits(), nil), ReadDocumentation(nil, r)} {
		want, err := c.Action(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Action, want) || a.Description == "" || a.Response == nil || !a.Annotations.ReadOnly {
			t.Errorf("%s carries %+v, want the contract's %+v", a.Name, a.Action, want)
		}
	}
}

// TestHandlersBindRequestsAndSubjects calls each action through a
// dispatcher and checks the request its reader receives and the subject
// of a call the schema refuses before the reader runs.
func TestHandlersBindRequestsAndSubjects(t *testing.T) {
	r := &fakeReader{}
	c := contract(t)
	rec := &memRecorder{}
	d := dispatch.New(c, nil, rec)
	for _, a := range []*dispatch.Action{ListContext(nil, r, d), ReadContext(nil, r, c.Limits(), d), ReadDocumentation(nil, r)} {
		if err := d.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := d.Call(ctx, "read_documentation", map[string]any{"tree": "cloud", "part": "full", "limit": json.Number("5")}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Call(ctx, "read_context", map[string]any{"id": "docs:cloud", "offset": json.Number("3"), "stamp": strings.Repeat("a", 64)}); err != nil {
		t.Fatal(err)
	}
	if len(r.doc) != 1 || *r.doc[0].Tree != "cloud" || *r.doc[0].Part != "full" || *r.doc[0].Limit != 5 || r.doc[0].Page != nil || r.doc[0].Query != nil || r.doc[0].Offset != nil {
		t.Errorf("read_documentation request = %+v", r.doc)
	}
	if len(r.ctx) != 1 || r.ctx[0].ID != "docs:cloud" || *r.ctx[0].Offset != 3 || *r.ctx[0].Stamp != strings.Repeat("a", 64) || r.ctx[0].Limit != nil {
		t.Errorf("read_context request = %+v", r.ctx)
	}
	long := strings.Repeat("x", c.Limits().IDMaxLength+1)
	for _, call := range []struct {
		action string
		args   map[string]any
	}{
		{"read_documentation", map[string]any{"tree": "cloud", "limit": json.Number("0")}},
		{"read_documentation", map[string]any{"tree": "cloud", "query": "secret words", "bogus": true}},
		{"read_context", map[string]any{"id": "docs:cloud", "limit": json.Number("0")}},
		{"read_context", map[string]any{"id": long}},
		// IDs that name no entry are the caller's text: a search ID
		// carrying words, and words alone.
		{"read_context", map[string]any{"id": "docs:cloud:search:zqxcanary secret project", "limit": json.Number("0")}},
		{"read_context", map[string]any{"id": "zqxcanary secret project", "limit": json.Number("0")}},
		{"read_context", map[string]any{"id": "docs:cloud:search:0123456789abcdef", "limit": json.Number("0")}},
	} {
		if _, err := d.Call(ctx, call.action, call.args); err == nil {
			t.Fatalf("%s %v was answered", call.action, call.args)
		}
	}
	var subjects []string
	for _, r := range *rec {
		subjects = append(subjects, r.Subject)
	}
	want := []string{"subject-doc", "subject-ctx", "docs:cloud", "docs:cloud:search", "docs:cloud", "", query.SubjectUnknownID, query.SubjectUnknownID, "docs:cloud:search"}
	if !reflect.DeepEqual(subjects, want) {
		t.Errorf("record subjects = %q, want %q", subjects, want)
	}
	if len(r.doc) != 1 || len(r.ctx) != 1 {
		t.Error("a refused call reached the reader")
	}
	// list_context binds offset and stamp, refuses a limit, and
	// records the catalog; the reader learns what the caller may list.
	*rec = nil
	if _, err := d.Call(ctx, "list_context", map[string]any{"offset": json.Number("2"), "stamp": strings.Repeat("b", 64)}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Call(ctx, "list_context", map[string]any{"limit": json.Number("2")}); tzctx.ErrorCode(err) != tzctx.InvalidRequest {
		t.Errorf("list_context with a limit = %v, want invalid_request", err)
	}
	if len(r.list) != 1 || *r.list[0].Offset != 2 || *r.list[0].Stamp != strings.Repeat("b", 64) {
		t.Errorf("list_context request = %+v", r.list)
	}
	if len(*rec) != 2 || (*rec)[0].Subject != "catalog" || (*rec)[1].Subject != "catalog" {
		t.Errorf("list_context records = %+v, want the catalog twice", *rec)
	}
	for name, want := range map[string]bool{"list_context": true, "read_context": true, "read_documentation": true, "read_library_entry": false} {
		if got := r.listable(name); got != want {
			t.Errorf("listable(%s) = %v, want %v", name, got, want)
		}
	}
}
