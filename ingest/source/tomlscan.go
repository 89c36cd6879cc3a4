package source

import (
	"context"
	"fmt"

	"github.com/turnzerocloud/tzctx/ingest/manifest"
	"github.com/turnzerocloud/tzctx/ingest/sitefs"
)

// The TOML parser (github.com/BurntSushi/toml) writes out every key's
// full dotted name, and the name of every table a dotted key or a header
// implies, as it goes, and nests a call for each array and inline table.
// Its memory and time so grow with the square of a file's nesting (a
// 40 KB book.toml of nested inline tables took 4 GB), and with the length
// of a table's name times the number of keys under it. It has no bound of
// its own, so scanTOML bounds its input before it parses: it reads the
// file as the parser's lexer does (strings of the four kinds, comments,
// dotted keys, headers, arrays and inline tables) and counts
//
//   - the levels each value sits at: every part of its dotted key and of
//     its table's header, and every array or inline table around it,
//     against Options.MaxDepth;
//   - the entries the parser records: each key, and each table a dotted
//     key or header implies, as many as the levels it sits at (the parser
//     keeps its full name, part by part), each value of an array one,
//     against Options.MaxNodes;
//   - the bytes of the names the parser writes out (each key's full name
//     and each implied table's), against Options.MaxFileBytes.
//
// What the scan does not follow is not valid TOML and is refused; the
// parser would refuse it at the same place. The scan's own time and
// memory are linear in the file, and it stops at ctx's cancellation.
type tomlScan struct {
	ctx   context.Context
	file  string
	data  []byte
	opts  Options
	pos   int
	line  int
	steps int
	nodes int
	names int64 // bytes of the names the parser writes out
}

// tomlCtxEvery is how many scan steps pass between two looks at the
// context.
const tomlCtxEvery = 1024

// scanTOML checks data, the TOML file file, against the bounds of opts
// before the parser reads it. Its error is a *Error naming the bound, or
// ctx's error.
func scanTOML(ctx context.Context, file string, data []byte, opts Options) error {
	s := &tomlScan{ctx: ctx, file: file, data: data, opts: opts.withDefaults(), line: 1}
	return s.document()
}

// tomlPath is the dotted name a value sits under: its parts, the bytes of
// its written-out name, and the levels it sits at (its parts and the
// arrays and inline tables around it).
type tomlPath struct {
	parts  int
	bytes  int64
	levels int
}

func (s *tomlScan) document() error {
	var table tomlPath
	for {
		if err := s.step(); err != nil {
			return err
		}
		s.skipSpace(true)
		if s.pos >= len(s.data) {
			return nil
		}
		if s.data[s.pos] == '[' {
			s.pos++
			array := s.peek('[')
			if array {
				s.pos++
			}
			header, err := s.key(tomlPath{}, true)
			if err != nil {
				return err
			}
			if !s.peek(']') || array && !s.peekAt(1, ']') {
				return s.syntax("a table header is not closed by ]")
			}
			s.pos++
			if array {
				s.pos++
			}
			table = header
		} else {
			p, err := s.key(table, false)
			if err != nil {
				return err
			}
			if err := s.value(p); err != nil {
				return err
			}
		}
		s.skipSpace(false)
		if s.pos < len(s.data) && !isTOMLNewline(s.data[s.pos]) && s.data[s.pos] != '#' {
			return s.syntax("a key/value pair or table header is followed by more on its line")
		}
	}
}

// key reads a dotted key (of a header, or of a pair and the = after it)
// under the path at, counting what the parser builds of it. It returns
// the key's full path.
func (s *tomlScan) key(at tomlPath, header bool) (tomlPath, error) {
	p := at
	for {
		s.skipSpace(false)
		start := s.pos
		if err := s.keyPart(); err != nil {
			return p, err
		}
		p.parts++
		p.levels++
		p.bytes += int64(s.pos-start) + 1
		if p.levels > s.opts.MaxDepth {
			return p, s.tooDeep()
		}
		// The parser writes out the name of each table the key implies, and
		// keeps the key's name part by part.
		if err := s.count(p.levels, p.bytes); err != nil {
			return p, err
		}
		s.skipSpace(false)
		if !s.peek('.') {
			break
		}
		s.pos++
	}
	// …and the key's full name once more, as its type's key.
	if err := s.count(0, p.bytes); err != nil {
		return p, err
	}
	if header {
		return p, nil
	}
	if !s.peek('=') {
		return p, s.syntax("a key is not followed by =")
	}
	s.pos++
	s.skipSpace(false)
	return p, nil
}

