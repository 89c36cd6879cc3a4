package source

import (
	"fmt"
	"strings"
)

// DefaultMaxWarnings is how many warnings of one kind a tree's list keeps
// where Options give no other bound (--max-warnings).
const DefaultMaxWarnings = 20

// SummariseWarnings keeps the first perKind warnings of each kind of ws,
// in their order, and after the last kept of a kind that has more, one
// line saying how many more there are (a SUMMARY.md listing one page a
// million times wrote 152 MB of warnings). A perKind of 0 or less is
// DefaultMaxWarnings. Its time is linear in the warnings' bytes.
func SummariseWarnings(ws []string, perKind int) []string {
	if perKind <= 0 {
		perKind = DefaultMaxWarnings
	}
	type kind struct {
		seen, last int // warnings of the kind, index in ws of the last kept
	}
	ids := map[string]int32{}
	var kinds []kind
	of := make([]int32, len(ws)) // the kind of each warning
	kept := 0
	for i, w := range ws {
		key := warningKind(w)
		id, ok := ids[key]
		if !ok {
			id = int32(len(kinds))
			ids[key] = id
			kinds = append(kinds, kind{})
		}
		of[i] = id
		if k := &kinds[id]; k.seen < perKind {
			k.last = i
			kept++
		}
		kinds[id].seen++
	}
	if kept == len(ws) {
		return ws
	}
	out := make([]string, 0, kept+len(kinds))
	for i, w := range ws {
		k := kinds[of[i]]
		if i > k.last {
			continue
		}
		out = append(out, w)
		if i == k.last && k.seen > perKind {
			out = append(out, fmt.Sprintf("%s: %d more warnings like the one above are left out; list them with a higher --max-warnings (now %d)", warningFile(w), k.seen-perKind, perKind))
		}
	}
	return out
}

// warningFile is the file a warning names ("SUMMARY.md:4: …",
// "sidebars.js line 3: …"); "navigation" where it names none.
func warningFile(w string) string {
	loc, _, ok := strings.Cut(w, ": ")
	if !ok {
		return "navigation"
	}
	loc, _, _ = strings.Cut(loc, " line ")
	file, _, _ := strings.Cut(loc, ":")
	return file
}

// warningKind is a warning's kind: its wording less what varies between
// warnings of one kind. A warning is "LOCATION: PROBLEM; FIX" (or
// "PROBLEM. FIX"); the kind is the first two words of the problem and the
// words of the fix, leaving out the location and every word holding a
// name, a path, a number or a quotation.
func warningKind(w string) string {
	_, msg, ok := strings.Cut(w, ": ")
	if !ok {
		msg = w
	}
	problem, fix := msg, ""
	if i := strings.LastIndex(msg, "; "); i >= 0 {
		problem, fix = msg[:i], msg[i+2:]
	} else if i := strings.LastIndex(msg, ". "); i >= 0 {
		problem, fix = msg[:i], msg[i+2:]
	}
	var b strings.Builder
	words := 0
	for f := range strings.FieldsSeq(problem) {
		if words == 2 {
			break
		}
		if fixedWord(f) {
			b.WriteString(f)
			b.WriteByte(' ')
			words++
		}
	}
	b.WriteString("…")
	for f := range strings.FieldsSeq(fix) {
		if fixedWord(f) {
			b.WriteByte(' ')
			b.WriteString(f)
		}
	}
	return b.String()
}

// fixedWord reports whether a word of a warning is part of its wording,
// not a name, path, number or quotation.
func fixedWord(f string) bool {
	return !strings.ContainsAny(f, "0123456789\"'/.:=<>`") || strings.HasSuffix(f, ".") && !strings.ContainsAny(f[:len(f)-1], "0123456789\"'/.:=<>`")
}
