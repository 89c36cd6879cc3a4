package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

func TestDelete(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	mustCLI(t, data, "ingest", site, "--version", "keep", "--activate")
	mustCLI(t, data, "ingest", "--tree", "cloud="+filepath.Join(site, "cloud"), "--version", "drop")

	// The active version is refused and stays.
	r := runCLI(t, data, "delete", "keep")
	if r.err == nil {
		t.Fatal("delete of the active version succeeded")
	}
	if !strings.Contains(r.err.Error(), `"keep" is active`) || !strings.Contains(r.err.Error(), "activate another version first") {
		t.Errorf("refusal %q does not say the version is active and what to do", r.err)
	}
	if r.stdout != "" {
		t.Errorf("a refused delete printed %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(data, "versions", "keep", "meta.json")); err != nil {
		t.Errorf("the active version's folder after a refused delete: %v", err)
	}

	// Another version goes, folder and all, leaving nothing in staging.
	r = mustCLI(t, data, "delete", "drop")
	if r.stdout != "deleted drop\n" {
		t.Errorf("stdout = %q, want \"deleted drop\\n\"", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(data, "versions", "drop")); !os.IsNotExist(err) {
		t.Errorf("deleted version's folder: stat err = %v, want not exist", err)
	}
	if left := dirNames(t, filepath.Join(data, "staging")); len(left) != 0 {
		t.Errorf("staging holds %v after a delete", left)
	}
	rows := parseVersions(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 1 || rows[0].name != "keep" || !rows[0].active {
		t.Errorf("versions after delete: %+v, want keep alone, active", rows)
	}

	// Deleting it again names the way to list versions.
	r = runCLI(t, data, "delete", "drop")
	if r.err == nil || !strings.Contains(r.err.Error(), "'tzctx versions'") {
		t.Errorf("second delete: err = %v", r.err)
	}
	// A name that could climb out of versions/ is refused.
	if r := runCLI(t, data, "delete", "../versions"); r.err == nil {
		t.Error("delete ../versions succeeded")
	}
	if _, err := os.Stat(filepath.Join(data, "versions", "keep", "meta.json")); err != nil {
		t.Errorf("the kept version's folder: %v", err)
	}

	// Once another version is active, the formerly active one can go.
	mustCLI(t, data, "ingest", "--tree", "tzdocs="+filepath.Join(site, "tzdocs"), "--version", "next", "--activate")
	mustCLI(t, data, "delete", "keep")
	rows = parseVersions(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 1 || rows[0].name != "next" || !rows[0].active {
		t.Errorf("versions: %+v, want next alone, active", rows)
	}
}
