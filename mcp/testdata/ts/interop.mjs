// interop.mjs drives tzctx's MCP front end with the official TypeScript
// SDK client and prints what it saw as one JSON object on stdout. The Go
// test TestTypeScriptClient runs it against `tzctx mcp` (stdio) and
// `tzctx serve` (/mcp) and checks the JSON.
//
//   node interop.mjs stdio <tzctx binary> <args...>
//   node interop.mjs http <url> [bearer]
//
// Environment: TZCTX_LONG_PAGE (default /cloud/reference/http/),
// TZCTX_QUERY (default "stamp offset").
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, target, ...rest] = process.argv.slice(2);
const longPage = process.env.TZCTX_LONG_PAGE || '/cloud/reference/http/';
const query = process.env.TZCTX_QUERY || 'stamp offset';
const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

function fail(msg) {
  throw new Error(msg);
}

async function main() {
  let transport;
  if (mode === 'stdio') {
    transport = new StdioClientTransport({ command: target, args: rest, stderr: 'inherit', env: process.env });
  } else if (mode === 'http') {
    const headers = rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
  } else {
    fail(`unknown mode ${mode}`);
  }
  const client = new Client({ name: 'tzctx-interop', version: '1.0.0' });
  await client.connect(transport);
  const out = { transport: mode, server: client.getServerVersion(), protocolVersion: transport.protocolVersion ?? null };

  // Lists.
  const tools = (await client.listTools()).tools;
  const resources = (await client.listResources()).resources;
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  const prompts = (await client.listPrompts()).prompts;
  out.tools = tools.map((t) => t.name);
  out.toolCount = tools.length;
  out.resourceCount = resources.length;
  out.templateCount = templates.length;
  out.promptCount = prompts.length;
  out.annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));

  const call = async (args, name = 'read_documentation') => client.callTool({ name, arguments: args });

  // Search the sample site.
  const search = await call({ tree: 'cloud', query });
  const sc = search.structuredContent;
  out.search = {
    isError: !!search.isError,
    id: sc.id,
    lines: sc.text.split('\n').filter((l) => l.startsWith('- [')).length,
    textContentStartsWithChunk: search.content[0].text.startsWith(sc.text),
  };

  // Page a long page to its end with stamps.
  let offset = 0;
  let stamp;
  let joined = '';
  let chunks = 0;
  let first;
  for (;;) {
    const args = { page: longPage, limit: 2000 };
    if (offset > 0) Object.assign(args, { offset, stamp });
    const r = await call(args);
    if (r.isError) fail(`page read refused: ${r.content[0].text}`);
    const a = r.structuredContent;
    if (chunks === 0) first = a;
    if (stamp && a.stamp !== stamp) fail('the stamp changed between chunks');
    if (a.offset !== offset) fail(`chunk offset ${a.offset}, want ${offset}`);
    if (!r.content[0].text.includes(`stamp: ${a.stamp}`)) fail('the text content lacks the stamp');
    stamp = a.stamp;
    joined += a.text;
    chunks++;
    if (a.next_offset === null) break;
    offset = a.next_offset;
    if (chunks > 1000) fail('more than 1000 chunks');
  }
  out.longPage = {
    page: longPage,
    chunks,
    bytes: Buffer.byteLength(joined, 'utf8'),
    codePoints: Array.from(joined).length,
    total: first.total,
    sha256: sha256(joined),
    stampIsSha256: stamp === sha256(joined),
    headings: (first.headings || []).length,
  };

  // Read a section from a headings offset.
  const h = (first.headings || [])[1] || (first.headings || [])[0];
  if (!h) fail('the long page answered no headings');
  const sec = await call({ page: longPage, offset: h.offset, stamp, limit: 500 });
  const st = sec.structuredContent;
  out.section = {
    heading: h.text,
    offset: h.offset,
    answerOffset: st.offset,
    matchesPage: Array.from(joined).slice(h.offset).join('').startsWith(st.text),
    startsWithHeadingLine: st.text.split('\n')[0].replace(/^#+\s*/, '').trim() === h.text.trim(),
  };

  // Read a resource and get a prompt.
  const route = longPage.replace(/^\/cloud\//, '').replace(/\/$/, '');
  const pageRes = await client.readResource({ uri: `tzctx://docs/cloud/page/${route}` });
  const overview = await client.readResource({ uri: 'tzctx://context/overview' });
  out.resource = {
    uri: pageRes.contents[0].uri,
    mimeType: pageRes.contents[0].mimeType,
    bytes: Buffer.byteLength(pageRes.contents[0].text, 'utf8'),
    sameAsPaged: pageRes.contents[0].text === joined,
    overviewListed: resources.some((r) => r.uri === 'tzctx://context/overview'),
    overviewBytes: Buffer.byteLength(overview.contents[0].text, 'utf8'),
  };
  if (prompts.length > 0) {
    const p = prompts.find((x) => (x.arguments || []).length > 0) || prompts[0];
    const args = Object.fromEntries((p.arguments || []).map((a) => [a.name, a.name === 'query' ? query : longPage]));
    const got = await client.getPrompt({ name: p.name, arguments: args });
    const text = got.messages[0].content.text;
    out.prompt = {
      name: p.name,
      arguments: Object.keys(args),
      messages: got.messages.length,
      bytes: Buffer.byteLength(text, 'utf8'),
      startsWithSkill: text.startsWith('# ') && !text.includes('\nname: ' + p.name + '\n'),
      endsWithArgument: Object.keys(args).length === 0 || text.endsWith(`: ${Object.values(args).pop()}`),
    };
  } else {
    out.prompt = null;
  }

  // A refusal's shape, and a schema violation's.
  const refused = await call({ id: 'no-such-entry' }, 'read_context');
  out.refusal = {
    isError: !!refused.isError,
    code: refused.structuredContent?.error?.code ?? null,
    detail: refused.structuredContent?.error?.detail ?? null,
    textIsDetail: refused.content[0].text === refused.structuredContent?.error?.detail,
  };
  const gated = await call({ tree: 'blueprint' });
  out.gated = { isError: !!gated.isError, code: gated.structuredContent?.error?.code ?? null };
  const bad = await call({ tree: 'cloud', limit: 0 });
  out.violation = { isError: !!bad.isError, structured: bad.structuredContent ?? null, text: bad.content[0].text };

  await client.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`interop: ${err.stack || err}\n`);
    process.exit(1);
  },
);
