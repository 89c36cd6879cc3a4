package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// initializeAs initializes an MCP session over HTTP as the caller of
// token ("" for none) and returns the server's instructions.
func (f *fixture) initializeAs(t *testing.T, token string) string {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(f.base+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpgo.Implementation{Name: "tzctx-test", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Instructions
}

// TestInstructionsSayWhatIsServedToTheCaller: the server instructions
// start with what the caller may read, each tree with its title and page
// count, the gated tree to its holder alone, then how to find an answer,
// and the library where one is held; within 1,200 code points (issue 31).
func TestInstructionsSayWhatIsServedToTheCaller(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	anon, holder := f.initializeAs(t, ""), f.initializeAs(t, tokenBlueprint)
	for who, ins := range map[string]string{"anonymous": anon, "holder": holder} {
		if n := utf8.RuneCountInString(ins); n > 1200 {
			t.Errorf("%s: the instructions are %d code points, over 1,200", who, n)
		}
		if !strings.HasPrefix(ins, "Turn Zero Cloud serves this documentation:\n- cloud: ") || !strings.Contains(ins, "\n- tzdocs: ") || !strings.Contains(ins, " pages)\n") {
			t.Errorf("%s: the instructions do not start with the trees, titles and page counts:\n%s", who, ins)
		}
		for _, w := range []string{"search_documentation", "read_documentation", "list_library", "list_context"} {
			if !strings.Contains(ins, w) {
				t.Errorf("%s: the instructions do not name %s:\n%s", who, w, ins)
			}
		}
	}
	if strings.Contains(anon, "blueprint") {
		t.Errorf("the anonymous caller's instructions name the gated tree:\n%s", anon)
	}
	if !strings.Contains(holder, "\n- blueprint: ") {
		t.Errorf("the holder's instructions do not name the gated tree:\n%s", holder)
	}
}

// TestListLibraryAnswersLines: list_library's text content is lines, as
// every other tool's, not its JSON: an entry a line with its files under
// it, then the members block with the stamp once (issue 31).
func TestListLibraryAnswersLines(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, c := range f.transports(t, tokenPlain) {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, c, "list_library", map[string]any{})
			text := textOf(t, res)
			body, members, ok := strings.Cut(text, "\n\n--- answer members ---\n")
			if !ok || strings.HasPrefix(text, "{") {
				t.Fatalf("list_library's text is not lines and a members block:\n%.600s", text)
			}
			if !strings.Contains(body, "- error-codes ") || !strings.Contains(body, "\n  - codes.json (") {
				t.Errorf("list_library's lines lack an entry or its files:\n%s", body)
			}
			for _, m := range []string{"offset: 0", "total: 3", "stamp: ", "next_offset: null"} {
				if !strings.Contains(members, m) {
					t.Errorf("list_library's members lack %q:\n%s", m, members)
				}
			}
			stamp := members[strings.Index(members, "stamp: ")+len("stamp: "):]
			stamp, _, _ = strings.Cut(stamp, "\n")
			if len(stamp) != 64 || strings.Count(text, stamp) != 1 {
				t.Errorf("list_library's text prints the stamp %d times, want once:\n%s", strings.Count(text, stamp), text)
			}
		})
	}
}
