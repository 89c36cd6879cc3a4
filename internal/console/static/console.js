// The tzctx console: a page that shows what an agent gets, from the
// contract's own answers. It calls POST /api/v1/actions/<action> (and GET
// /metrics for the operator panel) on its own origin with the bearer
// token typed in, which stays in this tab's session storage and is sent
// only in the Authorization header, never in a URL. Query words stay in
// this page's memory; the location hash (which a browser never sends to
// a server) holds a view, a page route and a chunk limit alone.

import { breakdown, parseSearch, queryWords } from './score.js';

const TOKEN_KEY = 'tzctx.console.token';
const LIMITS = [500, 1000, 2000, 4000, 8000, 16000];
const DEFAULT_PAGE_LIMIT = 2000;

// APIError is an action's refusal, or a failure to reach it.
class APIError extends Error {
  constructor(status, code, detail) {
    super(code + ': ' + detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

function hasToken() {
  if (!token()) {
    return false;
  }
  return true;
}

function authHeaders() {
  const h = {};
  const t = token();
  if (t) {
    h.Authorization = 'Bearer ' + t;
  }
  return h;
}

// call POSTs one action with the caller's credential and answers its
// JSON answer, or throws its refusal as an APIError.
async function call(action, body, opts = {}) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json', ...authHeaders() };
  if (opts.admin) {
    // The admin actions refuse a request without it: an HTML form
    // cannot send a header, so a forged form post is refused.
    headers['X-Tzctx-Console'] = '1';
  }
  let resp;
  try {
    resp = await fetch('/api/v1/actions/' + encodeURIComponent(action), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch (e) {
    throw new APIError(0, 'unreachable', 'the server did not answer (' + e.message + ')');
  }
  let data = null;
  try {
    data = await resp.json();
  } catch {
    throw new APIError(resp.status, 'http_' + resp.status, 'the answer is not JSON');
  }
  if (!resp.ok || (data && data.error)) {
    const err = (data && data.error) || {};
    throw new APIError(resp.status, err.code || 'http_' + resp.status, err.detail || resp.statusText);
  }
  return data;
}

// readWhole pages a text read to its end, each chunk asked at the last
// one's next_offset with its stamp, and answers the whole text.
async function readWhole(action, body) {
  let a = await call(action, body);
  let text = a.text;
  const stamp = a.stamp;
  while (a.next_offset !== null && a.next_offset !== undefined) {
    a = await call(action, { ...body, offset: a.next_offset, stamp });
    text += a.text;
  }
  return { text, stamp, total: a.total, id: a.id };
}

// pool runs fn over items, n at a time.
async function pool(items, n, fn) {
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, run));
}

// el builds an element; strings become text nodes, never markup.
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) {
      continue;
    }
    if (k === 'class') {
      e.className = v;
    } else if (k.startsWith('on')) {
      e.addEventListener(k.slice(2), v);
    } else if (v === true) {
      e.setAttribute(k, '');
    } else {
      e.setAttribute(k, String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function errorBox(err, ...extra) {
  const what = err instanceof APIError ? `${err.code} (${err.status}): ${err.detail}` : String(err);
  return el('div', { class: 'error', role: 'alert' }, el('p', {}, 'Refused: ', el('code', {}, what)), ...extra);
}

function short(stamp) {
  return stamp ? stamp.slice(0, 12) + '…' : '';
}

const main = () => document.getElementById('main');

// generation counts the views shown; a view's work that finishes after
// another view replaced it adds nothing to the page.
let generation = 0;

// view replaces the main landmark's content with a view whose heading
// takes the focus, so a keyboard user lands on it.
function view(title, ...children) {
  const h = el('h1', { tabindex: '-1', id: 'view-title' }, title);
  main().classList.remove('wide');
  main().replaceChildren(h, ...children);
  document.title = title + ' · tzctx console';
  h.focus({ preventScroll: false });
  return ++generation;
}

// Memory of the views; nothing here is stored anywhere.
const memory = {
  catalogEntries: null, // every entry, for the tree select
  catalog: { offset: 0, stamp: null, back: [] },
  search: { q: '', tree: '', answer: null },
  page: null,
};

// forgetCaller drops everything read under the last credential.
function forgetCaller() {
  memory.catalogEntries = null;
  memory.catalog = { offset: 0, stamp: null, back: [] };
  memory.search = { q: '', tree: '', answer: null };
  memory.page = null;
}

async function allEntries() {
  if (memory.catalogEntries) {
    return memory.catalogEntries;
  }
  let a = await call('list_context', {});
  const out = [...a.entries];
  while (a.next_offset !== null && a.next_offset !== undefined) {
    a = await call('list_context', { offset: a.next_offset, stamp: a.stamp });
    out.push(...a.entries);
  }
  memory.catalogEntries = out;
  return out;
}

// readableTrees answers the trees this caller may read: the trees of the
// catalog's docs:<tree> entries.
async function readableTrees() {
  const entries = await allEntries();
  return entries.filter((e) => e.tool === 'read_documentation' && e.part === 'index' && e.tree).map((e) => e.tree);
}

// ---- Catalog -------------------------------------------------------

async function showCatalog() {
  const status = el('p', { role: 'status', id: 'catalog-status' }, 'Reading the catalog…');
  const gen = view('Catalog', el('p', {}, 'The list_context answer for this credential, a page at a time as the API pages it. Each ID opens its text in the Page view, with its total and stamp.'), status);
  const c = memory.catalog;
  let a;
  try {
    a = await call('list_context', c.offset > 0 ? { offset: c.offset, stamp: c.stamp } : {});
  } catch (err) {
    if (gen !== generation) {
      return;
    }
    if (err.code === 'context_changed') {
      memory.catalog = { offset: 0, stamp: null, back: [] };
      status.replaceWith(errorBox(err, el('button', { type: 'button', onclick: () => showCatalog() }, 'Restart from the first page')));
      return;
    }
    status.replaceWith(errorBox(err));
    return;
  }
  if (gen !== generation) {
    return;
  }
  c.stamp = a.stamp;
  const last = a.offset + a.entries.length;
  status.textContent = `Entries ${a.entries.length ? a.offset + 1 : 0} to ${last} of ${a.total}; catalog stamp ${a.stamp}.`;
  // The catalog answer alone: a read of each entry for its total would
  // fill the records with the console's own calls.
  const rows = a.entries.map((e) => el('tr', { 'data-id': e.id },
    el('th', { scope: 'row', class: 'id' }, el('a', { href: idHash(e.id, DEFAULT_PAGE_LIMIT) }, el('code', {}, e.id))),
    el('td', {}, e.title || ''),
    el('td', {}, el('code', {}, e.mime_type)),
    el('td', {}, el('code', {}, e.tool || ''), e.tree ? ` (${e.tree}, ${e.part}; ${e.auth})` : '')));
  const table = el('table', { class: 'catalog' },
    el('caption', {}, 'Catalog entries'),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'ID'), el('th', { scope: 'col' }, 'Title'), el('th', { scope: 'col' }, 'MIME type'), el('th', { scope: 'col' }, 'Read with'))),
    el('tbody', {}, rows));
  const pager = el('div', { class: 'pager' },
    el('button', { type: 'button', disabled: c.back.length === 0, onclick: () => { const p = c.back.pop(); c.offset = p.offset; showCatalog(); } }, 'Previous page'),
    el('button', { type: 'button', disabled: a.next_offset === null, onclick: () => { c.back.push({ offset: c.offset }); c.offset = a.next_offset; showCatalog(); } }, 'Next page'));
  main().append(el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Catalog entries, scrollable' }, table), pager);
  status.dataset.done = 'true';
}

// ---- Search --------------------------------------------------------

async function showSearch() {
  const s = memory.search;
  const input = el('input', { type: 'search', id: 'q', name: 'q', value: s.q, autocomplete: 'off', spellcheck: 'false', required: true });
  const select = el('select', { id: 'tree', name: 'tree' }, el('option', { value: '' }, 'All readable trees'));
  const form = el('form', { role: 'search', class: 'search', 'aria-label': 'Search the documentation' },
    el('label', { for: 'q' }, 'Words'), input,
    el('label', { for: 'tree' }, 'Tree'), select,
    el('button', { type: 'submit' }, 'Search'));
  const out = el('div', { id: 'results' });
  view('Search', el('p', {}, 'read_documentation with query: the answer\'s lines, each with its score worked out here, word by word, from the contract\'s rule (title 3, heading 2, copy 1). The words stay in this page.'), form, out);
  try {
    for (const t of await readableTrees()) {
      select.append(el('option', { value: t, selected: t === s.tree }, t));
    }
  } catch (err) {
    out.replaceChildren(errorBox(err));
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    s.q = input.value;
    s.tree = select.value;
    runSearch(out);
  });
  if (s.answer) {
    renderResults(out, s.answer);
  }
}

