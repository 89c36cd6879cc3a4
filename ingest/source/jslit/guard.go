package jslit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// The parsers that read navigation written as JavaScript or TypeScript
// (esbuild's, tdewolff's and this package's evaluator) recurse once or more for each level of nesting,
// and esbuild's cannot be bounded from outside: a module nested half a
// million deep ends the process with a stack overflow, which no recover
// catches. So every such module is scanned first, in one pass over its
// tokens (tdewolff's lexer, which reads strings, template literals,
// comments and regular expressions as esbuild does), and refused before
// any parser meets it where the scan counts more nesting than the bound.
//
// The scan counts, as nesting, everything a parser can nest on: each open
// bracket, and within a bracket every operator and operator keyword
// (unary - + ! ~ typeof void delete await new yield ..., binary and
// assignment operators, ?, :, =>, ., ?., a closing bracket that ends a
// call or index, a template literal), pending until a comma, a semicolon
// or a statement's end (a line break between the end of one operand and
// the start of another, where the language inserts a semicolon) at that
// bracket's level closes them; if, else, for, while, do and with, and
// TypeScript's type arguments (< not yet closed by >), are pending until
// the bracket closes. That count is never below the nesting any of the
// parsers reaches, so a module the scan lets through cannot nest deeper
// than the bound. Where the tokens could be read two ways (a / after a
// ) or } may divide or start a regular expression), the scan reads them
// the way that counts more, or refuses the module where the two readings
// would not meet again on the same line. JSX is refused: navigation is
// data.
//
// The scan also bounds the module's tokens, so that what the parsers
// build (esbuild's syntax tree takes some 150 bytes a token) grows with
// the file within a stated bound, and it checks ctx every 4,096 tokens.

// jsSyntaxDepthPerDepth scales Limits.MaxDepth (--max-nav-depth) into
// the nesting the scan lets the parsers meet: a navigation value's level
// takes a few brackets and operators, so a module nesting more than
// MaxDepth×16 is refused unparsed.
const jsSyntaxDepthPerDepth = 16

// jsTokensPerNode and jsTokensBase scale Limits.MaxNodes
// (--max-nav-nodes) into the tokens a module may hold: a value takes a
// few tokens (a key, a colon, the value, a comma) and the code around the
// values some more, so a module of more than MaxNodes×8+4,096 tokens is
// refused unparsed.
const (
	jsTokensPerNode = 8
	jsTokensBase    = 4096
)

// ErrBound is a module over the node or depth bound.
var ErrBound = errors.New("over the bound")

// ErrUnread is a module the scan refuses to hand to a parser though it
// is within the bounds: bytes that are not UTF-8, JSX, a / that reads two
// ways, a lexical error or a closing bracket that closes nothing.
var ErrUnread = errors.New("not read as navigation data")

// jsScanLevel is one open bracket of the scan (the module itself at the
// bottom) and the nesting pending inside it.
type jsScanLevel struct {
	open    byte // '(', '[', '{', '$' (a template's ${) or 0 for the module
	pending int  // operators since the last comma, semicolon or statement end
	stmts   int  // if, else, for, while, do and with
	angle   int  // < not yet closed by >
}

func (l jsScanLevel) depth() int { return 1 + l.pending + l.stmts + l.angle }

// What a / after a token is.
const (
	jsSlashRegExp = iota // an operand may start here: a regular expression
	jsSlashDivide        // an operand ended here: a division
	jsSlashEither        // either, depending on what the parser knows
)

// jsStatementWords nest a statement in the next; they are pending until
// their bracket closes.
var jsStatementWords = map[js.TokenType]bool{js.IfToken: true, js.ElseToken: true, js.ForToken: true, js.WhileToken: true, js.DoToken: true, js.WithToken: true}

// jsPrefixWords are the words after which an operand follows (and that a
// parser nests on), as opposed to a name that ends one. A line break
// after one does not end the statement for this scan.
var jsPrefixWords = map[string]bool{
	"typeof": true, "void": true, "delete": true, "await": true, "new": true, "yield": true,
	"in": true, "instanceof": true, "of": true, "return": true, "throw": true, "case": true,
	"extends": true, "implements": true, "as": true, "satisfies": true, "is": true,
	"keyof": true, "readonly": true, "unique": true, "infer": true, "asserts": true,
	"async": true, "get": true, "set": true, "static": true, "declare": true, "abstract": true,
	"public": true, "private": true, "protected": true, "override": true, "accessor": true,
	"let": true, "const": true, "var": true, "type": true, "namespace": true, "module": true,
	"interface": true, "enum": true, "export": true, "import": true, "default": true, "from": true,
	"class": true, "function": true,
}

