// Package surface checks served text against CTX-08: a served document
// names the product by its public name, holds no code name from a
// configurable list, and holds no path into the repository that produced
// it. The check is a heuristic over text, shared by the service's
// tests, `tzctx check` and the generators.
package surface

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// ProductName is the product's public name by default, which every served
// document names where no other name is configured (Options.Name).
const ProductName = "Turn Zero Cloud"

// Rule names what a finding breaks.
type Rule string

// RulePublicName, RuleCodeName and RuleRepoPath are the CTX-08 rules.
const (
	RulePublicName Rule = "public-name" // the document never names the product's public name
	RuleCodeName   Rule = "code-name"   // the document holds a name from the code-name list
	RuleRepoPath   Rule = "repo-path"   // the document holds a repository-shaped path
)

// Finding is one place where a text breaks a rule.
type Finding struct {
	Rule   Rule   `json:"rule"`
	Line   int    `json:"line"`   // 1-based; 0 for the whole text
	Column int    `json:"column"` // 1-based, in bytes of the line; 0 for the whole text
	Match  string `json:"match"`  // what matched, empty for the whole text
	Detail string `json:"detail"` // what is wrong and what to do
}

// Options configure a check.
type Options struct {
	// MustName requires the text to name the public name: true for
	// documents, false for sentences the service writes (continuations,
	// details).
	MustName bool
	// Name is the public name served texts name: the site's configured
	// name; empty means ProductName.
	Name string
	// CodeNames are names no served text may hold, matched as whole
	// words without regard to case.
	CodeNames []string
	// Allowed are paths that are not repository paths: the index's
	// members and paths inside an entry's own closure.
	Allowed []string
}

// repoDirs are the top-level folders of a repository that a customer does
// not hold.
var repoDirRE = regexp.MustCompile("(?:^|[\\s(\\[`\"'<=:,])((?:\\./)?(?:src|scripts|tests?|internal|cmd|\\.github|infra|examples|plans|testdata|vendor|node_modules)/[A-Za-z0-9_.\\-/]*)")

// sourceFileRE matches a slash-separated path to a source file.
var sourceFileRE = regexp.MustCompile(`(?:^|[\s(\[` + "`" + `"'<=:,])((?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]+\.(?:go|ts|tsx|js|mjs|cjs|py|rs|sh|bash|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|mod|sum|lock|toml|yaml|yml|tf|proto))\b`)

// Check returns the findings of text under opts, in text order.
func Check(text string, opts Options) []Finding {
	var out []Finding
	name := opts.Name
	if name == "" {
		name = ProductName
	}
	allowed := map[string]bool{}
	for _, a := range opts.Allowed {
		allowed[strings.Trim(a, "/")] = true
	}
	var codeRE *regexp.Regexp
	if len(opts.CodeNames) > 0 {
		var alts []string
		for _, n := range opts.CodeNames {
			if n = strings.TrimSpace(n); n != "" {
				alts = append(alts, regexp.QuoteMeta(n))
			}
		}
		if len(alts) > 0 {
			codeRE = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(` + strings.Join(alts, "|") + `)(?:$|[^\pL\pN_])`)
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if codeRE != nil {
			for _, m := range codeRE.FindAllStringSubmatchIndex(line, -1) {
				out = append(out, Finding{Rule: RuleCodeName, Line: i + 1, Column: m[2] + 1, Match: line[m[2]:m[3]],
					Detail: "the code name " + quote(line[m[2]:m[3]]) + " is not a public name; write " + name + " or what the thing is"})
			}
		}
		seen := map[int]bool{}
		for _, re := range []*regexp.Regexp{repoDirRE, sourceFileRE} {
			for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
				p := strings.TrimRight(line[m[2]:m[3]], ".,;:")
				if seen[m[2]] || allowed[strings.Trim(strings.TrimPrefix(p, "./"), "/")] || isWirePath(line, m[2]) || isVendoredLibrary(p) {
					continue
				}
				seen[m[2]] = true
				out = append(out, Finding{Rule: RuleRepoPath, Line: i + 1, Column: m[2] + 1, Match: p,
					Detail: "the repository path " + quote(p) + " means nothing to a reader who holds no copy of the repository; name the served document by its title, or say what the file states"})
			}
		}
	}
	if opts.MustName && !strings.Contains(text, name) {
		out = append(out, Finding{Rule: RulePublicName, Detail: "the document never names the product; name it " + name})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Line != out[b].Line {
			return out[a].Line < out[b].Line
		}
		return out[a].Column < out[b].Column
	})
	return out
}

// isWirePath reports whether the path at byte i of line is part of a URL
// or a wire path such as /api/v1/actions/… rather than a file path.
func isWirePath(line string, i int) bool {
	before := line[:i]
	start := strings.LastIndexAny(before, " \t(`\"'<") + 1
	token := line[start:]
	if j := strings.IndexAny(token, " \t)`\"'>"); j >= 0 {
		token = token[:j]
	}
	return strings.Contains(token, "://") || strings.HasPrefix(token, "/api/")
}

// isVendoredLibrary reports whether p lies in the vendored library folder
// of the customer's own project, which the library-first skills name: a
// path in the customer's project is no repository path (CTX-08 ¶3).
func isVendoredLibrary(p string) bool {
	p = strings.TrimPrefix(p, "./")
	return p == "vendor/library" || strings.HasPrefix(p, "vendor/library/")
}

func quote(s string) string { return "\u201c" + s + "\u201d" }

// ReadCodeNames reads a code-name list (tzctx check --code-names), one name a line; blank lines and
// lines starting with # are skipped. No file is no names.
func ReadCodeNames(file string) ([]string, error) {
	if file == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--code-names: %w; name a file holding one code name a line", err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}
