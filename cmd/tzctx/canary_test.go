package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// canary is a word no answer, log line, record, metric or file may hold
// after the calls that carried it.
const canary = "quillfeatherzebracanary"

// canaryID is a read_context ID in the form of a search ID whose digits
// are the caller's words: it names no catalog entry.
const canaryID = "docs:cloud:search:" + canary + " secret project"

// TestCanaryWordGoesNowhere: queries carrying a unique word go through
// HTTP POST, HTTP GET, MCP over streamable HTTP and MCP over stdio, as an
// anonymous caller and a signed-in one, both answered and refused (a
// schema violation, a query over the length bound, an unknown member
// holding the word, an unknown credential, an oversized body), and so do
// read_context IDs carrying it that name no catalog entry (a tool call
// and a resource read over MCP). Afterwards the word appears in
// none of the records, the logs both processes wrote, /metrics, any
// file of the data directory or, where PostgreSQL is installed, any row
// of the records database.
func TestCanaryWordGoesNowhere(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "canary", "--activate")
	cfg := filepath.Join(t.TempDir(), "tzctx.json")
	// Where PostgreSQL is installed, the records go to a database too,
	// which must not hold the word either.
	var pg *testkit.Postgres
	pgConf := ""
	if testkit.HavePostgres() {
		pg = testkit.StartPostgres(t)
		pgConf = `, "records": {"postgres_url": "` + pg.URL + `"}`
	} else {
		t.Log("no PostgreSQL binaries: the PostgreSQL records sink is not covered here")
	}
	conf := `{"watch_interval": "50ms", "body_limit_bytes": 4096, "credentials": [{"token_sha256": "` + identity.SHA256("tok-c") +
		`", "account": "acme", "application": "canary", "profiles": ["blueprint"]}]` + pgConf + `}`
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, base := startServeProc(t, bin, dataDir, cfg, nil)
	long := canary + " " + strings.Repeat("q", 170)
	calls := 0
	answered := func(what string, status, want int) {
		t.Helper()
		calls++
		if status != want {
			t.Errorf("%s: status %d, want %d", what, status, want)
		}
	}
	for _, auth := range [][]string{nil, {"Authorization", "Bearer tok-c"}} {
		// HTTP POST: answered, a schema violation, over the bound, an
		// unknown member.
		for _, c := range []struct {
			body map[string]any
			want int
		}{
			{map[string]any{"query": canary + " stamp"}, 200},
			{map[string]any{"tree": "cloud", "query": canary}, 200},
			{map[string]any{"tree": canary, "query": canary}, 400},
			{map[string]any{"query": long}, 400},
			{map[string]any{"query": canary, "colour": canary}, 400},
		} {
			code, raw, err := postRaw(base, "read_documentation", c.body, auth...)
			if err != nil {
				t.Fatal(err)
			}
			answered("POST", code, c.want)
			if bytes.Contains(raw, []byte(canary)) {
				t.Errorf("POST %v: the answer echoes the word: %s", c.body, raw)
			}
		}
		// search_documentation: answered, over each bound, an unknown
		// tree and member.
		for _, c := range []struct {
			body map[string]any
			want int
		}{
			{map[string]any{"query": "how do I read the " + canary + " stamp?"}, 200},
			{map[string]any{"tree": "cloud", "query": canary, "budget": 500}, 200},
			{map[string]any{"tree": canary, "query": canary}, 400},
			{map[string]any{"query": canary + strings.Repeat(" q", 500)}, 400},
			{map[string]any{"query": canary, "budget": 499}, 400},
			{map[string]any{"query": canary, "budget": 64001}, 400},
			{map[string]any{"query": canary, "colour": canary}, 400},
		} {
			code, raw, err := postRaw(base, "search_documentation", c.body, auth...)
			if err != nil {
				t.Fatal(err)
			}
			answered("POST search_documentation", code, c.want)
			if bytes.Contains(raw, []byte(canary)) {
				t.Errorf("POST search_documentation %v: the answer echoes the word: %s", c.body, raw)
			}
		}
		// read_context with IDs that name no entry and carry the word:
		// a malformed search ID (A-27: recorded as (unknown id), never
		// as given), plain words, and the same refused by the schema.
		for _, c := range []struct {
			body map[string]any
			want int
		}{
			{map[string]any{"id": canaryID}, 404},
			{map[string]any{"id": canary + " secret project"}, 404},
			{map[string]any{"id": canaryID, "limit": 0}, 400},
		} {
			code, raw, err := postRaw(base, "read_context", c.body, auth...)
			if err != nil {
				t.Fatal(err)
			}
			answered("POST read_context", code, c.want)
			if bytes.Contains(raw, []byte(canary)) {
				t.Errorf("POST read_context %v: the answer echoes the word: %s", c.body, raw)
			}
		}
		// HTTP GET, answered and refused.
		for _, c := range []struct {
			q    string
			want int
		}{
			{"query=" + url.QueryEscape(canary), 200},
			{"tree=cloud&query=" + url.QueryEscape(long), 400},
			{"query=" + url.QueryEscape(canary) + "&query=" + canary, 400},
			{"query=" + canary + "&colour=" + canary, 400},
			{"id=" + url.QueryEscape(canaryID), 404},
			{"search=" + url.QueryEscape(canary+" stamp"), 200},
			{"search=" + url.QueryEscape(canary) + "&budget=3", 400},
		} {
			action := "read_documentation"
			switch {
			case strings.HasPrefix(c.q, "id="):
				action = "read_context"
			case strings.HasPrefix(c.q, "search="):
				action, c.q = "search_documentation", "query="+strings.TrimPrefix(c.q, "search=")
			}
			req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/actions/"+action+"?"+c.q, nil)
			if auth != nil {
				req.Header.Set(auth[0], auth[1])
			}
			resp, err := httpClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answered("GET "+c.q, resp.StatusCode, c.want)
			if bytes.Contains(raw, []byte(canary)) {
				t.Errorf("GET: the answer echoes the word: %s", raw)
			}
		}
	}
	// Refused before the dispatcher: an unknown credential and a body over
	// the bound, both carrying the word.
	code, _, err := postRaw(base, "read_documentation", map[string]any{"query": canary}, "Authorization", "Bearer "+canary)
	if err != nil {
		t.Fatal(err)
	}
	answered("unknown credential", code, 401)
	code, _, err = postRaw(base, "read_documentation", map[string]any{"query": canary, "pad": strings.Repeat(canary, 400)})
	if err != nil {
		t.Fatal(err)
	}
	answered("oversized body", code, 413)
	// Malformed requests, each carrying the word as a value (and, over
	// GET, as the name after an unencoded "&"): a repeated member, a lone
	// surrogate, an invalid byte, a chunked body over the bound, a method
	// that is not GET or POST, an unknown GET parameter.
	for _, c := range []struct {
		method, query, body string
		chunked             bool
		want                int
	}{
		{http.MethodPost, "", `{"query":"` + canary + `","query":"` + canary + `"}`, false, 400},
		{http.MethodPost, "", `{"query":"` + canary + `\ud800"}`, false, 400},
		{http.MethodPost, "", "{\"query\":\"" + canary + "\xff\"}", false, 400},
		{http.MethodPost, "", `{"query":"` + strings.Repeat(canary, 400) + `"}`, true, 413},
		{http.MethodPut, "", `{"query":"` + canary + `"}`, false, 405},
		{http.MethodGet, "query=R&" + canary, "", false, 400},
	} {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
			if c.chunked {
				body = io.MultiReader(body)
			}
		}
		req, _ := http.NewRequest(c.method, base+"/api/v1/actions/read_documentation?"+c.query, body)
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered(c.method+" malformed", resp.StatusCode, c.want)
		if bytes.Contains(raw, []byte(canary)) {
			t.Errorf("%s %.80s: the answer echoes the word: %s", c.method, c.body, raw)
		}
	}

	// MCP over streamable HTTP and over stdio.
	mcpCalls := func(c *client.Client, transport string) {
		// read_documentation and search_documentation: answered (must
		// be answered where answered is set), over a bound, an unknown
		// tree.
		for _, call := range []struct {
			tool     string
			args     map[string]any
			answered bool
		}{
			{"read_documentation", map[string]any{"query": canary + " stamp"}, true},
			{"read_documentation", map[string]any{"tree": "cloud", "query": canary}, false},
			{"read_documentation", map[string]any{"query": long}, false},
			{"read_documentation", map[string]any{"tree": canary, "query": canary}, false},
			{"search_documentation", map[string]any{"query": canary + " stamp"}, true},
			{"search_documentation", map[string]any{"tree": canary, "query": canary}, false},
			{"search_documentation", map[string]any{"query": canary, "budget": 1}, false},
		} {
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = call.tool, call.args
			res, err := c.CallTool(context.Background(), req)
			calls++
			if err != nil {
				// A schema violation is a JSON-RPC error up to 2025-06-18.
				if strings.Contains(err.Error(), canary) {
					t.Errorf("%s: the error echoes the word: %v", transport, err)
				}
				continue
			}
			raw, _ := json.Marshal(res)
			if call.answered && res.IsError {
				t.Errorf("%s %s %v: refused: %s", transport, call.tool, call.args, raw)
			}
			if bytes.Contains(raw, []byte(canary)) {
				t.Errorf("%s %s %v: the result echoes the word: %s", transport, call.tool, call.args, raw)
			}
		}
		// read_context with the ID carrying the word, as a tool and as
		// a resource: both refused context_not_found.
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "read_context", map[string]any{"id": canaryID}
		res, err := c.CallTool(context.Background(), req)
		calls++
		if raw, _ := json.Marshal(res); err != nil || !res.IsError || bytes.Contains(raw, []byte(canary)) {
			t.Errorf("%s read_context %q: %v %s, want a refusal that does not echo the word", transport, canaryID, err, raw)
		}
		rr := mcpgo.ReadResourceRequest{}
		rr.Params.URI = "tzctx://context/" + url.PathEscape(canaryID)
		_, err = c.ReadResource(context.Background(), rr)
		calls++
		if err == nil || strings.Contains(err.Error(), canary) {
			t.Errorf("%s resources/read of %q: %v, want a refusal that does not echo the word", transport, canaryID, err)
		}
	}
	for _, token := range []string{"", "tok-c"} {
		hc := mcpSession(t, base, token)
		mcpCalls(hc, "mcp-http")
		_ = hc.Close()
		var env []string
		if token != "" {
			env = []string{"TZCTX_TOKEN=" + token}
		}
		sc, stdioLog, _ := stdioClient(t, bin, dataDir, env, "--config", cfg)
		mcpCalls(sc, "mcp-stdio")
		_ = sc.Close()
		if strings.Contains(stdioLog.String(), canary) {
			t.Errorf("tzctx mcp logged the word:\n%s", stdioLog.String())
		}
	}

	// /metrics.
	resp, err := httpClient.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(metrics, []byte("tzctx_calls_total")) {
		t.Fatalf("/metrics: %d %.300s", resp.StatusCode, metrics)
	}
	if bytes.Contains(metrics, []byte(canary)) {
		t.Error("/metrics holds the word")
	}
	// The records: every call is there, and none holds the word.
	recs := runProc(t, bin, nil, "--data", dataDir, "records", "--json").stdout.String()
	// One record per call: the MCP sessions' list calls are none here.
	if n := strings.Count(recs, "\n"); n != calls {
		t.Errorf("%d records for %d calls", n, calls)
	}
	for _, transport := range []string{`"http"`, `"mcp-http"`, `"mcp-stdio"`} {
		if !strings.Contains(recs, `"transport":`+transport) {
			t.Errorf("no record of transport %s", transport)
		}
	}
	if strings.Contains(recs, canary) {
		t.Error("a record holds the word")
	}
	// The database: every call once, no column holding the word.
	if pg != nil {
		var pgRecs string
		if !waitFor(30*time.Second, func() bool {
			pgRecs = runProc(t, bin, nil, "--data", dataDir, "records", "--from-postgres", "--config", cfg, "--json").stdout.String()
			return strings.Count(pgRecs, "\n") >= calls
		}) || strings.Count(pgRecs, "\n") != calls {
			t.Errorf("%d records in postgres for %d calls", strings.Count(pgRecs, "\n"), calls)
		}
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		var rows, holding int
		err = conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE strpos(lower(r::text), $1) > 0) FROM tzctx_records r`, canary).Scan(&rows, &holding)
		conn.Close(ctx)
		if err != nil || rows != calls || holding != 0 {
			t.Errorf("postgres: %d rows for %d calls, %d holding the word (%v)", rows, calls, holding, err)
		}
	}
	// The server's own log, after it stopped.
	_ = srv.cmd.Process.Signal(os.Interrupt)
	if err := srv.wait(t, 30*time.Second); err != nil {
		t.Errorf("the server did not stop cleanly: %v", err)
	}
	if strings.Contains(srv.stderr.String(), canary) {
		t.Errorf("the server logged the word:\n%s", srv.stderr.String())
	}
	// Every file of the data directory: the index, the records, the
	// pointer and the versions.
	files := 0
	err = filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(bytes.ToLower(b), []byte(canary)) {
			t.Errorf("%s holds the word", path)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walking the data directory: %v (%d files)", err, files)
	}
}