// matchLimit is the contract's search_match_limit, the most pages a
// search answers: read once, from the limits of the served contract's
// source:schemas/served_context.json (as the overview says), so a full
// answer can say that more pages may match. Null where it cannot be read.
let matchLimit;

async function searchMatchLimit() {
  if (matchLimit === undefined) {
    try {
      const w = await readWhole('read_context', { id: 'source:schemas/served_context.json', limit: 16000 });
      const n = JSON.parse(w.text).limits.search_match_limit;
      matchLimit = Number.isInteger(n) && n > 0 ? n : null;
    } catch {
      matchLimit = null;
    }
  }
  return matchLimit;
}

// matchCount says how many pages match: where the answer holds as many
// as the contract lets one hold, more may match than it lists.
function matchCount(n, cap) {
  if (cap && n >= cap) {
    return `${cap} or more pages match; the answer lists the first ${cap} (search_match_limit), best first`;
  }
  if (!cap && n > 0) {
    return `${n} ${n === 1 ? 'page' : 'pages'} listed (an answer lists at most search_match_limit pages)`;
  }
  return `${n} ${n === 1 ? 'page matches' : 'pages match'}`;
}

async function runSearch(out) {
  const s = memory.search;
  const status = el('p', { role: 'status' }, 'Searching…');
  out.replaceChildren(status);
  const body = { query: s.q };
  if (s.tree) {
    body.tree = s.tree;
  }
  let whole;
  try {
    whole = await readWhole('read_documentation', body);
  } catch (err) {
    out.replaceChildren(errorBox(err));
    return;
  }
  const parsed = parseSearch(whole.text);
  const cap = parsed.results.length ? await searchMatchLimit() : null;
  s.answer = { ...parsed, cap, words: queryWords(s.q), total: whole.total, stamp: whole.stamp, id: whole.id, scores: new Map() };
  renderResults(out, s.answer);
}

