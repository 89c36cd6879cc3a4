package shed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
)

func TestLimiterBoundsAndWaits(t *testing.T) {
	l := shed.NewLimiter(2, 0, 0)
	r1, ok1 := l.Acquire(context.Background())
	_, ok2 := l.Acquire(context.Background())
	if !ok1 || !ok2 || l.InFlight() != 2 {
		t.Fatalf("two slots of two: ok %v %v, in flight %d", ok1, ok2, l.InFlight())
	}
	if _, ok := l.Acquire(context.Background()); ok {
		t.Fatal("a third call took a slot of a bound of 2")
	}
	r1()
	if _, ok := l.Acquire(context.Background()); !ok {
		t.Fatal("a released slot was not taken again")
	}

	// A waiting caller takes a slot released within its wait.
	w := shed.NewLimiter(1, 5*time.Second, 0)
	rel, _ := w.Acquire(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); rel() }()
	if _, ok := w.Acquire(context.Background()); !ok {
		t.Fatal("a caller waiting 5 s did not take a slot released after 20 ms")
	}
	// and gives up when its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := w.Acquire(ctx); ok {
		t.Fatal("a caller whose context ended took a slot that was never released")
	}
	short := shed.NewLimiter(1, 30*time.Millisecond, 0)
	short.Acquire(context.Background())
	start := time.Now()
	if _, ok := short.Acquire(context.Background()); ok {
		t.Fatal("took a slot never released")
	}
	if waited := time.Since(start); waited < 25*time.Millisecond {
		t.Errorf("a shed caller waited %v, want its wait of 30 ms first", waited)
	}

	var none *shed.Limiter
	if _, ok := none.Acquire(context.Background()); !ok || none.Max() != 0 {
		t.Fatal("a nil limiter bounds calls")
	}
}

func TestBucketsRefillAndKeyApart(t *testing.T) {
	b := shed.NewBuckets(2, 3, 0)
	now := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := b.Allow("a", now); !ok {
			t.Fatalf("call %d of a burst of 3 refused", i+1)
		}
	}
	ok, retry := b.Allow("a", now)
	if ok || retry != 500*time.Millisecond {
		t.Fatalf("the 4th call at once: ok %v retry %v, want refused with 500ms (2 a second)", ok, retry)
	}
	if ok, _ := b.Allow("b", now); !ok {
		t.Fatal("another key was limited by a's calls")
	}
	if ok, _ := b.Allow("a", now.Add(500*time.Millisecond)); !ok {
		t.Fatal("a token that refilled after 500 ms was refused")
	}
	if ok, _ := b.Allow("a", now.Add(500*time.Millisecond)); ok {
		t.Fatal("a second call took a token that had not refilled")
	}
}

func TestBucketsAreBounded(t *testing.T) {
	b := shed.NewBuckets(1, 1, 100)
	now := time.Unix(1000, 0)
	for i := 0; i < 10000; i++ {
		b.Allow(fmt.Sprint("key", i), now)
	}
	if b.Len() != 100 {
		t.Fatalf("%d buckets kept, want the bound of 100", b.Len())
	}
	// No spent bucket is forgotten to make room: key0's is kept, still
	// spent, so churning keys cannot reset its limit.
	if ok, _ := b.Allow("key0", now); ok {
		t.Fatal("the spent bucket of key0 was evicted by new keys")
	}
	// The keys beyond the bound shared one overflow bucket, which key100
	// spent.
	if ok, _ := b.Allow("key5000", now); ok {
		t.Fatal("a key beyond the bound got a bucket of its own while every kept one was spent")
	}
	// Once the least recent bucket is full again, a new key takes its
	// place with a bucket of its own.
	later := now.Add(2 * time.Second)
	if ok, _ := b.Allow("fresh", later); !ok {
		t.Fatal("a new key was refused once the least recent bucket had refilled")
	}
	if ok, _ := b.Allow("fresh", later); ok {
		t.Fatal("the new key's own bucket of burst 1 gave two calls")
	}
	if b.Len() != 100 {
		t.Fatalf("%d buckets kept, want the bound of 100", b.Len())
	}
}

