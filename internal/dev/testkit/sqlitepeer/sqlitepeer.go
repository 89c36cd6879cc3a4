// Package sqlitepeer builds the SQLite FTS5 database that benchmarks
// compare tzctx with: the one the search peer answers from and whose
// build time the ingest benchmark sets beside tzctx's ingest.
package sqlitepeer

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
	"github.com/turnzerocloud/tzctx/store"

	_ "modernc.org/sqlite" // the pure-Go SQLite, with FTS5: the peer a user would pick
)

// Build writes the peer's database, peer.db in dir, from the pages of
// trees and returns it open, closed when t ends.
//
// Its FTS5 table docs holds, per page ordinal (tree order, then manifest
// order, as the rowid), the title, the ## and deeper headings joined by
// "\n" and the page's copy, each lower-cased by Go's strings.ToLower, and
// uses the trigram tokenizer with case_sensitive 1: SQLite's own case
// folding differs from Go's outside ASCII, and answers must be byte for
// byte tzctx's. A plain table pages holds each page's title, route and
// copy. The index is optimized (merged into one b-tree) before Build
// returns.
func Build(t testing.TB, dir string, trees []*store.Tree) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "peer.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, s := range []string{
		"PRAGMA journal_mode=OFF",
		"PRAGMA synchronous=OFF",
		"CREATE VIRTUAL TABLE docs USING fts5(title, heads, body, tokenize='trigram case_sensitive 1')",
		"CREATE TABLE pages(id INTEGER PRIMARY KEY, title TEXT NOT NULL, route TEXT NOT NULL, copy TEXT NOT NULL)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insDoc, err := tx.Prepare("INSERT INTO docs(rowid, title, heads, body) VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	insPage, err := tx.Prepare("INSERT INTO pages(id, title, route, copy) VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	for _, tr := range trees {
		for _, p := range tr.Pages {
			txt, err := tr.Text(p.Route)
			if err != nil || txt == nil {
				t.Fatalf("no copy of %s: %v", p.Route, err)
			}
			c := string(txt.Bytes())
			var heads []string
			for _, h := range textmap.Scan(c).Headings {
				if h.Depth >= 2 {
					heads = append(heads, strings.ToLower(h.Text))
				}
			}
			if _, err := insDoc.Exec(id, strings.ToLower(p.Title), strings.Join(heads, "\n"), strings.ToLower(c)); err != nil {
				t.Fatal(err)
			}
			if _, err := insPage.Exec(id, p.Title, p.Route, c); err != nil {
				t.Fatal(err)
			}
			id++
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO docs(docs) VALUES ('optimize')"); err != nil {
		t.Fatal(err)
	}
	return db
}