function renderResults(out, ans) {
  const status = el('p', { role: 'status', id: 'search-status' },
    `${matchCount(ans.results.length, ans.cap)}; answer ${ans.id}, ${ans.total} code points, stamp ${short(ans.stamp)}. Working out the scores…`);
  const list = el('ol', { class: 'results' });
  const children = [status];
  if (ans.preface) {
    children.push(el('p', { class: 'preface', id: 'preface' }, ans.preface));
  }
  children.push(list);
  out.replaceChildren(...children);
  const items = ans.results.map((r, i) => {
    const score = el('div', { class: 'score' }, 'Score: working it out…');
    const li = el('li', { 'data-rank': i + 1 },
      el('h2', { class: 'result-title' }, r.route ? el('a', { href: pageHash(r.route, DEFAULT_PAGE_LIMIT) }, r.title) : r.title),
      r.route ? el('p', { class: 'route' }, el('code', {}, r.route)) : null,
      r.snippet ? el('p', { class: 'snippet' }, r.snippet) : null,
      score);
    list.append(li);
    return { r, li, score };
  });
  pool(items, 3, async ({ r, li, score }) => {
    if (!r.route) {
      return;
    }
    let b = ans.scores.get(r.route);
    if (!b) {
      try {
        const copy = await readWhole('read_documentation', { page: r.route });
        b = breakdown(ans.words, r.title, copy.text);
        ans.scores.set(r.route, b);
      } catch (err) {
        score.replaceChildren(errorBox(err));
        return;
      }
    }
    li.dataset.score = String(b.total);
    score.replaceChildren(el('table', { class: 'breakdown' },
      el('caption', {}, `Score ${b.total}, word by word`),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Word'), el('th', { scope: 'col' }, 'Title (3)'), el('th', { scope: 'col' }, 'Heading (2)'), el('th', { scope: 'col' }, 'Copy (1)'), el('th', { scope: 'col' }, 'Sum'))),
      el('tbody', {}, b.rows.map((w) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, w.word)), el('td', { class: 'num' }, w.title), el('td', { class: 'num' }, w.heading), el('td', { class: 'num' }, w.body), el('td', { class: 'num' }, w.sum))))));
  }).then(() => {
    status.textContent = status.textContent.replace('Working out the scores…', 'Scores worked out from each page\'s title, headings and copy.');
    status.dataset.done = 'true';
  });
}

