// textonly.mjs drives tzctx's MCP front end with the official TypeScript
// SDK client as a client that hands a model text content alone: it parses
// nothing but each result's text content (contracts/choices/mcp.md#ch-mcp,
// "Text content") and prints what it saw as one JSON object on stdout.
// The Go test TestTypeScriptClientReadsTextAlone runs it against /mcp.
//
//   node textonly.mjs <url> <page route>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, page] = process.argv.slice(2);
const membersLine = '--- answer members ---';

function fail(msg) {
  throw new Error(msg);
}

// parse splits a text content into the body before the last members
// line, the members by name and the heading lines in order.
function parse(text) {
  const i = text.lastIndexOf(`\n${membersLine}\n`);
  if (i < 0) fail(`no members line in ${text.slice(0, 200)}`);
  const out = { body: text.slice(0, i), members: {}, headings: [] };
  let inHeadings = false;
  for (const line of text.slice(i + membersLine.length + 2).split('\n')) {
    if (inHeadings) {
      const m = /^(\d+): (.*)$/.exec(line);
      if (!m) fail(`heading line ${line}`);
      out.headings.push({ offset: Number(m[1]), text: m[2] });
    } else if (line.startsWith('headings ')) {
      inHeadings = true;
    } else {
      const j = line.indexOf(': ');
      if (j < 0) fail(`member line ${line}`);
      out.members[line.slice(0, j)] = line.slice(j + 2);
    }
  }
  return out;
}

async function main() {
  const client = new Client({ name: 'tzctx-textonly', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const text = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) fail(`${name} refused: ${r.content[0].text}`);
    return parse(r.content[0].text);
  };
  const out = {};

  // The catalog, paged by the text's members.
  let catalogLines = 0;
  let args = {};
  for (;;) {
    const p = await text('list_context', args);
    catalogLines += p.body.split('\n').filter((l) => l.startsWith('- ')).length;
    if (p.members.next_offset.startsWith('null')) break;
    args = { offset: Number(p.members.next_offset), stamp: p.members.stamp };
  }
  out.catalogLines = catalogLines;

  // A page's first chunk, then a section by a heading line's offset.
  const first = await text('read_documentation', { page, limit: 1500 });
  out.headings = first.headings.length;
  const h = first.headings[first.headings.length - 1];
  if (!h) fail('the first chunk lists no headings');
  const sec = await text('read_documentation', { page, limit: 500, offset: h.offset, stamp: first.members.stamp });
  out.heading = h.text;
  out.offset = h.offset;
  out.answerOffset = Number(sec.members.offset);
  out.firstLine = sec.body.split('\n')[0];

  // The whole page, paged by the text's members.
  let joined = '';
  let p = first;
  for (;;) {
    // The body ends with the blank line before the members.
    joined += p.body.slice(0, -1);
    if (p.members.next_offset.startsWith('null')) break;
    p = await text('read_documentation', { page, limit: 1500, offset: Number(p.members.next_offset), stamp: first.members.stamp });
  }
  out.joined = joined;

  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`textonly: ${err.stack || err}\n`);
    process.exit(1);
  },
);
