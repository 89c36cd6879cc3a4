// features.mjs drives the optional MCP features of tzctx's /mcp with the
// official TypeScript SDK client: completions, resource subscriptions and
// logging. The Go test TestTypeScriptClientFeatures runs it, and talks to
// it over stdin and stdout: the script prints "ready" once it has
// completed, subscribed and set its level; "listening" once its listening
// stream carries notifications; then, after the line "end" on stdin, it
// waits for notifications/resources/updated of the changed page followed
// by a further list_changed, and prints what it saw as one JSON line.
//
//   node features.mjs <url> <changed page URI> <unchanged page URI>
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, changed, same] = process.argv.slice(2);
const seen = [];
let listening = false;
let wake = () => {};

async function main() {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'tzctx-features', version: '1.0.0' });
  client.fallbackNotificationHandler = async (n) => {
    seen.push({ method: n.method, params: n.params ?? {} });
    if (n.method === 'notifications/tools/list_changed' && !listening) {
      listening = true;
      console.log('listening');
    }
    wake();
  };
  await client.connect(transport);
  const out = { capabilities: client.getServerCapabilities() };
  const pageRef = { type: 'ref/resource', uri: 'tzctx://docs/{tree}/page/{+route}' };
  out.trees = (await client.complete({ ref: pageRef, argument: { name: 'tree', value: 'c' } })).completion;
  out.routes = (
    await client.complete({ ref: pageRef, argument: { name: 'route', value: 'guides/re' }, context: { arguments: { tree: 'cloud' } } })
  ).completion;
  await client.subscribeResource({ uri: changed });
  await client.subscribeResource({ uri: same });
  await client.setLoggingLevel('info');
  console.log('ready');

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === 'end') break;
  }
  // The changed page's update, then a list_changed after it (the next
  // switch's): every notification of the switch has arrived by then.
  const done = () => {
    const i = seen.findIndex((n) => n.method === 'notifications/resources/updated' && n.params.uri === changed);
    return i >= 0 && seen.slice(i + 1).some((n) => n.method === 'notifications/tools/list_changed');
  };
  const deadline = Date.now() + 60000;
  while (!done() && Date.now() < deadline) {
    await new Promise((r) => {
      wake = r;
      setTimeout(r, 200);
    });
  }
  out.updated = seen.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params.uri);
  out.notices = seen.filter((n) => n.method === 'notifications/message').map((n) => ({ level: n.params.level, data: n.params.data }));
  console.log(JSON.stringify(out));
  lines.close();
  await client.close();
  process.exit(0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