// ---- Page view -----------------------------------------------------

function pageHash(route, limit) {
  const p = new URLSearchParams();
  p.set('route', route);
  p.set('limit', String(limit));
  return '#/page?' + p.toString();
}

// idHash is the Page view's location for a catalog entry, read with
// read_context by its ID.
function idHash(id, limit) {
  const p = new URLSearchParams();
  p.set('id', id);
  p.set('limit', String(limit));
  return '#/page?' + p.toString();
}

async function showPage(params) {
  // A reading names a page route (read_documentation) or a catalog ID
  // (read_context).
  let kind = 'route';
  let target = '';
  if (params.get('id') !== null) {
    kind = 'id';
    target = params.get('id');
  } else if (params.get('route') !== null) {
    target = params.get('route');
  } else if (memory.page) {
    kind = memory.page.kind;
    target = memory.page.target;
  }
  let limit = parseInt(params.get('limit') || '', 10);
  if (!LIMITS.includes(limit)) {
    limit = (memory.page && memory.page.limit) || DEFAULT_PAGE_LIMIT;
  }
  const kindSelect = el('select', { id: 'kind', name: 'kind' },
    el('option', { value: 'route', selected: kind === 'route' }, 'A page route (read_documentation)'),
    el('option', { value: 'id', selected: kind === 'id' }, 'A catalog ID (read_context)'));
  const routeInput = el('input', { type: 'text', id: 'route', name: 'route', value: target, autocomplete: 'off', spellcheck: 'false', placeholder: kind === 'id' ? 'overview' : '/cloud/reference/http/' });
  kindSelect.addEventListener('change', () => {
    routeInput.placeholder = kindSelect.value === 'id' ? 'overview' : '/cloud/reference/http/';
  });
  const limitSelect = el('select', { id: 'limit', name: 'limit' }, LIMITS.map((n) => el('option', { value: n, selected: n === limit }, String(n))));
  const form = el('form', { class: 'pageform', 'aria-label': 'Read a page' },
    el('label', { for: 'kind' }, 'Read'), kindSelect,
    el('label', { for: 'route' }, 'Route or ID'), routeInput,
    el('label', { for: 'limit' }, 'Chunk limit (code points)'), limitSelect,
    el('button', { type: 'submit' }, 'Read'));
  const out = el('div', { id: 'page-out' });
  view('Page', el('p', {}, 'read_documentation with page, or read_context with a catalog ID: the chunks exactly as paged, each boundary drawn, each continuation shown.'), form, out);
  const restart = () => {
    const k = kindSelect.value === 'id' ? 'id' : 'route';
    const r = routeInput.value.trim();
    const l = parseInt(limitSelect.value, 10);
    if (!r) {
      history.replaceState(null, '', '#/page');
      memory.page = null;
      out.replaceChildren(el('p', { role: 'status' }, k === 'id' ? 'Give a catalog ID to read.' : 'Give a page route to read.'));
      return;
    }
    history.replaceState(null, '', k === 'id' ? idHash(r, l) : pageHash(r, l));
    memory.page = { kind: k, target: r, limit: l, stamp: null, total: 0, chunks: [], next: 0, headings: null, changed: null, error: null };
    readChunk(out, 0);
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    restart();
  });
  limitSelect.addEventListener('change', restart);
  out.restart = restart;
  const m = memory.page;
  if (m && m.kind === kind && m.target === target && m.limit === limit) {
    renderPage(out);
  } else if (target) {
    restart();
  }
}

