package query

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit/sqlitepeer"
	"github.com/turnzerocloud/tzctx/store"
)

// sqlitePeer answers searches with SQLite FTS5 and its trigram tokenizer,
// computing the contract's 3/2/1 answer, as a user who picked SQLite for
// this service would: the peer the search benchmarks compare with. Its
// database is sqlitepeer.Build's.
type sqlitePeer struct {
	db    *sql.DB
	limit int
}

// newSQLitePeer builds the peer's database in dir from the pages of trees.
func newSQLitePeer(t testing.TB, dir string, trees []*store.Tree, limit int) *sqlitePeer {
	t.Helper()
	return &sqlitePeer{db: sqlitepeer.Build(t, dir, trees), limit: limit}
}

// peerWords returns the distinct words of a raw query, each with the
// times it occurs, read as the contract reads them (the bare code of a
// rule code, else the lower-cased whitespace-separated words).
func peerWords(raw string) (words []string, times map[string]int) {
	all := strings.Fields(strings.ToLower(raw))
	if code := RuleCode(raw); code != "" {
		all = []string{strings.ToLower(code)}
	}
	times = map[string]int{}
	for _, w := range all {
		if times[w] == 0 {
			words = append(words, w)
		}
		times[w]++
	}
	return words, times
}

// ftsString quotes w as one FTS5 string: with the trigram tokenizer a
// quoted string of three or more characters matches the rows holding it
// as a substring.
func ftsString(w string) string { return `"` + strings.ReplaceAll(w, `"`, `""`) + `"` }

// answer returns the answer text of a search for raw: SQLite finds the
// pages, scores them 3/2/1, orders them (score descending, then ordinal)
// and cuts the list at the limit in one statement; Go picks each page's
// first line holding a word from the copy SQLite returns and writes the
// lines.
func (p *sqlitePeer) answer(raw string) (string, error) {
	words, times := peerWords(raw)
	if len(words) == 0 {
		return "", nil
	}
	var parts []string
	var args []any
	for _, w := range words {
		score := "(3*(instr(title, ?) > 0) + 2*(instr(heads, ?) > 0) + (instr(body, ?) > 0))"
		args = append(args, times[w], w, w, w)
		if utf8.RuneCountInString(w) >= 3 {
			parts = append(parts, "SELECT rowid AS id, ?*"+score+" AS s FROM docs WHERE docs MATCH ?")
			args = append(args, ftsString(w))
		} else {
			// The trigram index cannot look up a word of one or two
			// characters (a trigram needs three), so the peer falls back
			// to instr over every row, as LIKE would; instr is exact and
			// case-sensitive over the lower-cased columns, where LIKE
			// folds case its own way and reads % and _ as wildcards.
			parts = append(parts, "SELECT rowid AS id, ?*"+score+" AS s FROM docs WHERE instr(title, ?) > 0 OR instr(heads, ?) > 0 OR instr(body, ?) > 0")
			args = append(args, w, w, w)
		}
	}
	q := "WITH hits AS (SELECT id, SUM(s) AS score FROM (" + strings.Join(parts, " UNION ALL ") +
		") GROUP BY id ORDER BY score DESC, id LIMIT ?) SELECT p.title, p.route, p.copy FROM hits JOIN pages p ON p.id = hits.id ORDER BY hits.score DESC, hits.id"
	args = append(args, p.limit)
	rows, err := p.db.Query(q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	code := RuleCode(raw)
	n := 0
	for rows.Next() {
		var title, route, copyText string
		if err := rows.Scan(&title, &route, &copyText); err != nil {
			return "", err
		}
		if n == 0 && code != "" {
			b.WriteString(rulePreface(code))
		}
		n++
		b.WriteString("- [" + title + "](" + tzctx.LinkTarget(route) + "):")
		if line := peerLine(copyText, words); line != "" {
			b.WriteString(" " + line)
		}
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// peerLine returns the first line of copyText holding any word, trimmed.
func peerLine(copyText string, words []string) string {
	for l := range strings.SplitSeq(copyText, "\n") {
		ll := strings.ToLower(strings.TrimSuffix(l, "\r"))
		for _, w := range words {
			if strings.Contains(ll, w) {
				return strings.TrimSpace(l)
			}
		}
	}
	return ""
}

// candidates runs the bare candidate lookup, the FTS5 MATCH alone of the
// query's words of three or more characters joined by OR, and returns how
// many rows it found; ok is false where the query has no such word, which
// the index cannot look up.
func (p *sqlitePeer) candidates(raw string) (n int, ok bool, err error) {
	words, _ := peerWords(raw)
	var terms []string
	for _, w := range words {
		if utf8.RuneCountInString(w) >= 3 {
			terms = append(terms, ftsString(w))
		}
	}
	if len(terms) == 0 {
		return 0, false, nil
	}
	rows, err := p.db.Query("SELECT rowid FROM docs WHERE docs MATCH ?", strings.Join(terms, " OR "))
	if err != nil {
		return 0, true, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return n, true, err
		}
		n++
	}
	return n, true, rows.Err()
}

// checkPeer requires the SQLite peer's answers, the real path's and the
// oracle's to be equal, byte for byte, for every query of the fixed set
// on the version st serves, over trees in tzctx.DefaultTrees order.
func checkPeer(t *testing.T, st *store.Store) {
	lim := testLimits()
	r := NewReader(Config{Limits: lim}, FromStore(st))
	v, err := st.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	var trees []*store.Tree
	for _, name := range tzctx.DefaultTrees {
		if tr := v.Tree(name); tr != nil {
			trees = append(trees, tr)
		}
	}
	o := newOracle(t, v, trees, lim.SearchMatchLimit)
	peer := newSQLitePeer(t, t.TempDir(), trees, lim.SearchMatchLimit)
	qv, qtrees := seam(v, trees)
	found := 0
	for _, q := range testkit.SearchQueries {
		words := QueryWords(q)
		got, err := r.searchText(t.Context(), qv, qtrees, words, RuleCode(q))
		if err != nil {
			t.Fatal(err)
		}
		want := o.answer(q)
		fts, err := peer.answer(q)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		if fts != want {
			t.Errorf("query %q: the SQLite peer differs from the oracle:\n peer   %q\n oracle %q", q, clip(fts), clip(want))
		}
		if got != want {
			t.Errorf("query %q: the real path differs from the oracle:\n got  %q\n want %q", q, clip(got), clip(want))
		}
		if want != "" {
			found++
		}
	}
	if found < len(testkit.SearchQueries)/2 {
		t.Errorf("only %d of %d queries found pages: the check proves little", found, len(testkit.SearchQueries))
	}
}

func TestSQLitePeerMatchesOracleOnSampleSite(t *testing.T) {
	t.Parallel()
	checkPeer(t, sampleStore)
}

func TestSQLitePeerMatchesOracleOnSynthetic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := testkit.WriteSynthSite(dir, 300, 1); err != nil {
		t.Fatal(err)
	}
	checkPeer(t, testkit.Ingest(t, ingest.TreeSource{Name: "tzdocs", Dir: dir}))
}