// jsContinueWords continue an expression on the next line (a line break
// before one ends no statement).
var jsContinueWords = map[string]bool{"in": true, "instanceof": true, "of": true, "as": true, "satisfies": true, "extends": true, "implements": true, "is": true, "from": true}

// jsEitherWords are the reserved words among jsPrefixWords that may
// also be a name (a division follows) or, in TypeScript, end a type (as
// const, void); every word of jsPrefixWords that is not reserved is read
// so too.
var jsEitherWords = map[string]bool{"of": true, "await": true, "yield": true, "void": true, "const": true, "let": true}

// Guard scans the module src (named name for errors) and refuses it,
// with an error naming the line, the bound and the flag, where it nests
// deeper than lim.MaxDepth×16, holds more than lim.MaxNodes×8+4,096
// tokens, or cannot be read safely (bytes that are not UTF-8, JSX where
// jsx is set, a / that reads two ways, a lexical error, a closing bracket
// that closes nothing); its zero bounds take their defaults.
func Guard(ctx context.Context, name string, src []byte, jsx bool, lim Limits) error {
	lim = lim.WithDefaults()
	_, err := Scan(ctx, name, src, jsx, lim.MaxDepth*jsSyntaxDepthPerDepth, lim.MaxNodes*jsTokensPerNode+jsTokensBase)
	return err
}