// readChunk reads the chunk at offset with the reading's stamp (none at
// 0) and appends it, or, with replace, starts the chunks over from it.
async function readChunk(out, offset, replace = false) {
  const m = memory.page;
  const body = m.kind === 'id' ? { id: m.target, limit: m.limit } : { page: m.target, limit: m.limit };
  if (offset > 0) {
    body.offset = offset;
    body.stamp = m.stamp;
  }
  m.busy = true;
  renderPage(out);
  try {
    const a = await call(m.kind === 'id' ? 'read_context' : 'read_documentation', body);
    if (replace) {
      m.chunks = [];
    }
    m.stamp = a.stamp;
    m.total = a.total;
    m.id = a.id;
    if (a.headings && a.offset === 0) {
      m.headings = a.headings;
    }
    m.chunks.push({ offset: a.offset, text: a.text, continuation: a.continuation || '', next: a.next_offset });
    m.next = a.next_offset;
    m.error = null;
  } catch (err) {
    if (err.code === 'context_changed') {
      m.changed = err;
    } else {
      m.error = err;
    }
  }
  m.busy = false;
  renderPage(out);
}

function renderPage(out) {
  const m = memory.page;
  if (!m) {
    return;
  }
  const parts = [];
  if (m.chunks.length) {
    const read = m.chunks.reduce((a, c) => a + [...c.text].length, 0);
    parts.push(el('p', { role: 'status', id: 'page-status' },
      `${m.id}: ${m.chunks.length} ${m.chunks.length === 1 ? 'chunk' : 'chunks'} shown, ${read} of ${m.total} code points; stamp ${short(m.stamp)}. ` +
      (m.next === null ? 'This is the end of the page.' : `The next chunk starts at ${m.next}.`)));
  } else if (m.busy) {
    parts.push(el('p', { role: 'status' }, 'Reading…'));
  }
  if (m.changed) {
    parts.push(el('div', { class: 'changed', role: 'alert', id: 'changed' },
      el('p', {}, 'The text changed since this reading began: the server refused the stamp (context_changed). The chunks below are from the earlier text.'),
      el('p', {}, el('code', {}, m.changed.detail)),
      el('button', { type: 'button', onclick: () => out.restart() }, 'Restart from the beginning')));
  }
  if (m.error) {
    parts.push(errorBox(m.error));
  }
  if (m.headings && m.headings.length) {
    parts.push(el('nav', { 'aria-label': 'Headings', class: 'headings' },
      el('h2', {}, 'Headings'),
      el('ul', {}, m.headings.map((h) => el('li', {},
        el('button', { type: 'button', class: 'link', 'data-offset': h.offset, disabled: m.busy || !!m.changed, onclick: () => readChunk(out, h.offset, true) }, h.text))))));
  }
  const more = m.next !== null && m.chunks.length > 0;
  const controls = el('div', { class: 'pager' },
    el('button', { type: 'button', disabled: !more || m.busy || !!m.changed, onclick: () => readChunk(out, m.next) }, 'Read on'),
    el('button', { type: 'button', disabled: !more || m.busy || !!m.changed, onclick: () => readToEnd(out) }, 'Read to the end'),
    el('button', { type: 'button', disabled: m.busy, onclick: () => out.restart() }, 'Restart'));
  const chunks = el('div', { class: 'chunks' }, m.chunks.map((c, i) => {
    const end = c.offset + [...c.text].length;
    return el('section', { class: 'chunk', 'aria-label': `Chunk ${i + 1}, code points ${c.offset} to ${end}` },
      el('p', { class: 'boundary' }, `Chunk ${i + 1}: code points ${c.offset} to ${end} of ${m.total}`),
      el('pre', { class: 'text' }, c.text),
      c.continuation ? el('p', { class: 'continuation' }, el('span', { class: 'label' }, 'Continuation: '), c.continuation) : null);
  }));
  const prevFocus = document.activeElement && document.activeElement.textContent;
  out.replaceChildren(...parts, chunks, m.chunks.length ? controls : '');
  // Keep the focus on the control a keyboard user pressed.
  if (prevFocus && document.activeElement === document.body) {
    const again = [...out.querySelectorAll('button')].find((b) => b.textContent === prevFocus && !b.disabled);
    if (again) {
      again.focus();
    }
  }
}

