package api

import (
	"bytes"
	"container/list"
	"sync"

	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
	"github.com/turnzerocloud/tzctx/query"
)

// A page read spends much of its time escaping the page's text into a
// JSON string, the same bytes on every read of the same page. textCache
// keeps the JSON string forms of the stored texts (pages, tree parts;
// never a search's answer) answered most recently, up to
// a bound in bytes, least recently used first out. An entry's key is the
// text's stamp (the SHA-256 of the whole text) and the code points the
// answer holds of it, so it names the same bytes whatever version,
// tree or caller they were read for, and a cached form is the text's
// own: the answer's bytes are those jsonwire writes of it.
type textCache struct {
	mu   sync.Mutex
	max  int64
	size int64
	m    map[textKey]*list.Element
	lru  list.List // of *textEntry, most recently used first
}

type textKey struct {
	stamp         string
	offset, count int
}

type textEntry struct {
	key textKey
	enc []byte // the JSON string, quotes included; never changed
}

// minCachedText is the shortest text the cache keeps: a shorter one is
// escaped in less time than a lookup saves.
const minCachedText = 1024

// entryOverhead is what an entry costs beside its bytes, for the bound.
const entryOverhead = 160

func newTextCache(max int64) *textCache {
	if max <= 0 {
		return nil
	}
	return &textCache{max: max, m: map[textKey]*list.Element{}}
}

// jsonString returns the JSON string form of a's text, from the cache
// or encoded and kept.
func (c *textCache) jsonString(a *query.Answer) []byte {
	_, n := a.Served()
	k := textKey{a.Stamp, a.Offset, n}
	c.mu.Lock()
	if e, ok := c.m[k]; ok {
		c.lru.MoveToFront(e)
		enc := e.Value.(*textEntry).enc
		c.mu.Unlock()
		return enc
	}
	c.mu.Unlock()
	enc := jsonwire.AppendString(make([]byte, 0, len(a.Text)+len(a.Text)/16+2), a.Text)
	cost := int64(len(enc)+len(k.stamp)) + entryOverhead
	if cost > c.max {
		return enc
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return enc // another read kept it meanwhile
	}
	c.m[k] = c.lru.PushFront(&textEntry{key: k, enc: enc})
	c.size += cost
	for c.size > c.max {
		old := c.lru.Back()
		oe := old.Value.(*textEntry)
		c.lru.Remove(old)
		delete(c.m, oe.key)
		c.size -= int64(len(oe.enc)+len(oe.key.stamp)) + entryOverhead
	}
	return enc
}

// appendAnswer appends the JSON of v as jsonwire.Append does, taking the
// text of a text read's answer from the cache (c nil: none).
func (c *textCache) appendAnswer(dst []byte, v any) ([]byte, error) {
	a, ok := v.(*query.Answer)
	// A text composed for the call (a search's answer) is never kept: it
	// is derived from the caller's words, which no cache holds.
	if c == nil || !ok || a == nil || !a.Stored() || len(a.Text) < minCachedText {
		return jsonwire.Append(dst, v)
	}
	// The answer without its text ends `"text":""}`: the text's JSON
	// string goes in place of the empty one. Text is the last member.
	rest := *a
	rest.Text = ""
	out, err := jsonwire.Append(dst, &rest)
	if err != nil || !bytes.HasSuffix(out, []byte(`"text":""}`)) {
		return jsonwire.Append(dst, v)
	}
	out = append(out[:len(out)-3], c.jsonString(a)...)
	return append(out, '}'), nil
}
