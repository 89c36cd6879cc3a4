// recipe.mjs is the README's "Your docs in Claude Code" as an agent meets
// it, with the official TypeScript SDK client: it starts the command the
// recipe hands Claude Code (tzctx --data DIR mcp) over stdio, reads the
// tree's index with read_documentation, then the second page the index
// links, and prints one JSON object on stdout: {refused, detail} where the
// tree is refused, else {indexChars, route, pageError, pageChars}. The Go
// test TestReadmeClaudeCodeRecipe runs it.
//
//   node recipe.mjs <tree> <command> <args...>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [tree, command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'readme-recipe', version: '1' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

// text is a result's text content.
const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

const out = {};
const index = await client.callTool({ name: 'read_documentation', arguments: { tree, limit: 4000 } });
if (index.isError) {
  out.refused = true;
  out.detail = text(index);
} else {
  const body = index.structuredContent?.text ?? '';
  const routes = [...body.matchAll(/\]\((\/[^)\s]+)\)/g)].map((m) => m[1]);
  out.indexChars = body.length;
  out.route = routes[1] ?? '';
  if (out.route) {
    const page = await client.callTool({ name: 'read_documentation', arguments: { page: out.route, limit: 2000 } });
    out.pageError = page.isError ? text(page) : '';
    out.pageChars = (page.structuredContent?.text ?? '').length;
  }
}
console.log(JSON.stringify(out));
await client.close();
