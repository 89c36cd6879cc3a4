package tzctx

// The media types of catalog entries.
const (
	MimeMarkdown = "text/markdown"
	MimeJSON     = "application/json"
)

// CatalogEntry is one catalog entry as list_context answers it:
// the contract set's entries and the documentation entries alike. Tree,
// Part and Auth are set on documentation entries alone.
type CatalogEntry struct {
	ID       string `json:"id"`
	Tool     string `json:"tool"`
	Title    string `json:"title"`
	MimeType string `json:"mime_type"`
	Tree     string `json:"tree,omitempty"`
	Part     string `json:"part,omitempty"`
	Auth     string `json:"auth,omitempty"`
}

// CatalogItem is an entry of the contract set with its text.
type CatalogItem struct {
	CatalogEntry
	Text string
	// Actions are the actions a caller must be able to list for the
	// entry to be listed: a skill's actions, a payload's action; none for
	// the others.
	Actions []string
}
