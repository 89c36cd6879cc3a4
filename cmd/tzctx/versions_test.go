package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

func TestVersionsEmpty(t *testing.T) {
	data := t.TempDir()
	if _, err := store.Open(data); err != nil { // lays out an empty data directory
		t.Fatal(err)
	}
	r := mustCLI(t, data, "versions")
	if rows := parseVersions(t, r.stdout); len(rows) != 0 {
		t.Errorf("an empty data directory lists %v", rows)
	}
	// A mistyped data directory is reported, not created.
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	for _, args := range [][]string{{"versions"}, {"activate", "x"}, {"delete", "x"}} {
		r := runCLI(t, missing, args...)
		if r.err == nil || !strings.Contains(r.err.Error(), "is not a data directory") {
			t.Errorf("%v on a missing data directory: %v", args, r.err)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Errorf("%v created the data directory", args)
		}
	}
	if r := runCLI(t, t.TempDir(), "versions", "extra"); r.err == nil {
		t.Error("versions with an argument succeeded")
	}
}

func TestVersionsList(t *testing.T) {
	site := testkit.SampleSite(t)
	data := t.TempDir()
	start := time.Now().Add(-time.Second)
	mustCLI(t, data, "ingest", site, "--version", "alpha", "--activate")
	mustCLI(t, data, "ingest", "--tree", "cloud="+filepath.Join(site, "cloud"), "--tree", "tzdocs="+filepath.Join(site, "tzdocs"), "--version", "beta")
	cloudPages := manifestPages(t, filepath.Join(site, "cloud"))
	tzdocsPages := manifestPages(t, filepath.Join(site, "tzdocs"))
	allPages := cloudPages + tzdocsPages + manifestPages(t, filepath.Join(site, "blueprint"))

	rows := parseVersions(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 2 {
		t.Fatalf("versions lists %d rows, want 2: %+v", len(rows), rows)
	}
	a, b := rows[0], rows[1]
	// Oldest first.
	if a.name != "alpha" || b.name != "beta" {
		t.Fatalf("versions lists %s, %s; want alpha, beta (oldest first)", a.name, b.name)
	}
	if !a.active || b.active {
		t.Errorf("active marks: alpha %v, beta %v; want alpha alone", a.active, b.active)
	}
	if a.trees != "cloud,blueprint,tzdocs" || b.trees != "cloud,tzdocs" {
		t.Errorf("trees: alpha %q, beta %q", a.trees, b.trees)
	}
	if a.pages != strconv.Itoa(allPages) || b.pages != strconv.Itoa(cloudPages+tzdocsPages) {
		t.Errorf("pages: alpha %s, beta %s; want %d, %d", a.pages, b.pages, allPages, cloudPages+tzdocsPages)
	}
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		// BYTES is the size on disk for a person to read: "236.4 KiB".
		if want := humanBytes(st.Size(r.name)); r.bytes != want || !humanSizeRE.MatchString(r.bytes) {
			t.Errorf("%s: bytes %q, want %q, a number and an IEC unit", r.name, r.bytes, want)
		}
		if r.create.Before(start) || r.create.After(time.Now().Add(time.Second)) {
			t.Errorf("%s: created %v is not the ingest time", r.name, r.create)
		}
	}

	// The mark follows the pointer.
	mustCLI(t, data, "activate", "beta")
	rows = parseVersions(t, mustCLI(t, data, "versions").stdout)
	if len(rows) != 2 || rows[0].active || !rows[1].active {
		t.Errorf("after activate beta: %+v", rows)
	}
	if n := strings.Count(mustCLI(t, data, "versions").stdout, "*"); n != 1 {
		t.Errorf("%d active marks, want 1", n)
	}
}

// humanSizeRE is a size as versions prints it.
var humanSizeRE = regexp.MustCompile(`^(\d+ B|\d+\.\d (KiB|MiB|GiB|TiB))$`)

// TestHumanBytes pins how versions writes sizes.
func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		12*1<<20 + 300*1<<10: "12.3 MiB", 4 << 30: "4.0 GiB", 3 << 40: "3.0 TiB", 2048 << 40: "2048.0 TiB",
	} {
		if got := humanBytes(n); got != want || !humanSizeRE.MatchString(got) {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