async function readToEnd(out) {
  const m = memory.page;
  while (m.next !== null && !m.changed && !m.error) {
    await readChunk(out, m.next);
  }
}

// ---- Operator panel ------------------------------------------------

// adminStatus answers admin_status, or null where this credential is not
// an admin one (or the server has no admin actions). An anonymous caller
// is never an admin, so it is not asked: the call would only be a
// refusal, in the records and in the browser's console.
async function adminStatus(records) {
  if (!token()) {
    return null;
  }
  try {
    return await call('admin_status', { records }, { admin: true });
  } catch (err) {
    if (err.status === 401 || err.status === 403 || err.code === 'context_not_found' || err.code === 'unauthenticated' || err.code === 'invalid_request') {
      return null;
    }
    throw err;
  }
}

async function refreshAdminNav() {
  let st = null;
  try {
    st = await adminStatus(1);
  } catch {
    st = null;
  }
  document.getElementById('nav-operator').hidden = st === null;
  return st !== null;
}

// parseMetrics reads the Prometheus text of /metrics into samples.
function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) {
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) {
      continue;
    }
    const labels = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    let l;
    while ((l = re.exec(m[2] || '')) !== null) {
      labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

// perAction sums the call metrics by action: calls, refusals (every
// outcome but ok), mean latency and the 95th percentile's bucket bound.
function perAction(samples) {
  const acts = new Map();
  const get = (a) => {
    if (!acts.has(a)) {
      acts.set(a, { action: a, calls: 0, refusals: 0, sum: 0, count: 0, buckets: [] });
    }
    return acts.get(a);
  };
  for (const s of samples) {
    const a = s.labels.action;
    if (a === undefined) {
      continue;
    }
    if (s.name === 'tzctx_calls_total') {
      const r = get(a);
      r.calls += s.value;
      if (s.labels.outcome !== 'ok') {
        r.refusals += s.value;
      }
    } else if (s.name === 'tzctx_call_duration_seconds_sum') {
      get(a).sum = s.value;
    } else if (s.name === 'tzctx_call_duration_seconds_count') {
      get(a).count = s.value;
    } else if (s.name === 'tzctx_call_duration_seconds_bucket') {
      get(a).buckets.push({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), n: s.value });
    }
  }
  for (const r of acts.values()) {
    r.buckets.sort((x, y) => x.le - y.le);
    const want = 0.95 * r.count;
    const b = r.buckets.find((x) => x.n >= want && r.count > 0);
    r.p95 = b ? b.le : null;
  }
  return [...acts.values()].sort((x, y) => x.action.localeCompare(y.action));
}

// treeCounts describes one tree of a version; code points are counted
// for the served version alone.
function treeCounts(t) {
  const cp = t.code_points === null || t.code_points === undefined ? '' : `, ${t.code_points} code points`;
  return `${t.tree}: ${t.pages} pages${cp}`;
}

function ms(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) {
    return seconds === Infinity ? 'over the last bucket' : '';
  }
  return (seconds * 1000).toFixed(seconds < 0.001 ? 3 : 1) + ' ms';
}

