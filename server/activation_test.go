package server

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// sequence is one completed paging read, offset 0 to the end.
type sequence struct {
	started time.Time
	stamp   string // the stamp every chunk carried
	digest  string // SHA-256 of the reassembled text
	chunks  int
}

// loader reads one text over and over, a chunk at a time, following
// next_offset with the stamp, restarting at offset 0 without a stamp on
// context_changed.
type loader struct {
	name     string
	req      map[string]any
	seqs     []sequence
	restarts int
	errs     []string
}

// readSequence reads the text once from offset 0. It returns false where
// the read was refused with context_changed on a continuation.
func (l *loader) readSequence(base string) (sequence, bool, error) {
	s := sequence{started: time.Now()}
	var b strings.Builder
	off := 0
	for i := 0; i < 1000; i++ {
		body := map[string]any{}
		for k, v := range l.req {
			body[k] = v
		}
		if off > 0 {
			body["offset"], body["stamp"] = off, s.stamp
		}
		code, a, raw, err := post(base, "read_documentation", body)
		if err != nil {
			return s, false, err
		}
		if code == http.StatusConflict && off > 0 && a.Error != nil && a.Error.Code == "context_changed" {
			return s, false, nil
		}
		if code != http.StatusOK || a.Error != nil {
			return s, false, fmt.Errorf("offset %d: status %d: %.300s", off, code, raw)
		}
		if off == 0 {
			s.stamp = a.Stamp
		} else if a.Stamp != s.stamp {
			return s, false, fmt.Errorf("offset %d answered stamp %s, the read began with %s, and no context_changed", off, a.Stamp, s.stamp)
		}
		if a.Offset != off {
			return s, false, fmt.Errorf("asked offset %d, answered offset %d", off, a.Offset)
		}
		b.WriteString(a.Text)
		s.chunks++
		if a.NextOffset == nil {
			s.digest = sha256Hex(b.String())
			return s, true, nil
		}
		if *a.NextOffset <= off {
			return s, false, fmt.Errorf("next_offset %d does not advance past %d", *a.NextOffset, off)
		}
		off = *a.NextOffset
	}
	return s, false, fmt.Errorf("more than 1000 chunks")
}

