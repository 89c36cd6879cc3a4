package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestPageReadsDuringVersionSwitches: whole-page and whole-tree reads
// over HTTP, by GET and POST from several clients, while the served
// version switches back and forth under them, each answer the text of
// one version or the other, with that version's stamp. The
// answers borrow the stored text (no copy); the request holds the
// version until the answer is encoded, so a switch, which drops the
// store's reference and unmaps the old version once the last reader
// lets go, never leaves an answer reading an unmapped or reused file.
func TestPageReadsDuringVersionSwitches(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ingestSample(t, dataDir, "a")
	testkit.IngestInto(t, dataDir, "b", false, testkit.SiteTrees(t, changedSite(t))...)
	srv := startServer(t, dataDir, testConfig(5*time.Millisecond))
	reads := []map[string]any{
		{"page": "/cloud/reference/http/", "limit": 16000}, // 15,981 code points of a longer page
		{"tree": "cloud", "limit": 16000},
	}
	// The texts of each read under each version.
	want := map[string]string{} // a read's text to its stamp
	for _, v := range []string{"a", "b", "a"} {
		activate(t, dataDir, v)
		if !waitFor(10*time.Second, func() bool { _, n, _ := health(srv.base); return n == v }) {
			t.Fatalf("the server does not serve %s", v)
		}
		for _, r := range reads {
			a := mustRead(t, srv.base, r)
			want[a.Text] = a.Stamp
		}
	}
	if len(want) != 2*len(reads) {
		t.Fatalf("%d distinct texts, want %d", len(want), 2*len(reads))
	}
	const clients, each = 4, 150
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				r := reads[(c+i)%len(reads)]
				var a *answer
				if i%2 == 0 {
					code, got, raw, err := post(srv.base, "read_documentation", r)
					if err != nil || code != http.StatusOK {
						errs <- fmt.Errorf("POST %v: %d %v %.200s", r, code, err, raw)
						return
					}
					a = got
				} else {
					a = getRead(srv.base, r, errs)
					if a == nil {
						return
					}
				}
				if stamp, ok := want[a.Text]; !ok || stamp != a.Stamp {
					errs <- fmt.Errorf("read %v answered a text of no version (%d bytes, stamp %s)", r, len(a.Text), a.Stamp)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for i := 0; ; i++ {
		select {
		case <-done:
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if i < 4 {
				t.Logf("only %d switches happened during the reads", i)
			}
			return
		case <-time.After(10 * time.Millisecond):
			activate(t, dataDir, []string{"b", "a"}[i%2])
		}
	}
}

// getRead calls read_documentation by GET with r's members as parameters
// and decodes the answer; a failure goes to errs and gives nil.
func getRead(base string, r map[string]any, errs chan<- error) *answer {
	q := url.Values{}
	for k, v := range r {
		q.Set(k, fmt.Sprint(v))
	}
	resp, err := httpClient.Get(base + "/api/v1/actions/read_documentation?" + q.Encode())
	if err != nil {
		errs <- err
		return nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	var a answer
	if err == nil {
		err = json.Unmarshal(raw, &a)
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		errs <- fmt.Errorf("GET %v: %d %v %.200s", r, resp.StatusCode, err, raw)
		return nil
	}
	return &a
}