async function showOperator() {
  const status = el('p', { role: 'status', id: 'operator-status' }, 'Asking admin_status…');
  const gen = view('Operator', el('p', {}, 'admin_status and admin_activate, for an admin credential alone, and the call metrics from /metrics.'), status);
  // The records table has eleven columns: the panel takes the window's
  // width.
  main().classList.add('wide');
  const anonymous = !hasToken();
  let st;
  try {
    st = await adminStatus(50);
  } catch (err) {
    status.replaceWith(errorBox(err));
    return;
  }
  if (gen !== generation) {
    return;
  }
  if (st === null) {
    document.getElementById('nav-operator').hidden = true;
    status.textContent = anonymous
      ? 'The operator panel needs an admin credential: give one under Credential above.'
      : 'The operator panel needs an admin credential; this one is not (admin_status was refused).';
    return;
  }
  document.getElementById('nav-operator').hidden = false;
  status.textContent = `Active version: ${st.active ?? 'none'}; served version: ${st.served ?? 'none'}.` + (st.fault ? ` Fault: ${st.fault}` : '');
  const dialog = el('dialog', { id: 'confirm', 'aria-labelledby': 'confirm-title' });
  const result = el('div', { id: 'activate-result', role: 'status' });
  const ask = (name) => {
    // admin_status lists the versions oldest first, in the store's own
    // order (creation time to the nanosecond, then name); the created
    // member is whole seconds, so two versions made within one second
    // compare equal there, and only the list's order tells them apart.
    const place = (n) => st.versions.findIndex((v) => v.name === n);
    const active = st.versions.find((v) => v.active);
    const older = active !== undefined && place(name) < place(active.name);
    dialog.replaceChildren(
      el('h2', { id: 'confirm-title' }, older ? `Roll back to ${name}?` : `Activate ${name}?`),
      el('p', {}, `Every caller is served ${name} from its next call; a reading under the current version's stamps is refused context_changed.`),
      el('div', { class: 'pager' },
        el('button', { type: 'button', onclick: async () => {
          dialog.close();
          result.textContent = `Activating ${name}…`;
          try {
            const a = await call('admin_activate', { version: name }, { admin: true });
            result.textContent = `Activated ${a.active}; before it: ${a.previous ?? 'none'}.`;
            setTimeout(() => showOperator().then(() => {
              const r = document.getElementById('activate-result');
              if (r) {
                r.textContent = `Activated ${a.active}; before it: ${a.previous ?? 'none'}.`;
              }
            }), 0);
          } catch (err) {
            result.replaceChildren(errorBox(err));
          }
        } }, `Yes, activate ${name}`),
        el('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel')));
    dialog.showModal();
  };
  const versions = el('table', { class: 'versions' },
    el('caption', {}, 'Versions'),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Version'), el('th', { scope: 'col' }, 'State'), el('th', { scope: 'col' }, 'Created'), el('th', { scope: 'col' }, 'Trees (pages, code points)'), el('th', { scope: 'col' }, 'Action'))),
    el('tbody', {}, st.versions.map((v) => el('tr', { class: v.active ? 'active' : '', 'data-version': v.name },
      el('th', { scope: 'row' }, el('code', {}, v.name)),
      el('td', {}, [v.active ? 'active' : '', v.served ? 'served' : '', v.damaged ? 'damaged' : ''].filter(Boolean).join(', ') || '—'),
      el('td', {}, v.created || ''),
      el('td', {}, (v.trees || []).map(treeCounts).join('; ')),
      el('td', {}, v.active ? 'active' : el('button', { type: 'button', onclick: () => ask(v.name) }, `Activate ${v.name}`))))));
  const served = st.versions.find((v) => v.served);
  const counts = served
    ? el('ul', { class: 'counts', 'aria-label': 'Served version counts' }, (served.trees || []).map((t) => el('li', {}, treeCounts(t))))
    : el('p', {}, 'No version is served.');
  // A record's duration is us (microseconds); duration_us is the name
  // the interface first agreed.
  const cols = ['time', 'action', 'transport', 'subject', 'code', 'status', 'account', 'application', 'version', 'code_points', 'us'];
  const cell = (r, c) => {
    const v = c === 'us' ? r.us ?? r.duration_us : r[c];
    return v === undefined || v === null ? '' : String(v);
  };
  const recs = st.records || [];
  const records = el('table', { class: 'records' },
    el('caption', {}, `The last ${recs.length} call records, newest first (records never hold query words)`),
    el('thead', {}, el('tr', {}, cols.map((c) => el('th', { scope: 'col' }, c)))),
    el('tbody', {}, recs.map((r) => el('tr', {}, cols.map((c) => el('td', { class: 'c-' + c }, cell(r, c)))))));
  const metricsBox = el('div', { id: 'metrics' }, el('p', {}, 'Reading /metrics…'));
  main().append(
    el('section', { 'aria-labelledby': 'h-versions' }, el('h2', { id: 'h-versions' }, 'Versions'), el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Versions, scrollable' }, versions), result,
      el('h3', {}, `Served version ${served ? served.name : ''}`), counts),
    el('section', { 'aria-labelledby': 'h-metrics' }, el('h2', { id: 'h-metrics' }, 'Calls per action'), metricsBox),
    el('section', { 'aria-labelledby': 'h-records' }, el('h2', { id: 'h-records' }, 'Records'), st.records_note ? el('p', {}, st.records_note) : null, el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Records, scrollable' }, records)),
    dialog);
  try {
    const resp = await fetch('/metrics', { headers: authHeaders(), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    if (!resp.ok) {
      throw new APIError(resp.status, 'http_' + resp.status, (await resp.text()).slice(0, 300));
    }
    const rows = perAction(parseMetrics(await resp.text()));
    metricsBox.replaceChildren(el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Calls per action, scrollable' }, el('table', { class: 'metrics' },
      el('caption', {}, 'From tzctx_calls_total and tzctx_call_duration_seconds'),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Action'), el('th', { scope: 'col' }, 'Calls'), el('th', { scope: 'col' }, 'Refusals'), el('th', { scope: 'col' }, 'Mean latency'), el('th', { scope: 'col' }, '95th percentile at most'))),
      el('tbody', {}, rows.map((r) => el('tr', { 'data-action': r.action },
        el('th', { scope: 'row' }, el('code', {}, r.action)),
        el('td', { class: 'num' }, String(r.calls)),
        el('td', { class: 'num' }, String(r.refusals)),
        el('td', { class: 'num' }, r.count ? ms(r.sum / r.count) : ''),
        el('td', { class: 'num' }, ms(r.p95))))))));
  } catch (err) {
    metricsBox.replaceChildren(errorBox(err));
  }
  status.dataset.done = 'true';
}

// ---- Credential and routing ----------------------------------------

async function describeCaller() {
  const who = document.getElementById('who');
  if (!token()) {
    who.textContent = 'Reading anonymously.';
  } else {
    who.textContent = 'Reading with the bearer token you gave.';
  }
  try {
    await call('list_context', {});
  } catch (err) {
    if (err.code === 'unauthenticated') {
      who.textContent = 'The server refused this token (unauthenticated): give another, or forget it to read anonymously.';
    }
  }
  const admin = await refreshAdminNav();
  if (admin) {
    who.textContent += ' It is an admin credential: the Operator view is open.';
  }
}

function route() {
  const hash = location.hash || '#/catalog';
  if (!hash.startsWith('#/')) {
    return;
  }
  const [name, qs] = hash.slice(2).split('?');
  const params = new URLSearchParams(qs || '');
  for (const a of document.querySelectorAll('nav[aria-label="Views"] a')) {
    if (a.dataset.view === name) {
      a.setAttribute('aria-current', 'page');
    } else {
      a.removeAttribute('aria-current');
    }
  }
  switch (name) {
    case 'search':
      return showSearch();
    case 'page':
      return showPage(params);
    case 'operator':
      return showOperator();
    default:
      return showCatalog();
  }
}

function init() {
  const form = document.getElementById('token-form');
  const input = document.getElementById('token');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = input.value.trim();
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
    }
    input.value = '';
    forgetCaller();
    describeCaller().then(route);
  });
  document.getElementById('token-clear').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    input.value = '';
    forgetCaller();
    describeCaller().then(route);
  });
  window.addEventListener('hashchange', route);
  describeCaller();
  route();
}

init();
