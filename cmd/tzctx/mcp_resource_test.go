package main

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// TestMCPResourceReadIsOneRecord: a `tzctx mcp` process reading a
// resource whose text takes several chunks (the cloud tree's outline)
// writes one log line and one record in DATA/records for it, whose code
// points are the text's.
func TestMCPResourceReadIsOneRecord(t *testing.T) {
	t.Setenv("TZCTX_DATA", "")
	bin := buildBinary(t)
	dataDir := t.TempDir()
	mustCLI(t, dataDir, "ingest", testkit.SampleSite(t), "--version", "res-a", "--activate")
	c, stderr, _ := stdioClient(t, bin, dataDir, nil)
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = "tzctx://docs/cloud/outline"
	res, err := c.ReadResource(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Contents[0].(mcpgo.TextResourceContents).Text
	if n := utf8.RuneCountInString(text); n <= 16000 {
		t.Fatalf("the outline holds %d code points; the test needs several 16000-code-point chunks", n)
	}
	// A later call's line on stderr means every earlier line is there:
	// records are written before their answer, and stderr is in order.
	mcpCall(t, c, "list_context", map[string]any{})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "call action=list_context") {
		if time.Now().After(deadline) {
			t.Fatalf("no list_context line on stderr within 30 s:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(stderr.String(), "call action=read_documentation"); n != 1 {
		t.Errorf("one resource read logged %d call lines, want 1:\n%s", n, stderr.String())
	}
	var reads int
	for _, r := range parseRecordsJSON(t, mustCLI(t, dataDir, "records", "--json").stdout) {
		if r.Action == "read_documentation" {
			reads++
			if r.Subject != "docs:cloud:outline" || r.Code != "ok" || r.CodePoints != utf8.RuneCountInString(text) || r.Transport != "mcp-stdio" {
				t.Errorf("the resource read's record is %+v", r)
			}
		}
	}
	if reads != 1 {
		t.Errorf("one resource read wrote %d records, want 1", reads)
	}
}