// TestActivationUnderLoad: readers paging a page and an index while a new
// version is ingested and activated see A's text or B's text, whole, never
// a mix; a continuation across the switch is refused with context_changed;
// once the server serves B, every read is B's.
func TestActivationUnderLoad(t *testing.T) {
	t.Parallel()
	siteB := changedSite(t)
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "A")
	srv := startServer(t, dataDir, testConfig(50*time.Millisecond))

	pageReq := map[string]any{"page": "/cloud/reference/http/", "limit": 1500}
	indexReq := map[string]any{"tree": "cloud", "limit": 300}
	pageA, stampPageA := readWhole(t, srv.base, pageReq)
	indexA, stampIndexA := readWhole(t, srv.base, indexReq)
	for _, c := range []struct {
		what string
		req  map[string]any
	}{{"page", pageReq}, {"index", indexReq}} {
		if a := mustRead(t, srv.base, c.req); a.NextOffset == nil || *a.NextOffset*3 > a.Total {
			t.Fatalf("the %s read %v does not make several chunks (next %v of %d); lower its limit", c.what, c.req, a.NextOffset, a.Total)
		}
	}

	loaders := []*loader{
		{name: "page-1", req: pageReq}, {name: "page-2", req: pageReq},
		{name: "index-1", req: indexReq}, {name: "index-2", req: indexReq},
	}
	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		switchAt atomic.Pointer[time.Time]
		afterB   [4]atomic.Int64 // sequences each loader began after the switch was seen
		done     [4]atomic.Int64 // sequences each loader completed
	)
	deadline := time.Now().Add(20 * time.Second)
	for i, l := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 5000 && time.Now().Before(deadline); n++ {
				select {
				case <-stop:
					return
				default:
				}
				sw := switchAt.Load()
				s, ok, err := l.readSequence(srv.base)
				if err != nil {
					l.errs = append(l.errs, err.Error())
					if len(l.errs) > 20 {
						return
					}
					continue
				}
				if !ok {
					l.restarts++
					continue
				}
				l.seqs = append(l.seqs, s)
				done[i].Add(1)
				if sw != nil && s.started.After(*sw) {
					afterB[i].Add(1)
				}
			}
		}()
	}
	joined := false
	join := func() {
		if joined {
			return
		}
		joined = true
		close(stop)
		ch := make(chan struct{})
		go func() { wg.Wait(); close(ch) }()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("readers did not stop within 30 s")
		}
	}
	defer join()

	// Let every reader complete a few reads of A, then ingest and activate
	// B while they keep reading.
	if !waitFor(10*time.Second, func() bool {
		for i := range loaders {
			if done[i].Load() < 3 {
				return false
			}
		}
		return true
	}) {
		t.Fatal("the readers did not complete 3 reads each of A within 10 s")
	}
	testkit.IngestInto(t, dataDir, "B", true, testkit.SiteTrees(t, siteB)...)
	if n := activeName(t, dataDir); n != "B" {
		t.Fatalf("ingest of B: the active version is %q, want B", n)
	}
	if !waitFor(5*time.Second, func() bool { _, v, _ := health(srv.base); return v == "B" }) {
		t.Fatal("the server did not serve B within 5 s of its activation (watch interval 50 ms)")
	}
	now := time.Now()
	switchAt.Store(&now)
	if !waitFor(10*time.Second, func() bool {
		for i := range loaders {
			if afterB[i].Load() < 3 {
				return false
			}
		}
		return true
	}) {
		t.Error("the readers did not complete 3 reads each after the switch within 10 s")
	}
	join()

	pageB, stampPageB := readWhole(t, srv.base, pageReq)
	indexB, stampIndexB := readWhole(t, srv.base, indexReq)
	if pageB != strings.ReplaceAll(pageA, "the", "THE") {
		t.Error("B's page is not A's with \"the\" upper-cased")
	}
	if indexB == indexA || !strings.Contains(indexB, "[HTTP reference, version B]") {
		t.Error("B's index does not carry the changed title")
	}
	texts := map[string]map[string]string{
		"page":  {sha256Hex(pageA): "A", sha256Hex(pageB): "B"},
		"index": {sha256Hex(indexA): "A", sha256Hex(indexB): "B"},
	}
	stamps := map[string]map[string]string{
		"page":  {stampPageA: "A", stampPageB: "B"},
		"index": {stampIndexA: "A", stampIndexB: "B"},
	}

	sw := *switchAt.Load()
	for _, l := range loaders {
		kind := strings.Split(l.name, "-")[0]
		for _, e := range l.errs {
			t.Errorf("%s: read failed: %s", l.name, e)
		}
		var nA, nB int
		seenB := false
		for j, s := range l.seqs {
			v, ok := texts[kind][s.digest]
			if !ok {
				t.Errorf("%s: read %d (%d chunks) reassembled a text that is neither A's nor B's", l.name, j, s.chunks)
				continue
			}
			if stamps[kind][s.stamp] != v {
				t.Errorf("%s: read %d reassembled %s's text under stamp %s", l.name, j, v, s.stamp)
			}
			switch v {
			case "A":
				nA++
				if seenB {
					t.Errorf("%s: read %d answered A after an earlier read answered B", l.name, j)
				}
				if s.started.After(sw) {
					t.Errorf("%s: read %d began %v after the server was seen serving B, and answered A", l.name, j, s.started.Sub(sw))
				}
			case "B":
				nB++
				seenB = true
			}
		}
		t.Logf("%s: %d reads of A, %d of B, %d restarts on context_changed", l.name, nA, nB, l.restarts)
		if nA == 0 || nB == 0 {
			t.Errorf("%s: %d reads of A, %d of B; want both", l.name, nA, nB)
		}
	}
	if err := srv.stop(t); err != nil {
		t.Errorf("serve returned %v", err)
	}
}
