package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

func TestActivate(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	mustCLI(t, data, "ingest", site, "--version", "one", "--activate")
	mustCLI(t, data, "ingest", "--tree", "cloud="+filepath.Join(site, "cloud"), "--version", "two")

	r := mustCLI(t, data, "activate", "two")
	// Two holds the cloud tree alone: activate says so, and warns of the
	// others (TestActivateSummary checks the summary in full).
	if !strings.HasSuffix(r.stdout, "\nactivated two\n") || !strings.Contains(r.stdout, "  tree cloud: 0 added, 0 removed, 0 changed, 23 unchanged pages\n") ||
		!strings.Contains(r.stdout, "warning: tree blueprint is served now and is not in two") || !strings.Contains(r.stdout, "warning: tree tzdocs is served now and is not in two") {
		t.Errorf("stdout = %q, want the summary, a warning of trees blueprint and tzdocs, then \"activated two\\n\"", r.stdout)
	}
	if a := activeName(t, data); a != "two" {
		t.Errorf("ACTIVE = %q, want two", a)
	}
	// The pointer file holds the name, and nothing else is left beside it.
	raw, err := os.ReadFile(filepath.Join(data, "ACTIVE"))
	if err != nil || string(raw) != "two\n" {
		t.Errorf("ACTIVE file = %q, %v; want \"two\\n\"", raw, err)
	}
	for _, n := range dirNames(t, data) {
		if strings.HasPrefix(n, "ACTIVE.tmp") {
			t.Errorf("activation left %s in the data directory", n)
		}
	}
	mustCLI(t, data, "activate", "one")
	if a := activeName(t, data); a != "one" {
		t.Errorf("ACTIVE = %q, want one", a)
	}
}

func TestActivateUnknown(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	mustCLI(t, data, "ingest", site, "--version", "one", "--activate")

	for _, name := range []string{"absent", "../one", "one/", ""} {
		r := runCLI(t, data, "activate", name)
		if r.err == nil {
			t.Errorf("activate %q succeeded: %s", name, r.stdout)
			continue
		}
		if name == "absent" && (!strings.Contains(r.err.Error(), `"absent"`) || !strings.Contains(r.err.Error(), "'tzctx versions'")) {
			t.Errorf("activate absent: error %q names neither the version nor 'tzctx versions'", r.err)
		}
		if r.stdout != "" {
			t.Errorf("activate %q printed %q", name, r.stdout)
		}
		if a := activeName(t, data); a != "one" {
			t.Errorf("after activate %q: ACTIVE = %q, want one", name, a)
		}
	}
	if r := runCLI(t, data, "activate"); r.err == nil {
		t.Error("activate without a name succeeded")
	}
	if r := runCLI(t, data, "activate", "one", "two"); r.err == nil {
		t.Error("activate with two names succeeded")
	}
}

// TestActivateIncompleteVersion: a folder under versions/ without its
// meta.json (what a copy in progress looks like) is no version.
func TestActivateIncompleteVersion(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "versions", "half"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, data, "activate", "half")
	if r.err == nil || !strings.Contains(r.err.Error(), "'tzctx versions'") {
		t.Errorf("activate of an incomplete version: err = %v", r.err)
	}
	if a := activeName(t, data); a != "" {
		t.Errorf("ACTIVE = %q", a)
	}
	if rows := parseVersions(t, mustCLI(t, data, "versions").stdout); len(rows) != 0 {
		t.Errorf("versions lists an incomplete version: %+v", rows)
	}
}
