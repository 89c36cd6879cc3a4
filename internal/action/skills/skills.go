// Package skills generates the skills the site serves (CTX-04):
// one SKILL.md, in the open Agent Skills form, per skill source of the
// embedded skills.json, each rendered from its source and from the
// contract's enumeration of actions. The set of skills is the sources';
// a source that names an action the enumeration lacks fails generation,
// and a skill is live only where this build registers every action it
// drives.
package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx/internal/action/reference"
	"github.com/turnzerocloud/tzctx/internal/leaf/surface"
	"github.com/turnzerocloud/tzctx/schemas"
)

// SourceFile is the file of the schema files that holds the skill sources.
const SourceFile = "skills.json"

// The bounds of the Agent Skills form on a skill's front matter.
const (
	NameMaxLength        = 64
	DescriptionMaxLength = 1024
)

// ErrInvalidSource is the error, in the chain of Generate's, of a skill
// source that breaks the form: a bad name or description, no actions or
// steps, a repeated name or action, an action its text names but does not
// drive, or a generated text that fails the CTX-08 check. A source that
// names an action the enumeration lacks is schemas.ErrUnknownAction.
var ErrInvalidSource = errors.New("invalid skill source")

// Skill is one generated skill.
type Skill struct {
	Name        string   // e.g. "discover-context"
	Title       string   // the page's title
	Description string   // the front matter description
	Actions     []string // the actions it drives, in source order
	Markdown    string   // the whole SKILL.md text
	Parts       []Part   // paged parts, listed as skill:<name>:<part>; may be empty
}

// Part is one paged part of a skill: its name, as skill:<name>:<part>
// lists it, and its Markdown text. No skill of this build has parts.
type Part struct{ Name, Markdown string }

