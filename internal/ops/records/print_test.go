package records

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx"
)

func TestWriteTable(t *testing.T) {
	recs := []tzctx.Record{
		{Time: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Transport: "http", Action: "read_context", Subject: "a b", Code: "ok", Status: 200, Account: "", CodePoints: 12, Duration: 1500 * time.Microsecond},
		{Time: time.Date(2026, 12, 1, 9, 0, 1, 0, time.UTC), Transport: "mcp-stdio", Action: "list_context", Subject: "x\u0007", Status: 200},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, recs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("table:\n%s", b.String())
	}
	if f := strings.Fields(lines[1]); len(f) != 13 || f[3] != `"a` || f[7] != "-" || f[12] != "1500" {
		// "a b" is quoted, so it splits in two fields on blanks.
		t.Errorf("row 1 fields %q", f)
	}
	if !strings.Contains(lines[2], `"x\a"`) {
		t.Errorf("an unprintable subject is not quoted: %q", lines[2])
	}
	b.Reset()
	if err := WriteJSONLines(&b, recs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 2 {
		t.Errorf("%d JSON lines, want 2:\n%s", n, b.String())
	}
}