// Scan is Guard's scan with its bounds given: it returns the deepest
// nesting it counted, for a test to hold against a parser's.
func Scan(ctx context.Context, name string, src []byte, jsx bool, maxDepth, maxTokens int) (peak int, err error) {
	// esbuild's Transform, asked for a source map, never returns on a
	// byte that is not UTF-8 (in a string: '\xe8'), so such a module is
	// refused before it.
	if !utf8.Valid(src) {
		bad := 0
		for bad < len(src) {
			r, n := utf8.DecodeRune(src[bad:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			bad += n
		}
		return 0, fmt.Errorf("%s line %d: the byte 0x%02x is not UTF-8 (%w): save the module as UTF-8", name, 1+bytes.Count(src[:bad], []byte("\n")), src[bad], ErrUnread)
	}
	// A hashbang line is a comment to esbuild, and only at the start.
	start := 0
	if bytes.HasPrefix(src, []byte("#!")) {
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			start = i
		} else {
			start = len(src)
		}
	}
	// The lexer reads a copy: parse's input appends a NUL in place.
	buf := make([]byte, len(src)-start, len(src)-start+1)
	copy(buf, src[start:])
	lx := js.NewLexer(parse.NewInputBytes(buf))
	stack := []jsScanLevel{{}}
	total := 1
	line := 1 + bytes.Count(src[:start], []byte("\n"))
	off := 0
	tokens := 0
	slash := jsSlashRegExp
	ends := false   // the last token ended an operand (for a statement's end)
	newline := true // a line break since the last token
	// deeper adds n to what is pending at the innermost bracket (callers
	// that count elsewhere, statements or type arguments, pass the 1 they
	// added as 0) and refuses the module past the bound.
	deeper := func(n int) error {
		stack[len(stack)-1].pending += n
		total += n
		if total > maxDepth {
			return fmt.Errorf("%s line %d: the module nests deeper than %d (brackets, operators, conditionals and chains, counted before parsing; %w): a navigation module is refused unparsed; flatten it or raise --max-nav-depth (the bound is 16 times it)", name, line, maxDepth, ErrBound)
		}
		return nil
	}
	unread := func(what string) error {
		return fmt.Errorf("%s line %d: %s (%w)", name, line, what, ErrUnread)
	}
	for {
		tt, data := lx.Next()
		at := off
		if tt == js.ErrorToken {
			if lx.Err() == io.EOF {
				return peak, nil
			}
			if string(data) != "@" {
				return peak, unread(fmt.Sprintf("%s: fix the module's syntax", jsOneLine(lx.Err().Error())))
			}
		}
		switch tt {
		case js.WhitespaceToken, js.CommentToken:
			off += len(data)
			continue
		case js.LineTerminatorToken, js.CommentLineTerminatorToken:
			off += len(data)
			line += bytes.Count(data, []byte("\n"))
			newline = true
			continue
		}
		if tokens++; tokens > maxTokens {
			return peak, fmt.Errorf("%s line %d: the module holds more than %d tokens (%d for each of --max-nav-nodes' values, and %d; %w): a navigation module is refused unparsed; shorten it or raise --max-nav-nodes", name, line, maxTokens, jsTokensPerNode, jsTokensBase, ErrBound)
		}
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return peak, err
			}
		}
		if tt == js.DivToken || tt == js.DivEqToken {
			how := slash
			if how == jsSlashDivide && newline {
				// TypeScript ends a type at a line break before a /
				// that could not continue it.
				how = jsSlashEither
			}
			if how == jsSlashEither {
				switch jsSlashReadings(buf, at) {
				case jsSlashDivide:
					how = jsSlashDivide
				case jsSlashEither:
					return peak, unread("a / here reads both as a division and as a regular expression, and the two readings do not meet again: put the regular expression in parentheses, or the division's operands")
				}
			}
			if how == jsSlashRegExp {
				if tt, data = lx.RegExp(); tt == js.ErrorToken {
					return peak, unread("a regular expression is not closed on its line: fix the module's syntax")
				}
			}
		}
		off = at + len(data)
		top := &stack[len(stack)-1]
		// A line break between the end of one operand and a name or a
		// literal ends the statement: what was pending is closed.
		word := js.IsIdentifierName(tt)
		if newline && ends && (word && !jsContinueWords[string(data)] || tt == js.StringToken || js.IsNumeric(tt)) {
			total -= top.pending
			top.pending = 0
		}
		nl := newline
		newline = false
		switch {
		case word:
			switch {
			case jsStatementWords[tt]:
				top.stmts++
				total++
				err = deeper(0)
				slash, ends = jsSlashRegExp, false
			case jsPrefixWords[string(data)]:
				err = deeper(1)
				slash, ends = jsSlashRegExp, false
				if jsEitherWords[string(data)] || js.IsIdentifier(tt) {
					// A word that is not reserved (async, of, get,
					// module, ...) may be a name, which a division
					// follows.
					slash = jsSlashEither
				}
			case js.IsReservedWord(tt) && tt != js.ThisToken && tt != js.SuperToken && tt != js.NullToken && tt != js.TrueToken && tt != js.FalseToken:
				// break, continue, debugger, try, catch, finally, switch.
				slash, ends = jsSlashRegExp, false
			default:
				slash, ends = jsSlashDivide, true
			}
		case tt == js.StringToken || js.IsNumeric(tt) || tt == js.RegExpToken || tt == js.PrivateIdentifierToken:
			slash, ends = jsSlashDivide, true
		case tt == js.TemplateToken:
			// A template after an operand is a tagged template: a call.
			err = deeper(1)
			slash, ends = jsSlashDivide, true
		case tt == js.TemplateStartToken:
			if err = deeper(1); err == nil {
				err = jsScanOpen(&stack, &total, '$', maxDepth, name, line)
			}
			slash, ends = jsSlashRegExp, false
		case tt == js.TemplateMiddleToken:
			if err = jsScanClose(&stack, &total, '$', name, line); err == nil {
				err = jsScanOpen(&stack, &total, '$', maxDepth, name, line)
			}
			slash, ends = jsSlashRegExp, false
		case tt == js.TemplateEndToken:
			err = jsScanClose(&stack, &total, '$', name, line)
			slash, ends = jsSlashDivide, true
		case tt == js.OpenParenToken || tt == js.OpenBracketToken || tt == js.OpenBraceToken:
			err = jsScanOpen(&stack, &total, data[0], maxDepth, name, line)
			slash, ends = jsSlashRegExp, false
		case tt == js.CloseParenToken || tt == js.CloseBracketToken || tt == js.CloseBraceToken:
			open := map[js.TokenType]byte{js.CloseParenToken: '(', js.CloseBracketToken: '[', js.CloseBraceToken: '{'}[tt]
			if err = jsScanClose(&stack, &total, open, name, line); err == nil {
				// What follows may call or index what the bracket
				// closed: a chain the parsers nest on.
				err = deeper(1)
			}
			slash, ends = jsSlashEither, true
			if tt == js.CloseBracketToken {
				slash = jsSlashDivide
			}
		case tt == js.CommaToken || tt == js.SemicolonToken:
			total -= top.pending
			top.pending = 0
			slash, ends = jsSlashRegExp, false
		case tt == js.LtToken || tt == js.LtLtToken:
			if jsx && (slash != jsSlashDivide || nl) {
				return peak, unread("JSX, which tzctx does not read in a navigation module: write the navigation as data (strings, objects, arrays)")
			}
			n := len(data)
			top.angle += n
			total += n
			err = deeper(0)
			slash, ends = jsSlashRegExp, false
		case tt == js.GtToken || tt == js.GtGtToken || tt == js.GtGtGtToken || tt == js.GtEqToken || tt == js.GtGtEqToken || tt == js.GtGtGtEqToken:
			// In a type, > closes a type argument list; elsewhere it is
			// an operator.
			n := bytes.Count(data, []byte(">"))
			closed := min(n, top.angle)
			top.angle -= closed
			total -= closed
			if closed < n || tt == js.GtEqToken || tt == js.GtGtEqToken || tt == js.GtGtGtEqToken {
				err = deeper(1)
			}
			slash, ends = jsSlashEither, false
		case tt == js.NotToken || tt == js.IncrToken || tt == js.DecrToken:
			// Right after an operand on its line, ! is TypeScript's
			// non-null assertion and ++ and -- are postfix, and an
			// operand has ended; else they are prefix operators.
			err = deeper(1)
			slash = jsSlashRegExp
			if ends && !nl {
				slash = jsSlashDivide
			}
			ends = false
		default:
			// Every other operator and punctuator (. ?. ? : => ... @ and
			// the binary and assignment operators).
			err = deeper(1)
			slash, ends = jsSlashRegExp, false
		}
		peak = max(peak, total)
		if err != nil {
			return peak, err
		}
		if tt == js.TemplateToken || tt == js.StringToken || tt == js.TemplateEndToken {
			line += bytes.Count(data, []byte("\n"))
		}
	}
}