// source is one skill of skills.json.
type source struct {
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Actions     []string `json:"actions"`
	Steps       []string `json:"steps"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// codeRE finds the code spans of a text, to tell which actions it names.
var codeRE = regexp.MustCompile("`([^`]+)`")

// Generate returns the skills of the skills.json of c's schema files (the
// embedded one, with the site's name filled in), in source order,
// generated against c.
func Generate(c *schemas.Contract) ([]Skill, error) {
	src, err := fs.ReadFile(c.Files(), SourceFile)
	if err != nil {
		return nil, err
	}
	return FromSource(c, src)
}

// FromSource returns the skills of src, a document of the form of
// skills.json, generated against c. It fails, naming the skill and the
// action, where a skill drives an action c does not enumerate (an error
// wrapping schemas.ErrUnknownAction), and on any other fault of a source
// (ErrInvalidSource).
func FromSource(c *schemas.Contract, src []byte) ([]Skill, error) {
	var doc struct {
		Description string   `json:"description"`
		Skills      []source `json:"skills"`
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", SourceFile, ErrInvalidSource, err)
	}
	if len(doc.Skills) == 0 {
		return nil, fmt.Errorf("%s: %w: no skills", SourceFile, ErrInvalidSource)
	}
	enumerated := map[string]bool{}
	for _, e := range c.Enumeration() {
		enumerated[e.Name] = true
	}
	seen := map[string]bool{}
	var out []Skill
	for i, s := range doc.Skills {
		if seen[s.Name] {
			return nil, fmt.Errorf("%s: skill %d: %w: the name %q is repeated", SourceFile, i, ErrInvalidSource, s.Name)
		}
		seen[s.Name] = true
		sk, err := generate(c, s, enumerated)
		if err != nil {
			return nil, fmt.Errorf("%s: skill %s: %w", SourceFile, s.Name, err)
		}
		out = append(out, sk)
	}
	return out, nil
}

// Live reports whether every action s drives is registered in this build
// (A-37's "live"): registered tells, for an action's name, whether the
// default dispatcher registers it.
func Live(s Skill, registered func(action string) bool) bool {
	for _, a := range s.Actions {
		if !registered(a) {
			return false
		}
	}
	return len(s.Actions) > 0
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSource, fmt.Sprintf(format, args...))
}

// generate checks one source and renders its SKILL.md.
func generate(c *schemas.Contract, s source, enumerated map[string]bool) (Skill, error) {
	switch {
	case !nameRE.MatchString(s.Name) || len(s.Name) > NameMaxLength:
		return Skill{}, invalid("the name %q is not lower-case letters, digits and single hyphens of at most %d characters", s.Name, NameMaxLength)
	case strings.TrimSpace(s.Title) == "" || strings.ContainsAny(s.Title, "\r\n"):
		return Skill{}, invalid("the title is empty or spans lines")
	case strings.TrimSpace(s.Description) == "" || utf8.RuneCountInString(s.Description) > DescriptionMaxLength || strings.ContainsAny(s.Description, "\r\n"):
		return Skill{}, invalid("the description is empty, spans lines or is longer than %d characters", DescriptionMaxLength)
	case len(s.Actions) == 0:
		return Skill{}, invalid("it drives no action")
	case len(s.Steps) == 0:
		return Skill{}, invalid("it has no steps")
	}
	var acts []schemas.Action
	for _, name := range s.Actions {
		if slices.Contains(s.Actions[:len(acts)], name) {
			return Skill{}, invalid("it lists action %s twice", name)
		}
		a, err := c.Action(name)
		if err != nil {
			return Skill{}, fmt.Errorf("it drives action %q: %w", name, err)
		}
		acts = append(acts, a)
	}
	// Every action the text tells a reader to call is one the skill
	// drives, so that a live skill never teaches a call this build lacks.
	texts := append([]string{s.Description}, s.Steps...)
	for i, text := range texts {
		for _, m := range codeRE.FindAllStringSubmatch(text, -1) {
			if enumerated[m[1]] && !slices.Contains(s.Actions, m[1]) {
				where := "the description"
				if i > 0 {
					where = fmt.Sprintf("step %d", i)
				}
				return Skill{}, invalid("%s names action %s, which the skill's actions do not list", where, m[1])
			}
		}
	}
	md, err := render(c, s, acts)
	if err != nil {
		return Skill{}, err
	}
	if findings := surface.Check(md, surface.Options{MustName: true, Name: c.Product()}); len(findings) > 0 {
		return Skill{}, invalid("the generated SKILL.md fails the public-surface check at line %d: %s", findings[0].Line, findings[0].Detail)
	}
	return Skill{Name: s.Name, Title: s.Title, Description: s.Description, Actions: slices.Clone(s.Actions), Markdown: md}, nil
}

// render writes a skill's SKILL.md: front matter, title, description, the
// actions with their summaries quoted from the enumeration, the steps,
// and each action's call with its request members from the contract.
func render(c *schemas.Contract, s source, acts []schemas.Action) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n", s.Name, yamlString(s.Description))
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", s.Title, s.Description)
	fmt.Fprintf(&b, "## Actions\n\nThis skill drives these %s actions. Each summary is quoted from the enumeration of actions.\n\n", c.Product())
	for _, a := range acts {
		fmt.Fprintf(&b, "- `%s`: %s\n", a.Name, a.Summary)
	}
	b.WriteString("\n## Steps\n\n")
	for i, step := range s.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.TrimSpace(step))
	}
	b.WriteString("\n## Calls\n\nOver HTTP, each action answers `POST /api/v1/actions/<action>` with its members as a JSON object in the body. Over MCP, each action is the tool of the same name, with the same members as its arguments.\n")
	for _, a := range acts {
		members, err := requestMembers(c, a)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n### Call `%s`\n\n`POST /api/v1/actions/%s`, or the MCP tool `%s`.\n\n", a.Name, a.Name, a.Name)
		if len(members) == 0 {
			b.WriteString("The request has no members.\n")
			continue
		}
		b.WriteString("| Member | Required | Description |\n|---|---|---|\n")
		for _, m := range members {
			req := "no"
			if m.Required {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", m.Name, req, cell(m.Description))
		}
	}
	return b.String(), nil
}

// requestMembers returns the members of a's request with their
// descriptions, a shared shape's where the member references one, in the
// order the wire shapes write them.
func requestMembers(c *schemas.Contract, a schemas.Action) ([]reference.Member, error) {
	props, _ := a.Request["properties"].(map[string]any)
	defs, _ := a.Request["$defs"].(map[string]any)
	required := map[string]bool{}
	if list, ok := a.Request["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var out []reference.Member
	for name, p := range props {
		prop, _ := p.(map[string]any)
		desc, _ := prop["description"].(string)
		if ref, ok := prop["$ref"].(string); ok && desc == "" {
			def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			desc, _ = def["description"].(string)
		}
		if desc == "" {
			return nil, invalid("action %s: request member %s has no description to show", a.Name, name)
		}
		out = append(out, reference.Member{Name: name, Required: required[name], Description: desc})
	}
	// The contract's maps hold no order; the schema files give it.
	written, err := reference.RequestMembers(c.Files(), a.Name)
	if err != nil && !errors.Is(err, schemas.ErrUnknownAction) {
		return nil, err
	}
	rank := func(name string) int {
		if i := slices.IndexFunc(written, func(m reference.Member) bool { return m.Name == name }); i >= 0 {
			return i
		}
		return len(written)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i].Name), rank(out[j].Name)
		if ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// yamlString quotes s as a YAML double-quoted scalar: JSON's string form,
// which YAML reads as the same string.
func yamlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// cell keeps a table cell on one line and its pipes inside it.
func cell(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
}