// keyPart reads one part of a dotted key: bare, or a one-line string.
func (s *tomlScan) keyPart() error {
	if s.peek('"') || s.peek('\'') {
		return s.quoted(false)
	}
	return s.bare(isTOMLKeyEnd, "a key is missing")
}

// value reads the value of the key at path p.
func (s *tomlScan) value(p tomlPath) error {
	if err := s.step(); err != nil {
		return err
	}
	switch {
	case s.peek('"') || s.peek('\''):
		return s.quoted(true)
	case s.peek('['):
		return s.array(p)
	case s.peek('{'):
		return s.inlineTable(p)
	}
	return s.bare(isTOMLValueEnd, "a value is missing")
}

// quoted reads a string, multi-line only where multi allows.
func (s *tomlScan) quoted(multi bool) error {
	q := s.data[s.pos]
	if !s.peekAt(1, q) || !s.peekAt(2, q) {
		return s.oneLineString(q)
	}
	if !multi {
		return s.syntax("a key is a multi-line string")
	}
	return s.multiLineString(q)
}

// bare reads a run of bytes up to one end reports, refusing an empty one
// as missing.
func (s *tomlScan) bare(end func(byte) bool, missing string) error {
	start := s.pos
	for s.pos < len(s.data) && !end(s.data[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return s.syntax(missing)
	}
	return nil
}

// array reads an array, a level deeper than p; its values count an
// entry each.
func (s *tomlScan) array(p tomlPath) error {
	return s.container(p, ']', "an array's values are not separated by commas or closed by ]", func(in tomlPath) error {
		if err := s.value(in); err != nil {
			return err
		}
		return s.count(1, 0)
	})
}

// inlineTable reads an inline table, a level deeper than p, its keys
// under p's name.
func (s *tomlScan) inlineTable(p tomlPath) error {
	return s.container(p, '}', "an inline table's pairs are not separated by commas or closed by }", func(in tomlPath) error {
		k, err := s.key(in, false)
		if err != nil {
			return err
		}
		return s.value(k)
	})
}

// container reads an array or inline table a level deeper than p, from
// its opening bracket to close: each item, read by item under the deeper
// path, is followed by a comma or close (line ends and comments allowed
// between, a trailing comma too, as the parser allows them); what names
// the fault where neither follows.
func (s *tomlScan) container(p tomlPath, close byte, what string, item func(in tomlPath) error) error {
	s.pos++
	if err := s.deeper(&p); err != nil {
		return err
	}
	for {
		if err := s.step(); err != nil {
			return err
		}
		s.skipSpace(true)
		if s.peek(close) {
			s.pos++
			return nil
		}
		if err := item(p); err != nil {
			return err
		}
		s.skipSpace(true)
		switch {
		case s.peek(','):
			s.pos++
		case s.peek(close):
			s.pos++
			return nil
		default:
			return s.syntax(what)
		}
	}
}

// deeper counts the level of an array or inline table.
func (s *tomlScan) deeper(p *tomlPath) error {
	if p.levels++; p.levels > s.opts.MaxDepth {
		return s.tooDeep()
	}
	return nil
}

func (s *tomlScan) tooDeep() error {
	return s.bound(fmt.Sprintf("the file nests deeper than the bound of %d levels (each part of a dotted key or of a table header, and each array or inline table, is a level)", s.opts.MaxDepth),
		"flatten it, or raise the bound with --max-nav-depth", manifest.ErrTooDeep)
}

// oneLineString reads a basic ("…", with backslash escapes) or literal
// ('…') string that ends on its line.
func (s *tomlScan) oneLineString(q byte) error {
	s.pos++
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == q:
			s.pos++
			return nil
		case isTOMLNewline(c):
			return s.syntax("a string is not closed on its line")
		case c == '\\' && q == '"':
			s.pos++
			if s.pos < len(s.data) && isTOMLNewline(s.data[s.pos]) {
				return s.syntax("a string is not closed on its line")
			}
		}
		s.pos++
	}
	return s.syntax("a string is not closed")
}

