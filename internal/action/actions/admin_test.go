package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/internal/ops/records"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// fakeVersions is a store of metadata alone: Activate moves its pointer
// unless activateErr is set, and records each activation.
type fakeVersions struct {
	metas       []store.Meta
	unreadable  []string
	active      string
	serving     string
	activateErr map[string]error
	activated   []string
	onActivate  func()
}

var _ Versions = (*fakeVersions)(nil)

func (f *fakeVersions) List() ([]store.Meta, error)   { return f.metas, nil }
func (f *fakeVersions) Unreadable() ([]string, error) { return f.unreadable, nil }
func (f *fakeVersions) ActiveName() (string, error)   { return f.active, nil }
func (f *fakeVersions) Health() store.Health {
	return store.Health{Active: f.active, Serving: f.serving}
}
func (f *fakeVersions) Acquire() (*store.Version, error) {
	return nil, store.ErrNoVersion
}
func (f *fakeVersions) Activate(_ context.Context, name string) error {
	if err := f.activateErr[name]; err != nil {
		return err
	}
	f.activated = append(f.activated, name)
	f.active = name
	if f.onActivate != nil {
		f.onActivate()
	}
	return nil
}

func twoVersions() *fakeVersions {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return &fakeVersions{
		metas: []store.Meta{
			{Name: "a-1", Created: t0, Pages: 3, Trees: []store.TreeMeta{{Name: "cloud", Pages: 3, Bytes: 300}}},
			{Name: "b-2", Created: t0.Add(time.Hour), Pages: 4, Trees: []store.TreeMeta{{Name: "cloud", Pages: 4, Bytes: 400}}},
		},
		unreadable: []string{"x-9"},
		active:     "a-1",
		serving:    "a-1",
	}
}

// bearers resolves the test's bearer credentials.
type bearers map[string]tzctx.Identity

func (b bearers) Resolve(_ context.Context, bearer string) (tzctx.Identity, error) {
	if bearer == "" {
		return tzctx.Identity{}, nil
	}
	id, ok := b[bearer]
	if !ok {
		return tzctx.Identity{}, tzctx.Errorf(tzctx.Unauthenticated, "unknown credential")
	}
	return id, nil
}

var testBearers = bearers{
	"admin-token":  {Credential: "aaaaaaaaaaaa", Account: "ops", Admin: true},
	"reader-token": {Credential: "bbbbbbbbbbbb", Account: "acme", Profiles: []string{"blueprint"}},
}

