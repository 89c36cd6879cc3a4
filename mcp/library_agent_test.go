package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/store"
)

// agentEntry is the library entry the agent takes, and its version in the
// second library the test activates.
const (
	agentEntry       = "http-client"
	agentNextVersion = "1.3.0"
)

// agentRun is one run of testdata/ts/library.mjs against a fixture.
type agentRun struct {
	f       *fixture
	st      *store.Store
	site    string
	project string
}

// newAgentRun serves the sample site with its library, and skills as the
// catalog's skills.
func newAgentRun(t *testing.T, skills []catalog.Skill) *agentRun {
	t.Helper()
	site := testkit.SampleSite(t)
	st := testkit.IngestOptions(t, ingest.Options{Trees: testkit.SiteTrees(t, site), Library: ingest.SiteLibrary(site)})
	return &agentRun{f: newFixtureOn(t, st, skills...), st: st, site: site, project: t.TempDir()}
}

// nextLibrary writes a new version of agentEntry into the site (a new
// version string and one changed file), ingests it and activates it.
func (a *agentRun) nextLibrary(t *testing.T) {
	t.Helper()
	cat := filepath.Join(a.site, "library", "library.json")
	raw, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`("name": "` + agentEntry + `", "version": )"[^"]+"`)
	if !row.Match(raw) {
		t.Fatalf("the sample library.json has no row for %s", agentEntry)
	}
	raw = row.ReplaceAll(raw, []byte(`$1"`+agentNextVersion+`"`))
	if err := os.WriteFile(cat, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(a.site, "library", agentEntry, "client.ts")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(b, []byte("\n// Version "+agentNextVersion+" pages every answer.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sum, err := ingest.Run(ctx, a.st, ingest.Options{Trees: testkit.SiteTrees(t, a.site), Library: ingest.SiteLibrary(a.site)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.st.Activate(ctx, sum.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := a.st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

// agentOutput is the last line library.mjs prints.
type agentOutput struct {
	Commands     []string       `json:"commands"`
	Folder       string         `json:"folder"`
	Manifest     string         `json:"manifest"`
	Members      []string       `json:"members"`
	InstalledArg string         `json:"installedArg"`
	Statuses     []string       `json:"statuses"`
	Chunks       map[string]int `json:"chunks"`
}

// run runs the agent: it answers the script's statuses, activates the next
// library after the first, and returns the script's output, or the error
// and stderr of a script that ended early.
func (a *agentRun) run(t *testing.T, node, dir string) (out agentOutput, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc := startScript(ctx, t, node, dir, "library.mjs", a.f.base+"/mcp", a.project, agentEntry, "200")
	cmd, stdin, lines, errBuf := sc.Cmd, sc.Stdin, sc.Lines, sc.Stderr
	ended := func() (agentOutput, string, error) {
		_ = stdin.Close()
		return agentOutput{}, errBuf.String(), cmd.Wait()
	}
	var taken struct {
		Taken string `json:"taken"`
	}
	select {
	case l, ok := <-lines:
		if !ok {
			return ended()
		}
		if err := json.Unmarshal([]byte(l), &taken); err != nil || taken.Taken == "" {
			t.Fatalf("library.mjs said %q, want its status after taking the entry:\n%s", l, errBuf.String())
		}
	case <-ctx.Done():
		t.Fatalf("library.mjs took no entry:\n%s", errBuf.String())
	}
	a.nextLibrary(t)
	if _, err := io.WriteString(stdin, "activated\n"); err != nil {
		t.Fatal(err)
	}
	var last string
	for l := range lines {
		last = l
	}
	if err := cmd.Wait(); err != nil {
		return agentOutput{}, errBuf.String(), err
	}
	if err := json.Unmarshal([]byte(last), &out); err != nil {
		t.Fatalf("library.mjs printed %q: %v\n%s", last, err, errBuf.String())
	}
	return out, errBuf.String(), nil
}

// TestAgentFollowsLibraryGuide plays an agent over MCP alone with the
// official TypeScript SDK (testdata/ts/library.mjs): it reads
// guide:library-first, takes the commands from its headings, reads the
// skills they name and takes from their steps the vendored folder, the
// manifest and the row; it lists the library, reads every file of
// an entry to the end in chunks, writes them and the row into a project
// folder, and list_library with the manifest as installed answers
// current. A version in which the entry changed is then activated: the
// same call answers outdated, and following update-library brings it to
// current again, with the new files and row on disk. Served a take skill
// without its manifest step, the agent stops, naming the step it lacks.
// It skips where node or the SDK is absent, except under CI.
func TestAgentFollowsLibraryGuide(t *testing.T) {
	node, dir := testkit.TSSDK(t)
	t.Run("served", func(t *testing.T) {
		a := newAgentRun(t, generatedSkills(t))
		out, stderr, err := a.run(t, node, dir)
		if err != nil {
			t.Fatalf("library.mjs: %v\n%s", err, stderr)
		}
		t.Logf("the agent read %+v", out)
		if want := []string{"current", "outdated", "current"}; strings.Join(out.Statuses, " ") != strings.Join(want, " ") {
			t.Errorf("statuses %v, want %v", out.Statuses, want)
		}
		if want := "list_library read_library_entry add-library-entry update-library"; strings.Join(out.Commands, " ") != want {
			t.Errorf("the guide's commands as the agent read them: %v, want %s", out.Commands, want)
		}
		paged := false
		for _, n := range out.Chunks {
			paged = paged || n > 1
		}
		if !paged {
			t.Errorf("no file was read in more than one chunk: %v", out.Chunks)
		}
		// What the agent left in the project: the new version's files,
		// byte for byte, and its row as list_library answers it.
		lib := filepath.Join(a.site, "library", agentEntry)
		files, err := os.ReadDir(lib)
		if err != nil {
			t.Fatal(err)
		}
		vendored := filepath.Join(a.project, filepath.FromSlash(out.Folder+agentEntry))
		if got, err := os.ReadDir(vendored); err != nil || len(got) != len(files) {
			t.Errorf("the project's %s holds %d files (%v), the entry %d", vendored, len(got), err, len(files))
		}
		for _, e := range files {
			want, _ := os.ReadFile(filepath.Join(lib, e.Name()))
			got, err := os.ReadFile(filepath.Join(vendored, e.Name()))
			if err != nil || string(got) != string(want) {
				t.Errorf("the vendored %s differs from the served file (%v)", e.Name(), err)
			}
		}
		var listed struct {
			Entries []map[string]any `json:"entries"`
		}
		if err := json.Unmarshal(a.f.postAPI(t, "list_library", map[string]any{}, ""), &listed); err != nil {
			t.Fatal(err)
		}
		var digest any
		for _, e := range listed.Entries {
			if e["name"] == agentEntry {
				digest = e["digest"]
			}
		}
		raw, err := os.ReadFile(filepath.Join(a.project, filepath.FromSlash(out.Manifest)))
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(raw, &rows); err != nil || len(rows) != 1 {
			t.Fatalf("the manifest %s = %s (%v), want one row", out.Manifest, raw, err)
		}
		if rows[0]["name"] != agentEntry || rows[0]["version"] != agentNextVersion || rows[0]["digest"] != digest || len(rows[0]) != 3 {
			t.Errorf("the manifest row %v, want %s %s %v", rows[0], agentEntry, agentNextVersion, digest)
		}
	})
	t.Run("without the manifest step", func(t *testing.T) {
		skills := generatedSkills(t)
		for i, s := range skills {
			if s.Name == "add-library-entry" {
				step := regexp.MustCompile(`(?m)^\d+\. Add the row .*\n`)
				if !step.MatchString(s.Markdown) {
					t.Fatalf("the skill has no manifest step to remove:\n%s", s.Markdown)
				}
				skills[i].Markdown = step.ReplaceAllString(s.Markdown, "")
			}
		}
		a := newAgentRun(t, skills)
		_, stderr, err := a.run(t, node, dir)
		if err == nil {
			t.Fatal("the agent took the entry without a manifest step to follow")
		}
		t.Logf("the agent stopped: %s", strings.SplitN(stderr, "\n", 2)[0])
		if !strings.Contains(stderr, "has no step that adds a row") {
			t.Errorf("the agent's failure does not name the missing step:\n%s", stderr)
		}
		if _, err := os.Stat(filepath.Join(a.project, "vendor")); err == nil {
			t.Errorf("the agent wrote into the project before it knew every step")
		}
	})
}