// jsScanOpen opens a bracket of the scan.
func jsScanOpen(stack *[]jsScanLevel, total *int, open byte, maxDepth int, name string, line int) error {
	*stack = append(*stack, jsScanLevel{open: open})
	*total++
	if *total > maxDepth {
		return fmt.Errorf("%s line %d: the module nests deeper than %d (brackets, operators, conditionals and chains, counted before parsing; %w): a navigation module is refused unparsed; flatten it or raise --max-nav-depth (the bound is 16 times it)", name, line, maxDepth, ErrBound)
	}
	return nil
}

// jsScanClose closes the innermost bracket of the scan, which must be of
// the kind open.
func jsScanClose(stack *[]jsScanLevel, total *int, open byte, name string, line int) error {
	s := *stack
	if len(s) < 2 || s[len(s)-1].open != open {
		closer := map[byte]string{'(': ")", '[': "]", '{': "}", '$': "} of a template literal"}[open]
		return fmt.Errorf("%s line %d: %s closes no bracket of its kind (%w): fix the module's syntax", name, line, closer, ErrUnread)
	}
	*total -= s[len(s)-1].depth()
	*stack = s[:len(s)-1]
	return nil
}

// jsSlashReadings tells how the / at src[at] reads where the token before
// it leaves both readings open: jsSlashDivide where reading it as a
// regular expression either fails on its line (so the parser that reads
// one refuses the module) or covers only names, numbers, spaces, dots,
// + and - and balanced brackets and ends in a name, a number or a
// closing bracket, so that read as a division the same bytes are
// operands and operators that the scan counts, and both readings meet
// again after the regular expression's flags; else jsSlashEither.
func jsSlashReadings(src []byte, at int) int {
	end := -1
	inClass := false
	for i := at + 1; i < len(src); i++ {
		c := src[i]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '\\' {
			i++
			if i < len(src) && (src[i] == '\n' || src[i] == '\r') {
				break
			}
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == ']' {
			inClass = false
		} else if c == '/' && !inClass {
			end = i
			break
		}
	}
	if end < 0 {
		return jsSlashDivide
	}
	body := src[at+1 : end]
	depth, last := 0, byte(0)
	for _, c := range body {
		switch {
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			if depth--; depth < 0 {
				return jsSlashEither
			}
		case c == ' ' || c == '\t' || c == '.' || c == '+' || c == '-' || c == '_' || c == '$' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		default:
			return jsSlashEither
		}
		if c != ' ' && c != '\t' {
			last = c
		}
	}
	if depth != 0 || last == 0 || last == '.' || last == '+' || last == '-' || last == '(' || last == '[' {
		return jsSlashEither
	}
	return jsSlashDivide
}
