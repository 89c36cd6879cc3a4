// The search rule of the served-context contract (CTX-07, readings A-10
// to ), as this build reads it, computed in the browser so the
// console can show why a page ranked where it did. Every function here
// follows the Go server's own: strings.ToLower (per code point, no
// final-sigma rule, İ to i), strings.Fields over Unicode White_Space,
// the rule-code form, and the one fence scanner's ATX headings.

// GO_SPACE is Go's unicode.IsSpace set, stated explicitly: JavaScript's
// \s differs on U+0085 and U+FEFF.
const SPACE_CLASS = '\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const GO_SPACE = new RegExp('[' + SPACE_CLASS + ']+', 'u');
const GO_TRIM = new RegExp('^[' + SPACE_CLASS + ']+|[' + SPACE_CLASS + ']+$', 'gu');
const RULE_CODE = /^(?:[a-z][a-z0-9]*:)?[A-Z][A-Z0-9]*(?:-[A-Z]+[0-9]+)?-[0-9]+$/;

// goLower lower-cases s one code point at a time, as Go's
// strings.ToLower does: a code point whose full lower-case mapping is
// longer (only U+0130) keeps its first code point, and no context rule
// (final sigma) applies.
export function goLower(s) {
  let out = '';
  for (const ch of s) {
    const l = ch.toLowerCase();
    if (l.length === ch.length || [...l].length === 1) {
      out += l;
    } else {
      out += [...l][0];
    }
  }
  return out;
}

// goFields splits s on runs of Unicode White_Space, dropping empty words.
export function goFields(s) {
  return s.split(GO_SPACE).filter((w) => w !== '');
}

// ruleCode answers the rule code a raw query is, or '': the trimmed
// query, one balanced pair of enclosing parentheses removed, matching
// the upper-case rule-code form.
export function ruleCode(raw) {
  let q = raw.replace(GO_TRIM, '');
  if (q.length >= 2 && q[0] === '(' && q[q.length - 1] === ')') {
    q = q.slice(1, -1);
  }
  return RULE_CODE.test(q) ? q : '';
}

// queryWords answers the words a raw query searches: the bare code of a
// rule code, lower-cased, else the lower-cased whitespace-separated
// words, repeats kept.
export function queryWords(raw) {
  const code = ruleCode(raw);
  if (code) {
    return [goLower(code)];
  }
  return goFields(goLower(raw));
}

function indent(s) {
  let i = 0;
  while (i < s.length && s[i] === ' ') {
    i++;
    if (i > 3) {
      return -1;
    }
  }
  return i;
}

function fenceOpener(c) {
  const i = indent(c);
  if (i < 0 || i >= c.length) {
    return null;
  }
  const ch = c[i];
  if (ch !== '`' && ch !== '~') {
    return null;
  }
  let j = i;
  while (j < c.length && c[j] === ch) {
    j++;
  }
  if (j - i < 3) {
    return null;
  }
  if (ch === '`' && c.slice(j).includes('`')) {
    return null;
  }
  return { ch, n: j - i };
}

function fenceCloser(c, ch, n) {
  const i = indent(c);
  if (i < 0) {
    return false;
  }
  let j = i;
  while (j < c.length && c[j] === ch) {
    j++;
  }
  if (j - i < n) {
    return false;
  }
  return c.slice(j).replace(/^[ \t]+|[ \t]+$/g, '') === '';
}

function commentOpener(c) {
  const i = indent(c);
  return i >= 0 && c.slice(i).startsWith('<!--');
}

function headingText(rest) {
  let t = rest.replace(/^[ \t]+|[ \t]+$/g, '');
  let k = t.length;
  while (k > 0 && t[k - 1] === '#') {
    k--;
  }
  if (k === t.length) {
    return t;
  }
  if (k === 0) {
    return '';
  }
  if (t[k - 1] === ' ' || t[k - 1] === '\t') {
    return t.slice(0, k).replace(/[ \t]+$/, '');
  }
  return t;
}

function parseATX(c) {
  const i = indent(c);
  if (i < 0 || i >= c.length || c[i] !== '#') {
    return null;
  }
  let j = i;
  while (j < c.length && c[j] === '#') {
    j++;
  }
  const depth = j - i;
  if (depth > 6) {
    return null;
  }
  if (j < c.length && c[j] !== ' ' && c[j] !== '\t') {
    return null;
  }
  return { depth, text: headingText(c.slice(j)) };
}

// atxHeadings answers every ATX heading of a Markdown text outside fenced
// code, in order, as the server's fence scanner finds them: fences and
// block-level HTML comments in one pass, a heading line inside a comment
// still counting.
export function atxHeadings(text) {
  const out = [];
  const lines = text.split('\n');
  let state = 'normal';
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    let c = lines[i];
    if (i < lines.length - 1 && c.endsWith('\r')) {
      c = c.slice(0, -1);
    }
    if (state === 'fence') {
      if (fenceCloser(c, fence.ch, fence.n)) {
        state = 'normal';
      }
      continue;
    }
    if (state === 'comment') {
      const h = parseATX(c);
      if (h) {
        out.push(h);
      }
      if (c.includes('-->')) {
        state = 'normal';
      }
      continue;
    }
    const f = fenceOpener(c);
    if (f) {
      state = 'fence';
      fence = f;
    } else if (commentOpener(c)) {
      if (!c.includes('-->')) {
        state = 'comment';
      }
    } else {
      const h = parseATX(c);
      if (h) {
        out.push(h);
      }
    }
  }
  return out;
}

// breakdown scores one page for words by the contract's rule: per word, 3
// where the lower-cased title holds it, 2 where a heading below the title
// (depth 2 or deeper, outside fences) does, 1 where the raw Markdown copy
// does; a repeated word counts again.
export function breakdown(words, title, copy) {
  const t = goLower(title);
  const hs = atxHeadings(copy)
    .filter((h) => h.depth >= 2)
    .map((h) => goLower(h.text) + '\n')
    .join('');
  const body = goLower(copy);
  const rows = words.map((w) => {
    const r = { word: w, title: t.includes(w) ? 3 : 0, heading: hs.includes(w) ? 2 : 0, body: body.includes(w) ? 1 : 0 };
    r.sum = r.title + r.heading + r.body;
    return r;
  });
  return { rows, total: rows.reduce((a, r) => a + r.sum, 0) };
}

// SEARCH_LINE is one answer line: "- [title](route): snippet", the
// snippet and its space absent where no line of the copy holds a word.
const SEARCH_LINE = /^- \[(.*?)\]\((\/[^()\s]*)\):(?: (.*))?$/;

// parseSearch splits a whole search answer into its preface (a rule-code
// query's first line, else '') and its result lines.
export function parseSearch(text) {
  const lines = text.split('\n').filter((l) => l !== '');
  let preface = '';
  const results = [];
  for (const l of lines) {
    const m = SEARCH_LINE.exec(l);
    if (m) {
      results.push({ title: m[1], route: m[2], snippet: m[3] || '' });
    } else if (results.length === 0 && preface === '') {
      preface = l;
    } else {
      results.push({ title: l, route: '', snippet: '', unparsed: true });
    }
  }
  return { preface, results };
}
