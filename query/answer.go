package query

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/textmap"
)

// MimeMarkdown is the media type of every documentation text.
const MimeMarkdown = "text/markdown"

// Answer is the response of a text read: read_context's shape, plus
// headings on a page read's first chunk. Members are in the order
// A-19 fixes.
type Answer struct {
	ContractVersion int            `json:"contract_version"`
	Stamp           string         `json:"stamp"`
	Offset          int            `json:"offset"`
	Total           int            `json:"total"`
	NextOffset      *int           `json:"next_offset"`
	ID              string         `json:"id"`
	MimeType        string         `json:"mime_type"`
	Continuation    string         `json:"continuation,omitempty"`
	Headings        []HeadingEntry `json:"headings,omitempty"`
	Text            string         `json:"text"`

	version    string // the site version read, "" for a contract-set text
	codePoints int
	stored     bool // the text is a stored one, not composed for the call
}

// Stored reports whether the answer's text is a text the served version
// stores (a page, a tree's part), not one composed for the call from
// what the caller sent, such as a search's answer.
func (a *Answer) Stored() bool { return a.stored }

// StoredText returns, for a front end that keeps the encoded forms of
// stored texts, the answer's text and what names its bytes whatever
// version, tree or caller it was read for: the stamp of the whole text,
// the offset and the code points answered. ok is false where the text
// was composed for the call (Stored), which nothing may keep.
func (a *Answer) StoredText() (text, stamp string, offset, count int, ok bool) {
	if a == nil {
		return "", "", 0, 0, false
	}
	return a.Text, a.Stamp, a.Offset, a.codePoints, a.stored
}

// WithoutText returns a copy of the answer whose text, its last member,
// is empty.
func (a *Answer) WithoutText() any {
	rest := *a
	rest.Text = ""
	return &rest
}

// Served returns, for the call's record, the site version the answer was
// read from ("" for a contract-set text) and the code points of its text.
func (a *Answer) Served() (version string, codePoints int) { return a.version, a.codePoints }

// HeadingEntry is one entry of a page read's headings.
type HeadingEntry struct {
	Text   string `json:"text"`
	Offset int    `json:"offset"`
}

