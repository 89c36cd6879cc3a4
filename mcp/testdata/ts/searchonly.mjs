// searchonly.mjs is an agent answering a question with the official
// TypeScript SDK client, reading nothing but text content: it makes one
// search_documentation call, finds in that call's text content the best
// cited section (its route#anchor, offset, length and stamp from the
// members block, its text after its lead line in the packed text; see
// contracts/choices/reading.md#ch-search-documentation, "MCP text content"), then
// reads on from the section with read_documentation (page, offset, stamp,
// paged by the text's next_offset) and checks that what it reads begins
// with the section's packed text. It fails, exit status 1 with the reason
// on stderr, where the text content lacks anything it needs to do so; else
// it prints what it saw as one JSON object on stdout. The Go test
// TestTypeScriptClientSearchesAndReadsOn runs it against /mcp.
//
//   node searchonly.mjs <url> <question>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, question] = process.argv.slice(2);
const membersLine = '--- answer members ---';

function fail(msg) {
  throw new Error(msg);
}

// split cuts a text content at its last members line into the body and
// the member lines.
function split(text) {
  const i = text.lastIndexOf(`\n${membersLine}\n`);
  if (i < 0) fail(`no members line in ${text.slice(0, 200)}`);
  return { body: text.slice(0, i), lines: text.slice(i + membersLine.length + 2).split('\n') };
}

// member is the value of the member line `<name>: <value>`.
function member(lines, name) {
  const l = lines.find((x) => x.startsWith(`${name}: `));
  if (l === undefined) fail(`no ${name} member in ${lines.join(' | ')}`);
  return l.slice(name.length + 2);
}

// sections parses the search's section lines, which follow the line
// starting `sections (`: `<route>[#<anchor>]: offset <n>, length <n>,
// stamp <stamp>, score <s>`.
function sections(lines) {
  const i = lines.findIndex((l) => l.startsWith('sections ('));
  if (i < 0) fail(`no sections line in ${lines.join(' | ')}`);
  return lines.slice(i + 1).map((l) => {
    const m = /^(\S+): offset (\d+), length (\d+), stamp (\S+), score (\S+)$/.exec(l);
    if (!m) fail(`section line ${JSON.stringify(l)} is not <route#anchor>: offset, length, stamp, score`);
    const [route, anchor = ''] = m[1].split('#');
    return { ref: m[1], route, anchor, offset: Number(m[2]), length: Number(m[3]), stamp: m[4] };
  });
}

// packed returns each cited section's text in the pack, in order: the
// length code points after its lead line, `[<title> › …](<route#anchor>)`.
function packed(body, secs) {
  let at = 0;
  return secs.map((s) => {
    const target = `](${s.ref})\n`;
    const end = body.indexOf(target, at);
    if (end < 0) fail(`no lead line for ${s.ref} in the packed text`);
    const start = body.lastIndexOf('\n', end) + 1;
    if (body[start] !== '[') fail(`the lead line of ${s.ref} does not start with [: ${body.slice(start, end + target.length)}`);
    const from = end + target.length;
    const cps = Array.from(body.slice(from));
    if (cps.length < s.length) fail(`the packed text of ${s.ref} is shorter than its length ${s.length}`);
    const text = cps.slice(0, s.length).join('');
    at = from + text.length;
    return { lead: body.slice(start, end + target.length - 1), text };
  });
}

async function main() {
  const client = new Client({ name: 'tzctx-searchonly', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    const t = r.content?.find((c) => c.type === 'text');
    if (!t) fail(`${name} answered no text content`);
    if (r.isError) fail(`${name} refused: ${t.text}`);
    return split(t.text);
  };

  // One call answers the question.
  const search = await call('search_documentation', { query: question, budget: 2000 });
  const secs = sections(search.lines);
  if (secs.length === 0) fail('the search cites no section');
  const texts = packed(search.body, secs);
  const best = secs[0];
  const want = texts[0].text;

  // Read on from the best section: its page, offset and stamp, paged by
  // next_offset until the section's length is read and more beyond it.
  const limit = 500;
  let read = '';
  let offset = best.offset;
  let firstOffset = null;
  let chunks = 0;
  for (;;) {
    const r = await call('read_documentation', { page: best.route, offset, stamp: best.stamp, limit });
    chunks++;
    if (firstOffset === null) firstOffset = Number(member(r.lines, 'offset'));
    // The body ends with the blank line before the members.
    read += r.body.slice(0, -1);
    const next = member(r.lines, 'next_offset');
    if (next.startsWith('null') || Array.from(read).length > best.length) break;
    offset = Number(next);
  }
  if (!read.startsWith(want)) {
    fail(`reading on from ${best.ref} at ${best.offset} reads ${JSON.stringify(read.slice(0, 200))}, not the section ${JSON.stringify(want.slice(0, 200))}`);
  }

  await client.close();
  process.stdout.write(
    JSON.stringify({
      version: member(search.lines, 'version'),
      cited: secs.length,
      section: best,
      lead: texts[0].lead,
      sectionText: want,
      firstOffset,
      chunks,
      read,
    }) + '\n',
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`searchonly: ${err.stack || err}\n`);
    process.exit(1);
  },
);
