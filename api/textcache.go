package api

import (
	"bytes"
	"container/list"
	"sync"

	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
)

// storedText is an answer whose text may be a stored one (query.Answer):
// what the cache needs of it, defined here so the front end reads answers
// through the dispatcher alone.
type storedText interface {
	// StoredText returns the text and the stamp, offset and code points
	// that name its bytes, ok false where the text was composed for the
	// call (a search's answer).
	StoredText() (text, stamp string, offset, count int, ok bool)
	// WithoutText returns a copy of the answer whose text, its last
	// member, is empty.
	WithoutText() any
}

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

// jsonString returns the JSON string form of text, named by k, from the
// cache or encoded and kept.
func (c *textCache) jsonString(k textKey, text string) []byte {
	c.mu.Lock()
	if e, ok := c.m[k]; ok {
		c.lru.MoveToFront(e)
		enc := e.Value.(*textEntry).enc
		c.mu.Unlock()
		return enc
	}
	c.mu.Unlock()
	enc := jsonwire.AppendString(make([]byte, 0, len(text)+len(text)/16+2), text)
	cost := int64(cap(enc)+len(k.stamp)) + entryOverhead // the buffer held, not only its bytes
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
		c.size -= int64(cap(oe.enc)+len(oe.key.stamp)) + entryOverhead
	}
	return enc
}

// appendAnswer appends the JSON of v as jsonwire.Append does, taking the
// text of a text read's answer from the cache (c nil: none).
func (c *textCache) appendAnswer(dst []byte, v any) ([]byte, error) {
	a, ok := v.(storedText)
	if c == nil || !ok {
		return jsonwire.Append(dst, v)
	}
	// A text composed for the call (a search's answer) is never kept: it
	// is derived from the caller's words, which no cache holds.
	text, stamp, offset, count, stored := a.StoredText()
	if !stored || len(text) < minCachedText {
		return jsonwire.Append(dst, v)
	}
	// The answer without its text ends `"text":""}`: the text's JSON
	// string goes in place of the empty one. Text is the last member.
	out, err := jsonwire.Append(dst, a.WithoutText())
	if err != nil || !bytes.HasSuffix(out, []byte(`"text":""}`)) {
		return jsonwire.Append(dst, v)
	}
	out = append(out[:len(out)-3], c.jsonString(textKey{stamp, offset, count}, text)...)
	return append(out, '}'), nil
}