// multiLineString reads a multi-line string, basic (between three double
// quotes, with backslash escapes) or literal (between three single
// quotes); up to two more quotes after the closing three are the
// string's.
func (s *tomlScan) multiLineString(q byte) error {
	s.pos += 3
	for s.pos < len(s.data) {
		if err := s.step(); err != nil {
			return err
		}
		c := s.data[s.pos]
		switch {
		case c == '\n':
			s.line++
		case c == '\\' && q == '"':
			s.pos++
			if s.pos < len(s.data) && s.data[s.pos] == '\n' {
				s.line++
			}
		case c == q && s.peekAt(1, q) && s.peekAt(2, q):
			s.pos += 3
			for i := 0; i < 2 && s.peek(q); i++ {
				s.pos++
			}
			return nil
		}
		s.pos++
	}
	return s.syntax("a multi-line string is not closed")
}

// skipSpace skips spaces, tabs and comments, and with lines line ends.
func (s *tomlScan) skipSpace(lines bool) {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == ' ' || c == '\t':
		case c == '#':
			for s.pos < len(s.data) && !isTOMLNewline(s.data[s.pos]) {
				s.pos++
			}
			continue
		case isTOMLNewline(c) && lines:
			if c == '\n' {
				s.line++
			}
		default:
			return
		}
		s.pos++
	}
}

func (s *tomlScan) peek(c byte) bool { return s.peekAt(0, c) }

func (s *tomlScan) peekAt(i int, c byte) bool {
	return s.pos+i < len(s.data) && s.data[s.pos+i] == c
}

// step counts a step of the scan, looking at the context every
// tomlCtxEvery steps (the first included).
func (s *tomlScan) step() error {
	s.steps++
	if s.steps%tomlCtxEvery == 1 {
		return s.ctx.Err()
	}
	return nil
}

// count adds entries and name bytes the parser will record, refusing past
// the bounds.
func (s *tomlScan) count(nodes int, names int64) error {
	s.nodes += nodes
	s.names += names
	if s.nodes > s.opts.MaxNodes {
		return s.bound(fmt.Sprintf("the file has more than %d entries (each key, and each table a dotted key implies, counts once for each level it sits at)", s.opts.MaxNodes),
			"shorten it, or raise the bound with --max-nav-nodes", manifest.ErrTooManyNodes)
	}
	if s.names > s.opts.MaxFileBytes {
		return s.bound(fmt.Sprintf("the full names of the file's keys and of the tables they imply, which the TOML parser writes out one by one, come to more than %d bytes (a long table name repeated by each key under it)", s.opts.MaxFileBytes),
			"shorten the names, or raise the bound with --max-manifest-bytes", sitefs.ErrTooLarge)
	}
	return nil
}

func (s *tomlScan) bound(problem, fix string, kind error) error {
	return &Error{File: s.file, Line: s.line, Problem: problem, Fix: fix, Err: kind}
}

func (s *tomlScan) syntax(problem string) error {
	return &Error{File: s.file, Line: s.line, Problem: "the file is not valid TOML: " + problem, Fix: "fix the TOML"}
}

func isTOMLNewline(c byte) bool { return c == '\n' || c == '\r' }

// isTOMLKeyEnd reports whether c ends a bare key part. The parser takes
// fewer bytes in a bare key; one it does not take is refused by it.
func isTOMLKeyEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '.', '=', '[', ']', '{', '}', '"', '\'', '#', ',':
		return true
	}
	return false
}

// isTOMLValueEnd reports whether c ends a number, boolean or date (which
// may hold a space, "1979-05-27 07:32:00"). A bracket or quote inside one
// is refused by the parser where it stands.
func isTOMLValueEnd(c byte) bool {
	switch c {
	case ',', ']', '}', '#', '\n', '\r':
		return true
	}
	return false
}
