// Package reference generates the human reference of the served-context
// actions of the site (CTX-03): one Markdown page per action of the
// enumeration, in the published form of an action reference. Every
// contract fact on a page is rendered from the schema files of package
// schemas (the enumeration, the wire shapes); the one other fact, whether
// this build's default dispatcher registers the action, is build metadata
// the caller passes in from the dispatcher's registrations. Check and
// Write are the generator's drift guard over a folder of committed pages.
package reference

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx/schemas"
)

// Origin is the public origin the pages' HTTP paragraph names.
const Origin = "https://turnzero.ai"

// The sentences of the published form that the generator writes itself.
const (
	generatedLine = "Generated automatically from the published contract sources."
	registered    = "Registered in this build."
	notRegistered = "Not registered in this build."
	limitsLine    = "Registration describes the default dispatcher in this build. It does not guarantee that a caller has the required credential or grant, that a tool is listed for that connection, or that the required service is configured."
)

// productLine is the line after a page's title, which names the product
// by the public name the schema files' index gives it.
func productLine(name string) string { return "Part of the " + name + " served context." }

// Sections are the titles of a page's sections, in the order the
// published form gives them.
var Sections = []string{
	"Contract description",
	"Access and action metadata",
	"MCP catalog entry",
	"request",
	"response",
	"Complete payload contract",
	"Shared contracts",
}

// Page is one generated reference page.
type Page struct {
	Action   string // the action the page documents
	File     string // the page's file name in the reference folder: <action>.md
	Markdown string // the whole file: front matter for the manifest, then the page
}

// Member is one member of an action's request: its name, whether the
// request requires it and its description, a shared shape's where the
// member references one.
type Member struct {
	Name        string
	Required    bool
	Description string
}

// shapes is a contract set as the reference reads it: parsed by package
// schemas, and read again with every object's members in written order.
type shapes struct {
	contract *schemas.Contract
	entries  map[string]object // the enumeration's entries by action name
	defs     object            // the shared shapes
	actions  object            // the wire shapes by action name
}

// readShapes reads the schema files of fsys, filling a site placeholder
// still unfilled with the default name (a set read through schemas.Named
// has none left).
func readShapes(fsys fs.FS) (*shapes, error) {
	fsys = schemas.Named(fsys, schemas.DefaultSiteName)
	c, err := schemas.Parse(fsys)
	if err != nil {
		return nil, err
	}
	s := &shapes{contract: c, entries: map[string]object{}}
	enum, err := readOrdered(fsys, schemas.EnumerationFile)
	if err != nil {
		return nil, err
	}
	list, _ := enum.get("actions")
	entries, _ := list.([]any)
	for _, e := range entries {
		eo, _ := e.(object)
		name, _ := eo.get("name")
		if n, ok := name.(string); ok {
			s.entries[n] = eo
		}
	}
	payloads, err := readOrdered(fsys, schemas.PayloadsFile)
	if err != nil {
		return nil, err
	}
	defs, _ := payloads.get("$defs")
	s.defs, _ = defs.(object)
	acts, _ := payloads.get("actions")
	if s.actions, _ = acts.(object); s.actions == nil {
		return nil, fmt.Errorf("%s: no actions object", schemas.PayloadsFile)
	}
	return s, nil
}

func readOrdered(fsys fs.FS, name string) (object, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	v, err := decodeOrdered(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	o, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON object", name)
	}
	return o, nil
}

// payload returns the named action's request and response with their
// shared shapes in place, and the references it resolved.
func (s *shapes) payload(name string) (request, response any, refs []sharedRef, err error) {
	if _, err := s.contract.Action(name); err != nil {
		return nil, nil, nil, err
	}
	p, _ := s.actions.get(name)
	po, _ := p.(object)
	r := &resolver{defs: s.defs}
	for _, side := range []struct {
		key string
		out *any
	}{{"request", &request}, {"response", &response}} {
		v, ok := po.get(side.key)
		if !ok {
			return nil, nil, nil, fmt.Errorf("%s: action %s has no %s", schemas.PayloadsFile, name, side.key)
		}
		if *side.out, err = r.resolve(v, side.key, "", 0); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: action %s: %w", schemas.PayloadsFile, name, err)
		}
	}
	return request, response, r.refs, nil
}

// RequestMembers returns the members of the named action's request in the
// order fsys's wire shapes write them.
func RequestMembers(fsys fs.FS, action string) ([]Member, error) {
	s, err := readShapes(fsys)
	if err != nil {
		return nil, err
	}
	req, _, _, err := s.payload(action)
	if err != nil {
		return nil, err
	}
	ro, _ := req.(object)
	var required []string
	if list, ok := ro.get("required"); ok {
		for _, r := range list.([]any) {
			if name, ok := r.(string); ok {
				required = append(required, name)
			}
		}
	}
	props, _ := ro.get("properties")
	var out []Member
	for _, m := range props.(object) {
		mo, _ := m.val.(object)
		d, _ := mo.get("description")
		desc, _ := d.(string)
		out = append(out, Member{Name: m.key, Required: slices.Contains(required, m.key), Description: desc})
	}
	return out, nil
}