// operatorDispatcher registers the operator actions over op, with the
// reading actions beside them, on a dispatcher of the embedded contract.
func operatorDispatcher(t *testing.T, op *Operator) (*dispatch.Dispatcher, *memRecorder) {
	t.Helper()
	rec := &memRecorder{}
	d := dispatch.New(contract(t), testBearers, rec)
	r := &fakeReader{}
	for _, a := range []*dispatch.Action{ListContext(nil, r, d), ReadContext(nil, r, contract(t).Limits(), d), ReadDocumentation(nil, r), AdminStatus(nil, op), AdminActivate(nil, op)} {
		if err := d.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return d, rec
}

func callAs(bearer string, console bool) context.Context {
	ctx := tzctx.WithTransport(context.Background(), tzctx.TransportHTTP)
	if bearer != "" {
		ctx = tzctx.WithCredential(ctx, bearer)
	}
	return dispatch.WithConsoleHeader(ctx, console)
}

// TestOperatorActionsAreTheOperatorFiles: both constructors carry the
// definitions of the operator file, of access admin, and the platform
// enumeration does not hold them.
func TestOperatorActionsAreTheOperatorFiles(t *testing.T) {
	c := contract(t)
	op := &Operator{Versions: twoVersions()}
	for _, a := range []*dispatch.Action{AdminStatus(nil, op), AdminActivate(nil, op)} {
		want, err := c.Action(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Action, want) || a.Access != schemas.AccessAdmin || a.Description == "" {
			t.Errorf("%s carries %+v, want the operator file's definition of access admin", a.Name, a.Action)
		}
		for _, e := range c.Enumeration() {
			if e.Name == a.Name {
				t.Errorf("the platform enumeration holds %s", a.Name)
			}
		}
	}
}

// TestOperatorActionsAdmitAdminsAlone: no credential is refused 401, a
// credential that is not admin 403, an admin's call without the console
// header 403; none reaches the store or changes the pointer, and each is
// recorded with its code, status and subject. An admin with the header
// is answered.
func TestOperatorActionsAdmitAdminsAlone(t *testing.T) {
	fv := twoVersions()
	d, rec := operatorDispatcher(t, &Operator{Versions: fv})
	activate := map[string]any{"version": "b-2"}
	cases := []struct {
		name    string
		ctx     context.Context
		status  int
		code    tzctx.Code
		detail  string
		account string
	}{
		{"anonymous", callAs("", true), 401, tzctx.Unauthenticated, "admin credential", ""},
		{"non-admin", callAs("reader-token", true), 403, tzctx.InvalidRequest, "this action needs an admin credential", "acme"},
		{"admin without the header", callAs("admin-token", false), 403, tzctx.InvalidRequest, "X-Tzctx-Console: 1", "ops"},
		{"admin without a header flag at all", tzctx.WithCredential(context.Background(), "admin-token"), 403, tzctx.InvalidRequest, "X-Tzctx-Console", "ops"},
	}
	for _, c := range cases {
		for _, call := range []struct {
			action  string
			args    map[string]any
			subject string
		}{{"admin_status", nil, "versions"}, {"admin_activate", activate, "version:b-2"}, {"admin_activate", map[string]any{"version": "../b-2", "bogus": true}, "version"}} {
			*rec = nil
			_, err := d.Call(c.ctx, call.action, call.args)
			var te *tzctx.Error
			if !errors.As(err, &te) || te.Code != c.code || tzctx.StatusOf(err) != c.status || !strings.Contains(te.Detail, c.detail) {
				t.Errorf("%s, %s: %v; want %s %d holding %q", c.name, call.action, err, c.code, c.status, c.detail)
			}
			if len(*rec) != 1 || (*rec)[0].Code != string(c.code) || (*rec)[0].Status != c.status || (*rec)[0].Subject != call.subject || (*rec)[0].Account != c.account || (*rec)[0].Action != call.action {
				t.Errorf("%s, %s: records %+v; want one %s %d, subject %s, account %q", c.name, call.action, *rec, c.code, c.status, call.subject, c.account)
			}
		}
	}
	if len(fv.activated) != 0 || fv.active != "a-1" {
		t.Fatalf("refused calls activated %v; the pointer names %s", fv.activated, fv.active)
	}
	// An unknown credential is refused before the admin check, as for any
	// action.
	if _, err := d.Call(callAs("who-knows", true), "admin_status", nil); tzctx.ErrorCode(err) != tzctx.Unauthenticated {
		t.Errorf("an unknown credential: %v, want unauthenticated", err)
	}
	admin := callAs("admin-token", true)
	res, err := d.Call(admin, "admin_activate", activate)
	if err != nil {
		t.Fatal(err)
	}
	got := res.(*Activation)
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	validateResponse(t, "admin_activate", raw)
	if got.Active != "b-2" || got.Previous == nil || *got.Previous != "a-1" || !reflect.DeepEqual(fv.activated, []string{"b-2"}) {
		t.Errorf("admin_activate b-2 as admin: %+v, activations %v", got, fv.activated)
	}
	// The same version again: answered, and nothing activated anew.
	if res, err := d.Call(admin, "admin_activate", activate); err != nil || res.(*Activation).Active != "b-2" || *res.(*Activation).Previous != "b-2" || len(fv.activated) != 1 {
		t.Errorf("admin_activate of the active version: %+v %v, activations %v", res, err, fv.activated)
	}
	// The refusal of an unknown action lists no admin action.
	if _, err := d.Call(admin, "no_such_action", nil); err == nil || strings.Contains(err.Error(), "admin_") || !strings.Contains(err.Error(), "read_documentation") {
		t.Errorf("an unknown action: %v; want the reading actions listed alone", err)
	}
}

// TestAdminActivateRefusesAndChangesNothing: a following server, an
// unknown version, one whose metadata does not read and one that fails
// verification are refused with their codes, the pointer unchanged; a
// version the server will not open puts the pointer back.
func TestAdminActivateRefusesAndChangesNothing(t *testing.T) {
	admin := callAs("admin-token", true)
	for _, c := range []struct {
		name    string
		op      func(*fakeVersions) *Operator
		version string
		code    tzctx.Code
		status  int
		detail  string
	}{
		{"following", func(f *fakeVersions) *Operator { return &Operator{Versions: f, Follow: "s3://b/p"} }, "b-2", tzctx.InvalidRequest, 400, "follows the versions published at s3://b/p"},
		{"unknown", func(f *fakeVersions) *Operator { return &Operator{Versions: f} }, "zz-1", tzctx.ContextNotFound, 404, `no version "zz-1"`},
		{"unreadable", func(f *fakeVersions) *Operator { return &Operator{Versions: f} }, "x-9", tzctx.ContextUnavailable, 503, `"x-9" is damaged`},
		{"fails verification", func(f *fakeVersions) *Operator {
			f.activateErr = map[string]error{"b-2": &store.DamagedError{Version: "b-2", File: "texts.bin", Problem: "has another checksum"}}
			return &Operator{Versions: f}
		}, "b-2", tzctx.ContextUnavailable, 503, `"b-2" is damaged`},
		{"not opened", func(f *fakeVersions) *Operator {
			return &Operator{Versions: f, Refresh: func(context.Context) error {
				if f.active == "b-2" {
					return errors.New("refused version \"b-2\": cannot open")
				}
				return nil
			}}
		}, "b-2", tzctx.ContextUnavailable, 503, `could not open version "b-2"`},
	} {
		fv := twoVersions()
		d, rec := operatorDispatcher(t, c.op(fv))
		_, err := d.Call(admin, "admin_activate", map[string]any{"version": c.version})
		var te *tzctx.Error
		if !errors.As(err, &te) || te.Code != c.code || tzctx.StatusOf(err) != c.status || !strings.Contains(te.Detail, c.detail) {
			t.Errorf("%s: %v; want %s %d holding %q", c.name, err, c.code, c.status, c.detail)
		}
		if fv.active != "a-1" {
			t.Errorf("%s: the pointer names %s, want a-1 as before", c.name, fv.active)
		}
		if len(*rec) != 1 || (*rec)[0].Code != string(c.code) || (*rec)[0].Subject != "version:"+c.version {
			t.Errorf("%s: records %+v", c.name, *rec)
		}
	}
}

// TestAdminActivateRollsBackForACallerGone: a version the server will
// not open puts the pointer back, and switches the server back, even when
// the caller's context ended meanwhile; the refresh runs on a context of
// its own, so it is not cut short either.
func TestAdminActivateRollsBackForACallerGone(t *testing.T) {
	fv := twoVersions()
	var refreshes []string
	op := &Operator{Versions: fv, Refresh: func(ctx context.Context) error {
		refreshes = append(refreshes, fv.active)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fv.active == "b-2" {
			return errors.New("cannot open")
		}
		return nil
	}}
	d, _ := operatorDispatcher(t, op)
	ctx, cancel := context.WithCancel(callAs("admin-token", true))
	fv.onActivate = cancel // the caller leaves once the pointer moved
	_, err := d.Call(ctx, "admin_activate", map[string]any{"version": "b-2"})
	if tzctx.ErrorCode(err) != tzctx.ContextUnavailable {
		t.Errorf("admin_activate of a version not opened, caller gone: %v; want context_unavailable", err)
	}
	if fv.active != "a-1" {
		t.Errorf("the pointer names %s, want a-1 restored", fv.active)
	}
	if strings.Join(refreshes, " ") != "b-2 a-1" {
		t.Errorf("refreshed on %v, want b-2 then a-1 (switched back)", refreshes)
	}

	// With no version active before, nothing can be restored: the
	// refusal says what is left.
	fv = twoVersions()
	fv.active = ""
	op.Versions = fv
	op.Refresh = func(context.Context) error { return errors.New("cannot open") }
	d, _ = operatorDispatcher(t, op)
	_, err = d.Call(callAs("admin-token", true), "admin_activate", map[string]any{"version": "b-2"})
	var te *tzctx.Error
	if !errors.As(err, &te) || !strings.Contains(te.Detail, "no version is served") || strings.Contains(te.Detail, "unchanged") {
		t.Errorf("with none active before: %v; want a detail saying no version is served, not that nothing changed", err)
	}
}

// TestAdminStatusAnswersVersionsAndRecords: the versions in the store's
// order with the damaged one last, the pointer and the served version,
// and the last records newest first in their stored form, or a note where
// the server keeps none.
func TestAdminStatusAnswersVersionsAndRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	w, err := records.Open(dir, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Minute)
	var want []string
	for i, s := range []string{"docs:cloud", "catalog", "docs:cloud:search", "versions"} {
		r := tzctx.Record{Time: t0.Add(time.Duration(i) * time.Second), Action: "read_documentation", Transport: "http", Subject: s, Code: "ok", Status: 200, Duration: 1500 * time.Microsecond}
		w.Record(context.Background(), r)
		b, err := records.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{string(b)}, want...)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fv := twoVersions()
	fv.serving = "b-2" // the pointer names a-1, not served yet
	d, _ := operatorDispatcher(t, &Operator{Versions: fv, Records: dir})
	admin := callAs("admin-token", true)
	res, err := d.Call(admin, "admin_status", map[string]any{"records": json.Number("3")})
	if err != nil {
		t.Fatal(err)
	}
	st := res.(*Status)
	if st.Active == nil || *st.Active != "a-1" || st.Served == nil || *st.Served != "b-2" || st.Fault != nil || st.ContractVersion != 1 {
		t.Errorf("status: active %v served %v fault %v", st.Active, st.Served, st.Fault)
	}
	var names []string
	for _, v := range st.Versions {
		names = append(names, v.Name)
	}
	if !reflect.DeepEqual(names, []string{"a-1", "b-2", "x-9"}) {
		t.Fatalf("versions %v, want a-1, b-2, then the damaged x-9", names)
	}
	a, b, x := st.Versions[0], st.Versions[1], st.Versions[2]
	if !a.Active || a.Served || b.Active || !b.Served || a.Damaged || !x.Damaged || x.Created != nil || *a.Created != "2026-11-30T12:00:00Z" {
		t.Errorf("versions %+v", st.Versions)
	}
	if len(b.Trees) != 1 || b.Trees[0].Tree != "cloud" || b.Trees[0].Pages != 4 || b.Trees[0].Bytes != 400 {
		t.Errorf("b-2 trees %+v", b.Trees)
	}
	var got []string
	for _, r := range st.Records {
		got = append(got, string(r))
	}
	if !reflect.DeepEqual(got, want[:3]) {
		t.Errorf("records\n%q\nwant the last three, newest first\n%q", got, want[:3])
	}
	// The answer validates against the operator file's response schema.
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	validateResponse(t, "admin_status", raw)
	if !strings.Contains(string(raw), `"code_points":null`) {
		t.Errorf("a tree of a version not opened has code points: %s", raw)
	}
	// The default is 50, and a range the schema refuses.
	if res, err := d.Call(admin, "admin_status", nil); err != nil || len(res.(*Status).Records) != 4 {
		t.Errorf("admin_status without records: %v", err)
	}
	for _, n := range []string{"0", "201"} {
		if _, err := d.Call(admin, "admin_status", map[string]any{"records": json.Number(n)}); tzctx.ErrorCode(err) != tzctx.InvalidRequest {
			t.Errorf("records %s: %v, want invalid_request", n, err)
		}
	}
	// No records kept here: none, and the note.
	d, _ = operatorDispatcher(t, &Operator{Versions: fv, RecordsNote: "they go to PostgreSQL"})
	res, err = d.Call(admin, "admin_status", nil)
	if err != nil || len(res.(*Status).Records) != 0 || res.(*Status).RecordsNote != "they go to PostgreSQL" {
		t.Errorf("admin_status without records kept: %+v %v", res, err)
	}
	// A records folder no call has made yet: no records, no note.
	d, _ = operatorDispatcher(t, &Operator{Versions: fv, Records: filepath.Join(t.TempDir(), "none")})
	if res, err := d.Call(admin, "admin_status", nil); err != nil || len(res.(*Status).Records) != 0 || res.(*Status).RecordsNote != "" {
		t.Errorf("admin_status before any record: %+v %v", res, err)
	}
}