// Paging holds the paging members every text read shares.
type Paging struct {
	Offset *int    `json:"offset,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	Stamp  *string `json:"stamp,omitempty"`
}

// text is what paging needs of a text: its place table, its stamp and its
// code points.
type text interface {
	textmap.Layout
	Stamp() string
	Slice(begin, end int) string
}

// memText is a text composed per call, such as a search answer.
type memText struct {
	*textmap.Map
	s     string
	stamp string
}

func newMemText(s string) *memText {
	sum := sha256.Sum256([]byte(s))
	return &memText{Map: textmap.Scan(s), s: s, stamp: hex.EncodeToString(sum[:])}
}

func (m *memText) Stamp() string               { return m.stamp }
func (m *memText) Slice(begin, end int) string { return textmap.Slice(m.s, begin, end) }

// read is one text to page, with what its answer names.
type read struct {
	t        text
	id       string
	mime     string // the answer's mime_type; empty is MimeMarkdown
	action   string // read_documentation or read_context
	selector string // how the continuation names the call that reads on
	// page returns the page's headings where the read is a page's; it
	// is called only for a first chunk that continues, the one answer
	// that lists them, so other reads never decode them.
	page    func() ([]tzctx.Heading, error)
	isPage  bool
	version string // the site version read, for the record
	// borrow answers the text without a copy where t can (borrower):
	// the request's holder keeps the version read (hold.Keep).
	borrow bool
}

// borrower is a stored text that hands out its code points without a
// copy, valid while its version is held (store.Text).
type borrower interface {
	Borrow(begin, end int) string
}

func (r *Reader) limit(p Paging) int {
	if p.Limit != nil {
		return *p.Limit
	}
	return r.cfg.Limits.TextDefaultLimit
}

// checkPaging runs the paging checks that come before tree resolution.
func checkPaging(p Paging) error {
	if p.Offset != nil && *p.Offset > 0 && p.Stamp == nil {
		return tzctx.Errorf(tzctx.InvalidRequest, "offset %d needs the stamp of the answer that gave it; send offset and stamp together, or read from offset 0 without a stamp", *p.Offset)
	}
	return nil
}

// answer pages rd per the request's paging: stamp match, offset range,
// chunk, continuation and headings.
func (r *Reader) answer(rd read, p Paging) (*Answer, error) {
	total := rd.t.Total()
	stamp := rd.t.Stamp()
	if p.Stamp != nil && *p.Stamp != stamp {
		// The stamp may be another text's as well as this text's before
		// a change: the refusal says it does not match, not which.
		return nil, tzctx.Errorf(tzctx.ContextChanged, "the stamp does not match the text of %s: it came from another text, or this text has changed since; read again from offset 0 without a stamp, or send the stamp the last read of %s returned", rd.id, rd.id)
	}
	off := 0
	if p.Offset != nil {
		off = *p.Offset
	}
	if off > total {
		return nil, tzctx.Errorf(tzctx.InvalidRequest, "offset %d is past the end of %s, which holds %d code points", off, rd.id, total)
	}
	limit := r.limit(p)
	begin, end := textmap.Chunk(rd.t, off, limit)
	mime := rd.mime
	if mime == "" {
		mime = MimeMarkdown
	}
	var txt string
	bt, stored := rd.t.(borrower)
	if stored && rd.borrow {
		txt = bt.Borrow(begin, end)
	} else {
		txt = rd.t.Slice(begin, end)
	}
	a := &Answer{ContractVersion: 1, Stamp: stamp, Offset: begin, Total: total, ID: rd.id, MimeType: mime, Text: txt,
		version: rd.version, codePoints: end - begin, stored: stored}
	if end < total {
		n := end
		a.NextOffset = &n
	}
	whole := begin == 0 && end == total
	if whole {
		return a, nil
	}
	nav := ""
	if rd.isPage {
		var cut bool
		if begin == 0 && a.NextOffset != nil {
			hs, err := rd.page()
			if err != nil {
				return nil, err
			}
			a.Headings, cut = r.headings(hs)
		}
		switch {
		case cut:
			nav = " The headings list is cut; for a later section or a passage's words, use query."
		case a.Headings != nil:
			nav = " For a section, read from an offset in headings with this stamp; for a passage's words, use query."
		default:
			nav = " For a passage's words, use query."
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Read code points %d to %d of %d.", begin, end, total)
	if a.NextOffset != nil {
		fmt.Fprintf(&b, " To read on, call %s with %s, offset %d and stamp %s.", rd.action, rd.selector, end, stamp)
	} else {
		b.WriteString(" This chunk is the last.")
	}
	b.WriteString(nav)
	a.Continuation = b.String()
	return a, nil
}

// headings selects a page's headings entries: depth 2 and deeper,
// falling to depth 2 alone above 40, bounded in count and length. cut
// reports whether either bound cut the list.
func (r *Reader) headings(hs []tzctx.Heading) (out []HeadingEntry, cut bool) {
	sel := hs
	if len(hs) > headingsFall {
		sel = nil
		for _, h := range hs {
			if h.Depth == 2 {
				sel = append(sel, h)
			}
		}
	}
	if len(sel) == 0 {
		return nil, false
	}
	if n := r.cfg.Limits.HeadingsLimit; len(sel) > n {
		sel, cut = sel[:n], true
	}
	out = make([]HeadingEntry, len(sel))
	for i, h := range sel {
		t := h.Text
		if utf8.RuneCountInString(t) > r.cfg.Limits.HeadingMaxLength {
			t, cut = string([]rune(t)[:r.cfg.Limits.HeadingMaxLength]), true
		}
		out[i] = HeadingEntry{Text: t, Offset: h.Offset}
	}
	return out, cut
}