// Generate returns one page per action of the enumeration in fsys (the
// schema files, schemas.FS in this build, read through schemas.Named so
// the site's name is filled in), in enumeration order.
// registered names the actions the default dispatcher of this build
// registers; a name the enumeration lacks is an error, since no
// dispatcher registers such an action.
func Generate(fsys fs.FS, registered []string) ([]Page, error) {
	s, err := readShapes(fsys)
	if err != nil {
		return nil, err
	}
	enum := s.contract.Enumeration()
	for _, name := range registered {
		if !slices.ContainsFunc(enum, func(e schemas.Entry) bool { return e.Name == name }) {
			return nil, fmt.Errorf("reference: the dispatcher registers %q, which %s does not enumerate", name, schemas.EnumerationFile)
		}
	}
	var pages []Page
	for _, e := range enum {
		md, err := s.page(e.Name, slices.Contains(registered, e.Name))
		if err != nil {
			return nil, fmt.Errorf("reference: action %s: %w", e.Name, err)
		}
		if tok := schemas.UnfilledPlaceholder(md); tok != "" {
			return nil, fmt.Errorf("reference: action %s: the page would hold %s; read the schema files through schemas.Named, which fills the site's name", e.Name, tok)
		}
		pages = append(pages, Page{Action: e.Name, File: e.Name + ".md", Markdown: md})
	}
	return pages, nil
}

// page renders one action's page.
func (s *shapes) page(name string, isRegistered bool) (string, error) {
	a, err := s.contract.Action(name)
	if err != nil {
		return "", err
	}
	entry, ok := s.entries[name]
	if !ok {
		return "", fmt.Errorf("%s holds no entry for %s", schemas.EnumerationFile, name)
	}
	request, response, refs, err := s.payload(name)
	if err != nil {
		return "", err
	}
	reqRows, err := rows(request, "request", "")
	if err != nil {
		return "", err
	}
	respRows, err := rows(response, "response", "")
	if err != nil {
		return "", err
	}
	status := notRegistered
	if isRegistered {
		status = registered
	}
	// The MCP catalog entry: the tool's name and tier, and the contract
	// description its discovery quotes (MCP-05). Our sources give no
	// scenario, so the member is left out rather than invented.
	mcp := object{
		{"name", a.Name},
		{"tier", a.Tier},
		{"summary", a.Description},
		{"owners", []any{}},
	}
	payload := object{{"request", request}, {"response", response}}

	var b strings.Builder
	// Front matter, which ingest strips from the served copy, gives the
	// manifest's index line its title and description.
	fmt.Fprintf(&b, "---\ntitle: %s\ndescription: %s\n---\n\n", jsonString(a.Name), jsonString(a.Summary))
	fmt.Fprintf(&b, "# %s\n\n%s\n\n%s\n\n", a.Name, productLine(s.contract.Product()), generatedLine)
	fmt.Fprintf(&b, "Build metadata: %s %s\n\n", status, limitsLine)
	fmt.Fprintf(&b, "A script calls this action over HTTPS at POST %s/api/v1/actions/%s, with a bearer credential and the action's payload as the JSON body. It also accepts GET.\n\n", Origin, a.Name)
	section := func(title, body string) {
		fmt.Fprintf(&b, "## %s\n\n%s\n", title, body)
	}
	jsonBlock := func(v any) string { return "```json\n" + pretty(v) + "\n```\n" }
	section(Sections[0], a.Description+"\n")
	section(Sections[1], jsonBlock(entry))
	section(Sections[2], jsonBlock(mcp))
	section(Sections[3], table(reqRows))
	section(Sections[4], table(respRows))
	section(Sections[5], jsonBlock(payload))
	section(Sections[6], sharedSection(refs))
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// sharedSection lists the shared shapes the request and response
// reference, which the tables and the payload show in place.
func sharedSection(refs []sharedRef) string {
	if len(refs) == 0 {
		return "The request and response reference no shared shape.\n"
	}
	var b strings.Builder
	b.WriteString("The request and response reference these shared shapes, shown in place above; each is defined once for every action that references it.\n\n")
	b.WriteString("| Shared shape | Referenced at |\n|---|---|\n")
	for _, name := range sharedNames(refs) {
		var at []string
		for _, r := range refs {
			if r.name == name {
				at = append(at, r.side+" "+codeSpan(r.pointer))
			}
		}
		b.WriteString("| " + codeSpan(name) + " | " + cellText(strings.Join(at, ", ")) + " |\n")
	}
	return b.String()
}
