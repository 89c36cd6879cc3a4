package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// bundleDoc is the bundle entry: the anonymous, complete source catalog
//
type bundleDoc struct {
	ContractVersion int           `json:"contract_version"`
	Product         string        `json:"product"`
	Description     string        `json:"description"`
	Sources         []bundleEntry `json:"sources"`
}

// bundleEntry is one indexed source as the bundle lists it.
type bundleEntry struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	MimeType string `json:"mime_type"`
	Total    int    `json:"total"`
	Stamp    string `json:"stamp"`
}

// bundleText lists every indexed source and guide with its ID, title,
// media type, total and stamp, whoever reads it: the bundle is not
// filtered by visibility.
func bundleText(version int, product string, groups ...[]Item) (string, error) {
	doc := bundleDoc{ContractVersion: version, Product: product,
		Description: "Every source of the " + product + " served context, unfiltered: read each with read_context and its id; total counts code points and stamp is the SHA-256 of the whole text."}
	for _, g := range groups {
		for _, it := range g {
			doc.Sources = append(doc.Sources, bundleEntry{ID: it.ID, Title: it.Title, MimeType: it.MimeType, Total: utf8.RuneCountInString(it.Text), Stamp: Stamp(it.Text)})
		}
	}
	return marshal(doc)
}

// Stamp is the SHA-256 of a text, in lower-case hexadecimal.
func Stamp(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// serviceContracts composes the service_contracts entry: the contract set
// by subject, each source with its ID, then the guides with the commands
// they teach, each line derived from the index. Skills and payloads, which
// visibility filters, are the catalog's to list.
func serviceContracts(idx *Index, sources, guides []Item) string {
	var b strings.Builder
	b.WriteString("# Service contracts of " + idx.Product + ", by subject\n\n")
	b.WriteString("The contract set of the " + idx.Product + " served context. Read any entry below with `read_context` and its ID; the index, `source:schemas/served_context.json`, names every file of the set.\n")
	var subjects []string
	bySubject := map[string][]Item{}
	for i, s := range idx.Sources {
		if _, ok := bySubject[s.Subject]; !ok {
			subjects = append(subjects, s.Subject)
		}
		bySubject[s.Subject] = append(bySubject[s.Subject], sources[i])
	}
	for _, subj := range subjects {
		b.WriteString("\n## " + subj + "\n\n")
		seen := map[string]bool{}
		for _, it := range bySubject[subj] {
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
			b.WriteString("- `" + it.ID + "`: " + it.Title + " (" + it.MimeType + ")\n")
		}
	}
	b.WriteString("\n## guides\n\n")
	for i, g := range idx.Guides {
		b.WriteString("- `" + guides[i].ID + "`: " + g.Title + ", for " + g.Audience + "; it teaches " + strings.Join(quoteAll(g.Commands), ", ") + "\n")
	}
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}
