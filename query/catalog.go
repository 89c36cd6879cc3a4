package query

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/schemas"
)

// SubjectCatalog is the record subject of every list_context call.
const SubjectCatalog = "catalog"

// Listable reports whether this caller may list an action: it is
// registered in this build and its grant lets the caller see it.
type Listable func(action string) bool

// ListRequest is a list_context request: no limit, since catalog
// pages hold a fixed number of entries.
type ListRequest struct {
	Offset *int    `json:"offset,omitempty"`
	Stamp  *string `json:"stamp,omitempty"`
}

// ListAnswer is a list_context answer.
type ListAnswer struct {
	ContractVersion int                  `json:"contract_version"`
	Stamp           string               `json:"stamp"`
	Offset          int                  `json:"offset"`
	Total           int                  `json:"total"`
	NextOffset      *int                 `json:"next_offset"`
	Entries         []tzctx.CatalogEntry `json:"entries"`

	sizes func() []int64 // EntrySizes' sizes, computed when asked
}

// Catalog returns the whole catalog this caller may see, in catalog order
// the contract set's entries whose actions are all listable, then
// two documentation entries for each tree the caller may read that the
// served version holds: a tree it lacks is not listed, since reading it
// would answer only context_unavailable.
func (r *Reader) Catalog(ctx context.Context, listable Listable) ([]tzctx.CatalogEntry, error) {
	readable, err := r.readable(ctx)
	if err != nil {
		return nil, err
	}
	var titles map[string]string
	access := r.base.access
	if v, err := r.versions.Acquire(); err == nil {
		readable, titles, access = heldOf(v, readable), r.treeTitles(v, readable), r.setOf(v).access
		v.Release()
	} else {
		readable = nil
	}
	var out []tzctx.CatalogEntry
	if r.cfg.Catalog != nil {
		for _, it := range r.cfg.Catalog.Items() {
			if visible(it, listable) {
				out = append(out, it.CatalogEntry)
			}
		}
	}
	for _, tree := range readable {
		auth := string(access[tree])
		if auth == "" {
			auth = "anonymous"
		}
		auth, _, _ = strings.Cut(auth, ":")
		for _, part := range []string{PartIndex, PartFull} {
			out = append(out, tzctx.CatalogEntry{ID: partID(tree, part).String(), Tool: "read_documentation",
				Title: titles[tree] + ": " + partTitle(part), MimeType: MimeMarkdown, Tree: tree, Part: part, Auth: auth})
		}
	}
	return out, nil
}

// visible reports whether a contract-set entry is listed to a caller: one
// that drives actions only where the caller may list every one of them.
func visible(it tzctx.CatalogItem, listable Listable) bool {
	for _, a := range it.Actions {
		if listable == nil || !listable(a) {
			return false
		}
	}
	return true
}

// treeTitles returns the title of each of trees: its configured title,
// else its own in v (cleaned: one line of at most MaxTreeTitle
// characters, since a documentation folder is untrusted), else, for the
// contract's trees, the tree's name and " documentation", for any other
// its name.
func (r *Reader) treeTitles(v Version, trees []string) map[string]string {
	titles := map[string]string{}
	set := r.setOf(v)
	for _, t := range trees {
		titles[t] = t
		if slices.Contains(tzctx.DefaultTrees, t) {
			titles[t] = t + " documentation"
		}
		if c := set.trees[t]; c.Title != "" {
			titles[t] = c.Title
		} else if tr := v.Tree(t); tr != nil {
			if title := schemas.CleanOneLine(tr.Title(), MaxTreeTitle); title != "" {
				titles[t] = title
			}
		}
	}
	return titles
}

func partTitle(part string) string {
	if part == PartFull {
		return "whole text"
	}
	return "index"
}

// catalogStamp is the SHA-256 of the compact JSON array of every visible
// entry, members in the order served, with no HTML escaping and no
// trailing newline.
func catalogStamp(entries []tzctx.CatalogEntry) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if entries == nil {
		entries = []tzctx.CatalogEntry{}
	}
	if err := enc.Encode(entries); err != nil {
		panic(err) // entries are strings alone
	}
	return textStamp(strings.TrimSuffix(b.String(), "\n"))
}

// textStamp is the SHA-256 of a text, in lower-case hexadecimal.
func textStamp(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ListContext answers list_context: one page of the visible catalog, a
// fixed catalog_entry_limit of entries from offset, which counts entries.
func (r *Reader) ListContext(ctx context.Context, req ListRequest, listable Listable) (*ListAnswer, string, error) {
	if err := checkPaging(Paging{Offset: req.Offset, Stamp: req.Stamp}); err != nil {
		return nil, SubjectCatalog, err
	}
	served := r.servedName()
	entries, err := r.Catalog(ctx, listable)
	if err != nil {
		return nil, SubjectCatalog, err
	}
	if r.servedName() != served {
		served = "" // a switch while listing: no size is known to match
	}
	stamp := catalogStamp(entries)
	if req.Stamp != nil && *req.Stamp != stamp {
		return nil, SubjectCatalog, tzctx.Errorf(tzctx.ContextChanged, "the stamp does not match the catalog this connection may see: it came from a text or another connection's catalog, or the catalog has changed since; list it again from offset 0 without a stamp, or send the stamp the last list_context answer returned")
	}
	off := 0
	if req.Offset != nil {
		off = *req.Offset
	}
	if off > len(entries) {
		return nil, SubjectCatalog, tzctx.Errorf(tzctx.InvalidRequest, "offset %d is past the end of the catalog, which holds %d entries", off, len(entries))
	}
	end := min(off+r.cfg.Limits.CatalogEntryLimit, len(entries))
	a := &ListAnswer{ContractVersion: 1, Stamp: stamp, Offset: off, Total: len(entries), Entries: append([]tzctx.CatalogEntry{}, entries[off:end]...)}
	if end < len(entries) {
		a.NextOffset = &end
	}
	a.sizes = func() []int64 { return r.entrySizes(a.Entries, served) }
	return a, SubjectCatalog, nil
}

// catalogText is a contract-set entry's text, paged as any text is: a
// JSON entry with the member rules of A-04 under the read's limit, any
// other with the plain rules.
type catalogText struct {
	textmap.Layout
	s     string
	stamp string
}

func (c *catalogText) Stamp() string               { return c.stamp }
func (c *catalogText) Slice(begin, end int) string { return textmap.Slice(c.s, begin, end) }

// scannedText is what a contract-set entry's reads share: its stamp and
// its plain place table.
type scannedText struct {
	// text is the text scanned: an entry's text changes where the
	// served texts follow the served version.
	text  string
	stamp string
	plain *textmap.Map
}

// catalogText returns the text of a contract-set entry to page at limit:
// a JSON entry's member places depend on the limit and are found per
// read; the stamp and the plain places are found once.
func (r *Reader) catalogText(it tzctx.CatalogItem, limit int) *catalogText {
	v, ok := r.scanned.Load(it.ID)
	if !ok || v.(*scannedText).text != it.Text {
		// The first read of the entry, or of its text in other served
		// texts (another version's trees), which replaces the last.
		v = &scannedText{text: it.Text, stamp: textStamp(it.Text), plain: textmap.Scan(it.Text)}
		r.scanned.Store(it.ID, v)
	}
	sc := v.(*scannedText)
	t := &catalogText{Layout: sc.plain, s: it.Text, stamp: sc.stamp}
	if it.MimeType == tzctx.MimeJSON {
		if l, ok := textmap.ScanJSON(it.Text, limit); ok {
			t.Layout = l
		}
	}
	return t
}
