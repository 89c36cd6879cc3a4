// owntree.mjs is a new user's agent reading their own documentation with
// the official TypeScript SDK client over stdio: it starts the given
// command (`tzctx --data DIR mcp`, with no configuration), lists the tools,
// reads the named tree's index with read_documentation, takes the index's
// first page link of that tree, and reads that page. It prints what it saw
// as one JSON object on stdout; it fails, exit status 1 with the reason on
// stderr, where a call is refused or answers no text. The Go test
// TestOwnTreeServedWithoutConfiguration runs it.
//
//   node owntree.mjs <tree> <command> <args...>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [tree, command, ...args] = process.argv.slice(2);
const membersLine = '--- answer members ---';

function fail(msg) {
  throw new Error(msg);
}

async function main() {
  const client = new Client({ name: 'tzctx-owntree', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit', env: process.env }));
  const call = async (name, a) => {
    const r = await client.callTool({ name, arguments: a });
    const t = r.content?.find((c) => c.type === 'text');
    if (!t) fail(`${name} answered no text content`);
    if (r.isError) fail(`${name} ${JSON.stringify(a)} refused: ${t.text}`);
    const i = t.text.lastIndexOf(`\n${membersLine}\n`);
    return i < 0 ? t.text : t.text.slice(0, i);
  };

  const tools = await client.listTools();
  const read = tools.tools.find((t) => t.name === 'read_documentation');
  if (!read) fail('no read_documentation tool');
  const treeEnum = read.inputSchema?.properties?.tree?.enum ?? [];

  const index = await call('read_documentation', { tree, limit: 16000 });
  const m = new RegExp(`\\]\\((/${tree}/[^)\\s]*)\\)`).exec(index);
  if (!m) fail(`the index of ${tree} links no page of it: ${index.slice(0, 300)}`);
  const route = m[1];
  const page = await call('read_documentation', { page: route, limit: 2000 });

  await client.close();
  process.stdout.write(
    JSON.stringify({ treeEnum, indexHead: index.slice(0, 300), route, pageHead: page.slice(0, 300) }) + '\n',
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`owntree: ${err.stack || err}\n`);
    process.exit(1);
  },
);