// TestListableKeepsAdminActionsToAdmins: an action of access admin is
// listable to an admin caller alone, so no catalog entry or tool that
// names one reaches anyone else.
func TestListableKeepsAdminActionsToAdmins(t *testing.T) {
	d, _ := operatorDispatcher(t, &Operator{Versions: twoVersions()})
	for _, c := range []struct {
		id   tzctx.Identity
		want bool
	}{
		{tzctx.Identity{}, false},
		{testBearers["reader-token"], false},
		{testBearers["admin-token"], true},
	} {
		l := listable(tzctx.WithIdentity(context.Background(), c.id), d)
		if got := l("admin_status"); got != c.want {
			t.Errorf("admin_status listable to %+v = %v, want %v", c.id, got, c.want)
		}
		if !l("read_documentation") {
			t.Errorf("read_documentation is not listable to %+v", c.id)
		}
	}
}

// validateResponse checks an answer against its action's response schema
// in the operator file.
func validateResponse(t *testing.T, action string, raw []byte) {
	t.Helper()
	a, err := contract(t).Action(action)
	if err != nil {
		t.Fatal(err)
	}
	schemaRaw, err := json.Marshal(a.Response)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaRaw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:test:"+action, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:test:" + action)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s answer %s does not fit its response schema: %v", action, raw, err)
	}
}