// TestBucketsEvictRefilledOnes: with the bound full and its least
// recently used bucket still spent, 2,700 keys never seen before, 900 a
// second, each get a bucket of their own by taking the place of buckets
// that have refilled, whichever was used last; the spent bucket is kept,
// still short of full. With the default bound, 5,000 addresses that
// spent their buckets leave a new address its own.
func TestBucketsEvictRefilledOnes(t *testing.T) {
	b := shed.NewBuckets(1, 10, 1000)
	now := time.Unix(1000, 0)
	for range 10 {
		b.Allow("address:spent", now)
	}
	for i := range 999 {
		b.Allow(fmt.Sprint("address:once-", i), now)
	}
	// Each second, the buckets used once a second before are full again;
	// the spent one, least recently used, needs 10 s.
	refused := 0
	for round := range 3 {
		at := now.Add(time.Duration(round+1) * time.Second)
		for i := range 900 {
			if ok, _ := b.Allow(fmt.Sprintf("address:new-%d-%d", round, i), at); !ok {
				refused++
			}
		}
	}
	if refused != 0 {
		t.Errorf("%d of 2700 new addresses refused on their first call while kept buckets had refilled", refused)
	}
	// Three seconds on, the spent bucket holds 3 tokens, not a fresh 10.
	end := now.Add(3 * time.Second)
	allowed := 0
	for range 10 {
		if ok, _ := b.Allow("address:spent", end); ok {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("the spent bucket gave %d calls 3 s on, want 3: it was evicted and its caller got a fresh burst", allowed)
	}
	if b.Len() != 1000 {
		t.Errorf("%d buckets kept, want the bound of 1000", b.Len())
	}

	d := shed.NewBuckets(1, 10, 0)
	for i := range 5000 {
		for range 10 {
			d.Allow(fmt.Sprint("address:a-", i), now)
		}
	}
	if ok, _ := d.Allow("address:a-0", now); ok {
		t.Error("a spent bucket of the default bound gave a call")
	}
	for i := range 100 {
		if ok, _ := d.Allow(fmt.Sprint("address:b-", i), now); !ok {
			t.Fatalf("new address %d refused beside 5,000 spent ones under the default bound", i)
		}
	}
}

// fakeRefuser keeps what Refuse records.
type fakeRefuser struct {
	mu   sync.Mutex
	recs []refusal
}

type refusal struct {
	name   string
	code   tzctx.Code
	status int
}

func (f *fakeRefuser) Refuse(ctx context.Context, name string, err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	// The transport is read back through a real dispatcher's record
	// elsewhere; here the context's is enough.
	f.recs = append(f.recs, refusal{name: name, code: tzctx.ErrorCode(err), status: tzctx.StatusOf(err)})
	return err
}

type counts struct {
	mu            sync.Mutex
	shed, limited map[string]int
}

func (c *counts) Shed(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shed[s]++
}

func (c *counts) RateLimited(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limited[s]++
}

func envelope(t *testing.T, body []byte) (code, detail string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Detail string } `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("the refusal is not the contract envelope: %v: %s", err, body)
	}
	return e.Error.Code, e.Error.Detail
}

func TestGuardShedsWith503(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 4)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			return
		}
		entered <- struct{}{}
		<-hold
		_, _ = io.WriteString(w, "ok")
	})
	ref, obs := &fakeRefuser{}, &counts{shed: map[string]int{}, limited: map[string]int{}}
	g := &shed.Guard{Limiter: shed.NewLimiter(1, 0, 0), Refuser: ref, Observer: obs}
	h := g.Wrap(shed.Surface{
		Transport: tzctx.TransportHTTP,
		Applies:   func(r *http.Request) bool { return r.URL.Path != "/healthz" },
		Action:    func(r *http.Request) string { return strings.TrimPrefix(r.URL.Path, "/api/v1/actions/") },
	}, next)
	srv := httptest.NewServer(h)
	defer srv.Close()

	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/api/v1/actions/list_context", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-entered
	resp, err := http.Post(srv.URL+"/api/v1/actions/read_documentation", "application/json", strings.NewReader(`{"query":"secret words"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("a call beyond the bound: %d Retry-After %q, want 503 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	code, detail := envelope(t, body)
	if code != "context_unavailable" || strings.Contains(detail, "secret") {
		t.Fatalf("refusal %s %q", code, detail)
	}
	// A path the surface does not guard passes while the bound is full.
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/healthz while the bound is full: %d", resp.StatusCode)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(ref.recs) != 1 || ref.recs[0] != (refusal{name: "read_documentation", code: tzctx.ContextUnavailable, status: 503}) {
		t.Fatalf("records %+v, want one context_unavailable 503 of read_documentation", ref.recs)
	}
	if obs.shed[tzctx.TransportHTTP] != 1 || len(obs.limited) != 0 {
		t.Fatalf("counts %+v %+v", obs.shed, obs.limited)
	}
}

func TestGuardRateLimitsPerCredential(t *testing.T) {
	ref, obs := &fakeRefuser{}, &counts{shed: map[string]int{}, limited: map[string]int{}}
	g := &shed.Guard{Buckets: shed.NewBuckets(0.5, 2, 0), Refuser: ref, Observer: obs}
	h := g.Wrap(shed.Surface{Transport: tzctx.TransportMCPHTTP}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	call := func(token string) *http.Response {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader("{}"))
		r.RemoteAddr = "192.0.2.1:1234"
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	for i := 0; i < 2; i++ {
		if s := call("alpha").StatusCode; s != 200 {
			t.Fatalf("call %d of a burst of 2: %d", i+1, s)
		}
	}
	resp := call("alpha")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("beyond the burst: %d Retry-After %q, want 429 and 2 (0.5 a second)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	code, detail := envelope(t, body)
	if code != "rate_limited" || strings.Contains(detail, "alpha") || strings.Contains(detail, tzctx.CredentialPrefix("alpha")) {
		t.Fatalf("refusal %s %q", code, detail)
	}
	t.Logf("detail: %s", detail)
	if s := call("beta").StatusCode; s != 200 {
		t.Fatalf("another credential was limited: %d", s)
	}
	// Anonymous callers of one address share its bucket, apart from
	// the credentials'.
	call("")
	call("")
	if s := call("").StatusCode; s != 429 {
		t.Fatalf("a third anonymous call of one address: %d, want 429", s)
	}
	if len(ref.recs) != 2 || ref.recs[0].code != tzctx.RateLimited || ref.recs[0].status != 429 {
		t.Fatalf("records %+v", ref.recs)
	}
	if obs.limited[tzctx.TransportMCPHTTP] != 2 {
		t.Fatalf("rate-limited counts %+v, want 2 on mcp-http", obs.limited)
	}
}

// A caller sending its body slowly holds no slot: the guard reads the
// body before it takes one.
func TestGuardReadsTheBodyBeforeTakingASlot(t *testing.T) {
	g := &shed.Guard{Limiter: shed.NewLimiter(1, 0, 0)}
	var got []string
	var mu sync.Mutex
	h := g.Wrap(shed.Surface{Transport: tzctx.TransportHTTP}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
		if err != nil {
			w.WriteHeader(400)
		}
	}))
	pr, pw := io.Pipe()
	slowDone := make(chan int, 1)
	go func() {
		r := httptest.NewRequest("POST", "/x", pr)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		slowDone <- w.Code
	}()
	_, _ = pw.Write([]byte(`{"a":`))
	// The slow body is half-sent: another call still takes the slot.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/x", strings.NewReader(`{"b":1}`)))
	if w.Code != 200 {
		t.Fatalf("a call while another's body is half-sent: %d, want 200", w.Code)
	}
	_, _ = pw.Write([]byte(`1}`))
	pw.Close()
	if c := <-slowDone; c != 200 {
		t.Fatalf("the slow call: %d", c)
	}
	// A body that fails reaches the handler with its error.
	pr2, pw2 := io.Pipe()
	go func() { _, _ = pw2.Write([]byte("part")); pw2.CloseWithError(errors.New("client went away")) }()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/x", pr2))
	if w.Code != 400 {
		t.Fatalf("a failed body read reached the handler as %d, want its error (400)", w.Code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != `{"b":1}` || got[1] != `{"a":1}` || got[2] != "part" {
		t.Fatalf("bodies the handler read: %q", got)
	}
}

// A body over the bound is passed on whole for the front end to refuse.
func TestGuardPassesAnOverlongBodyOn(t *testing.T) {
	g := &shed.Guard{Limiter: shed.NewLimiter(1, 0, 0), BodyLimit: 8}
	var n int
	h := g.Wrap(shed.Surface{Transport: tzctx.TransportHTTP}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n = len(b)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/x", strings.NewReader(strings.Repeat("x", 100))))
	if n != 100 {
		t.Fatalf("the handler read %d bytes of a 100-byte body", n)
	}
}

// knownOnly resolves the credential "alpha" alone, counting its calls.
type knownOnly struct{ calls int }

func (k *knownOnly) Resolve(_ context.Context, bearer string) (tzctx.Identity, error) {
	k.calls++
	if bearer == "alpha" {
		return tzctx.Identity{Account: "acme"}, nil
	}
	return tzctx.Identity{}, tzctx.Errorf(tzctx.Unauthenticated, "unknown credential")
}

// resolving authenticates with a resolver, as the dispatcher the server
// wires into the guard does: the credential the context carries, once.
type resolving struct{ r tzctx.Resolver }

func (a resolving) Authenticate(ctx context.Context) (context.Context, error) {
	_, err := a.r.Resolve(ctx, tzctx.BearerFrom(ctx))
	return ctx, err
}

// TestGuardGivesMadeUpCredentialsNoBucket: a credential that does not
// resolve gets no bucket of its own: made-up credentials, a new one per
// request, share their address's bucket, so a flood of them is limited;
// a known credential keeps its own.
func TestGuardGivesMadeUpCredentialsNoBucket(t *testing.T) {
	auth := &knownOnly{}
	g := &shed.Guard{Buckets: shed.NewBuckets(0.5, 2, 0), Anonymous: shed.Unlimited, Authenticator: resolving{auth}}
	h := g.Wrap(shed.Surface{Transport: tzctx.TransportHTTP}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	call := func(token string) int {
		r := httptest.NewRequest("POST", "/api/v1/actions/list_context", strings.NewReader("{}"))
		r.RemoteAddr = "192.0.2.7:1234"
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := 0; i < 2; i++ {
		if s := call(fmt.Sprint("made-up-", i)); s != 200 {
			t.Fatalf("made-up credential %d of the address's burst of 2: %d", i, s)
		}
	}
	if s := call("made-up-2"); s != 429 {
		t.Fatalf("a third made-up credential from one address: %d, want 429 (no fresh bucket per credential)", s)
	}
	for i := 0; i < 2; i++ {
		if s := call("alpha"); s != 200 {
			t.Fatalf("the known credential's call %d: %d, want its own bucket", i, s)
		}
	}
	if auth.calls != 5 {
		t.Fatalf("%d resolutions, want one per request", auth.calls)
	}
}

// TestGuardBoundsTheBytesReadAhead: the bodies read ahead of a slot are
// bounded in all, so connections sending bodies slowly cannot hold
// memory without bound: a request whose body would pass the budget is
// shed 503 with Retry-After, and the budget is given back as calls end.
func TestGuardBoundsTheBytesReadAhead(t *testing.T) {
	g := &shed.Guard{Limiter: shed.NewLimiter(10, 0, 0), BodyLimit: 1000, BufferBudget: 1500}
	h := g.Wrap(shed.Surface{Transport: tzctx.TransportHTTP}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
	}))
	// A slow sender holds 1000 bytes of the budget while it sends.
	pr, pw := io.Pipe()
	slow := httptest.NewRequest("POST", "/api/v1/actions/read_documentation", pr)
	slow.ContentLength = 1000
	slowDone := make(chan struct{})
	go func() {
		defer close(slowDone)
		h.ServeHTTP(httptest.NewRecorder(), slow)
	}()
	_, _ = pw.Write([]byte("{"))
	send := func() *http.Response {
		r := httptest.NewRequest("POST", "/api/v1/actions/read_documentation", strings.NewReader(`{"tree":"cloud"}`+strings.Repeat(" ", 984)))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	var resp *http.Response
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if resp = send(); resp.StatusCode == 503 {
			break
		}
	}
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a 1000-byte body while another 1000 of a budget of 1500 are held: %d, want 503 with Retry-After", resp.StatusCode)
	}
	_, _ = pw.Write([]byte(strings.Repeat(" ", 999)))
	pw.Close()
	<-slowDone
	if s := send().StatusCode; s != 200 {
		t.Fatalf("once the slow body was read and its call ended: %d, want 200", s)
	}
}

// TestGuardLogsItsRefusals: a surface whose access log sits inside the
// guard gets a log line of each refusal, its path bounded as every
// access log bounds one.
func TestGuardLogsItsRefusals(t *testing.T) {
	var logs bytes.Buffer
	g := &shed.Guard{Limiter: shed.NewLimiter(1, 0, 0)}
	release, _ := g.Limiter.Acquire(context.Background())
	defer release()
	s := shed.Surface{Transport: tzctx.TransportHTTP, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	h := g.Wrap(s, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/actions/what%20the%20caller%20said", strings.NewReader("{}")))
	if w.Code != 503 {
		t.Fatalf("beyond the bound: %d, want 503", w.Code)
	}
	line := logs.String()
	if !strings.Contains(line, "status=503") || !strings.Contains(line, "method=POST") || strings.Contains(line, "caller") {
		t.Fatalf("log of the refusal: %q, want method, bounded path and status 503", line)
	}
}
