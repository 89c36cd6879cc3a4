package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/api"
)

// TestAnswerCacheKeepsAnswersByteForByte: page and tree reads, whole and
// in chunks, by GET and POST, answered by servers that keep the JSON
// forms of texts (a bound that holds them all, and one so small that
// entries are dropped all the time) are byte for byte those of a server
// that keeps none, on a first read and on the reads that take the kept
// form.
func TestAnswerCacheKeepsAnswersByteForByte(t *testing.T) {
	t.Parallel()
	plain := newHardServer(t, api.Options{})
	cached := map[string]*hardServer{
		"32 MiB": newHardServer(t, api.Options{AnswerCacheBytes: 32 << 20}),
		"10 KB":  newHardServer(t, api.Options{AnswerCacheBytes: 10_000}),
	}
	get := func(base string, q url.Values) []byte {
		t.Helper()
		resp, err := http.Get(base + "/api/v1/actions/read_documentation?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	post := func(base string, q url.Values) []byte {
		t.Helper()
		body := map[string]any{}
		for k := range q {
			if n, err := strconv.Atoi(q.Get(k)); err == nil {
				body[k] = n
			} else {
				body[k] = q.Get(k)
			}
		}
		raw, _ := json.Marshal(body)
		resp, err := http.Post(base+"/api/v1/actions/read_documentation", "application/json", strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// The requests: the cloud tree's index, its full text in chunks, and
	// its pages, some in two chunks.
	reqs := []url.Values{{"tree": {"cloud"}}, {"tree": {"cloud"}, "part": {"full"}, "limit": {"3000"}}}
	var first struct {
		Stamp string `json:"stamp"`
		Text  string `json:"text"`
	}
	if err := json.Unmarshal(get(plain.URL, url.Values{"tree": {"cloud"}, "limit": {"16000"}}), &first); err != nil {
		t.Fatal(err)
	}
	reqs = append(reqs, url.Values{"tree": {"cloud"}, "part": {"full"}, "limit": {"3000"}, "offset": {"3000"}, "stamp": {fullStamp(t, plain.URL)}})
	for _, m := range regexp.MustCompile(`\]\((/cloud/[^)\s]+)\)`).FindAllStringSubmatch(first.Text, 12) {
		reqs = append(reqs, url.Values{"page": {m[1]}, "limit": {"16000"}}, url.Values{"page": {m[1]}, "limit": {"1500"}})
	}
	if len(reqs) < 10 {
		t.Fatalf("only %d requests to compare", len(reqs))
	}
	for round := range 3 {
		for _, q := range reqs {
			for _, send := range []func(string, url.Values) []byte{get, post} {
				want := send(plain.URL, q)
				if !strings.Contains(string(want), `"text":"`) {
					t.Fatalf("%v: no text answered: %.300s", q, want)
				}
				for name, s := range cached {
					if got := send(s.URL, q); string(got) != string(want) {
						t.Errorf("round %d, %v, cache of %s: the answer differs:\n%.400s\nwant\n%.400s", round, q, name, got, want)
					}
				}
			}
		}
	}
}

// fullStamp is the stamp of the cloud tree's full text.
func fullStamp(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/actions/read_documentation?tree=cloud&part=full&limit=10")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Stamp string `json:"stamp"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a.Stamp == "" {
		t.Fatalf("full text's stamp: %v", err)
	}
	return a.Stamp
}
