// library.mjs plays an agent that follows tzctx's library-first guide over
// MCP alone, with the official TypeScript SDK client. It knows no command,
// folder, file or row of its own: it reads guide:library-first with
// read_context, takes the four commands from the guide's numbered
// headings (two tools, then the skill that takes an entry and the skill
// that updates one), reads both skills, and takes from their steps the
// vendored folder, the manifest file, the row's members, the member
// that carries the manifest to list_library and the statuses it answers.
// Where a step it needs is missing it fails, naming the step.
//
// The Go test TestAgentFollowsLibraryGuide runs it and talks to it over
// stdin and stdout: the script takes the entry, proves it, prints
// {"taken": <status>} and waits for the line "activated"; it then prints
// {"after": <status>}, follows the update skill and prints the final JSON
// line with what it saw and did.
//
//   node library.mjs <url> <project folder> <entry name> <read limit>
import { createInterface } from 'node:readline';
import { mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, project, wanted, readLimit] = process.argv.slice(2);

function fail(msg) {
  throw new Error(msg);
}

// need returns the first match of re in text, or fails saying what the
// served text lacks.
function need(text, re, what) {
  const m = re.exec(text);
  if (!m) fail(`the served text names no ${what} (looked for ${re}):\n${text}`);
  return m;
}

// steps returns the numbered steps of a skill's "## Steps" section.
function steps(text, skill) {
  const sec = need(text, /^## Steps\n([\s\S]*?)(?=^## |(?![\s\S]))/m, `"## Steps" section in skill ${skill}`)[1];
  const out = [...sec.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
  if (out.length === 0) fail(`skill ${skill} lists no numbered step`);
  return out;
}

// step returns the one step of a skill that matches re, or fails naming it.
function step(list, re, what, skill) {
  for (const s of list) {
    const m = re.exec(s);
    if (m) return m;
  }
  fail(`skill ${skill} has no step that ${what} (looked for ${re}); its steps:\n${list.join('\n')}`);
}

async function main() {
  const client = new Client({ name: 'tzctx-library-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) fail(`${name} ${JSON.stringify(args)} refused: ${r.content.map((c) => c.text).join('\n')}`);
    if (!r.structuredContent) fail(`${name} answered no structured content`);
    return r.structuredContent;
  };
  // whole follows next_offset with the stamp to the end of a text.
  const whole = async (name, args) => {
    let text = '';
    let chunks = 0;
    let a = { ...args };
    for (;;) {
      const r = await call(name, a);
      text += r.text;
      chunks++;
      if (r.next_offset === null || r.next_offset === undefined) return { text, chunks, last: r };
      a = { ...args, offset: r.next_offset, stamp: r.stamp };
    }
  };
  const out = { statuses: [], chunks: {} };

  // The guide: its numbered headings name the four commands in order.
  const guide = (await whole('read_context', { id: 'guide:library-first' })).text;
  const commands = [...guide.matchAll(/^### \d+\.[^\n]*`([a-z_-]+)`\s*$/gm)].map((m) => m[1]);
  if (commands.length < 4) fail(`guide:library-first names ${commands.length} numbered commands (${commands}), want list, read, take and update`);
  const [listTool, readTool, addSkill, updateSkill] = commands;
  out.commands = commands;
  const tools = (await client.listTools()).tools.map((t) => t.name);
  for (const t of [listTool, readTool]) if (!tools.includes(t)) fail(`the guide's command ${t} is no tool of the server (${tools})`);

  // The skill that takes an entry: its steps give the folder, the
  // manifest, the row and the proof.
  const add = (await whole('read_context', { id: `skill:${addSkill}` })).text;
  const addSteps = steps(add, addSkill);
  const folder = step(addSteps, /`([^`\s]*)<name>\/<path>`/, 'writes each file to a vendored folder like `dir/<name>/<path>`', addSkill)[1];
  const rowStep = step(addSteps, /`(\{[^`]*\})`[^`]*?the array in `([^`<>\s]+\.json)`/, 'adds a row `{...}` to the array in a manifest `*.json`', addSkill);
  const manifest = rowStep[2];
  const members = [...rowStep[1].matchAll(/"(\w+)":\s*<(\w+)>/g)].map((m) => [m[1], m[2]]);
  if (members.length === 0) fail(`skill ${addSkill}'s row ${rowStep[1]} names no member as "member": <field>`);
  const initial = /creating the file as `([^`]+)`/.exec(rowStep[0]);
  const proof = step(addSteps, /call `(\w+)` with `(\w+)` set to every row of `([^`]+)`[\s\S]*?answers `status` `(\w+)`/, 'proves the take with the manifest and names the status answered', addSkill);
  const [, proveTool, installedArg, proveManifest, currentWord] = proof;
  if (proveManifest !== manifest) fail(`skill ${addSkill} writes rows to ${manifest} but proves with ${proveManifest}`);
  if (proveTool !== listTool) fail(`skill ${addSkill} proves with ${proveTool}, the guide lists with ${listTool}`);
  out.folder = folder;
  out.manifest = manifest;
  out.members = members.map((m) => m[0]);
  out.installedArg = installedArg;

  const dirOf = (name) => join(project, folder + name);
  const readManifest = async () => {
    try {
      return JSON.parse(await readFile(join(project, manifest), 'utf8'));
    } catch (e) {
      if (e.code === 'ENOENT') return JSON.parse(initial ? initial[1] : '[]');
      throw e;
    }
  };
  const listAll = async (args) => {
    let entries = [];
    let unknown = [];
    let a = { ...args };
    for (;;) {
      const r = await call(listTool, a);
      entries = entries.concat(r.entries);
      unknown = unknown.concat(r.unknown ?? []);
      if (r.next_offset === null || r.next_offset === undefined) return { entries, unknown };
      a = { ...args, offset: r.next_offset, stamp: r.stamp };
    }
  };
  const status = async () => {
    const rows = await readManifest();
    const l = await listAll({ [installedArg]: rows });
    const e = l.entries.find((x) => x.name === wanted);
    if (!e) fail(`${listTool} with the manifest lists no ${wanted}`);
    return e.status;
  };
  // take follows the take skill's steps for one entry.
  const take = async () => {
    const entry = (await listAll({})).entries.find((e) => e.name === wanted);
    if (!entry) fail(`${listTool} lists no entry ${wanted}`);
    const list = (await whole(readTool, { name: wanted })).text;
    const paths = list
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => need(l, /^(.+) (\d+) (\S+)$/, `file line "path size mime" in ${l}`));
    for (const [, path, , mime] of paths) {
      const r = await whole(readTool, { name: wanted, path, limit: Number(readLimit) });
      const textual = /^text\/|json|xml|yaml|javascript|typescript/.test(mime);
      const file = join(dirOf(wanted), path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, textual ? Buffer.from(r.text, 'utf8') : Buffer.from(r.text, 'base64'));
      out.chunks[path] = r.chunks;
    }
    const row = Object.fromEntries(members.map(([m, field]) => [m, entry[field]]));
    const rows = (await readManifest()).filter((x) => x.name !== row.name);
    rows.push(row);
    await mkdir(dirname(join(project, manifest)), { recursive: true });
    await writeFile(join(project, manifest), JSON.stringify(rows, null, 2) + '\n');
  };

  await take();
  const taken = await status();
  out.statuses.push(taken);
  console.log(JSON.stringify({ taken }));
  if (taken !== currentWord) fail(`after ${addSkill}, ${wanted} answers ${taken}, the skill says ${currentWord}`);

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === 'activated') break;
  }
  const after = await status();
  out.statuses.push(after);
  console.log(JSON.stringify({ after }));

  // The update skill: which status it acts on, what it removes, that it
  // takes again as the take skill does, the row it replaces.
  const upd = (await whole('read_context', { id: `skill:${updateSkill}` })).text;
  const updSteps = steps(upd, updateSkill);
  const outdatedWord = step(updSteps, /Each entry answering `(\w+)`/, 'names the status it acts on', updateSkill)[1];
  const removed = step(updSteps, /remove the folder `([^`\s]*)<name>\/`/, 'removes the vendored folder `dir/<name>/`', updateSkill)[1];
  if (removed !== folder) fail(`skill ${updateSkill} removes ${removed}<name>/, skill ${addSkill} writes ${folder}<name>/`);
  const again = step(updSteps, /exactly as `([a-z-]+)` does/, `reads and writes the files again as ${addSkill} does`, updateSkill)[1];
  if (again !== addSkill) fail(`skill ${updateSkill} takes again as ${again}, the guide's take skill is ${addSkill}`);
  const replaced = step(updSteps, /[Rr]eplace the entry's row in `([^`]+)`/, "replaces the entry's row in the manifest", updateSkill)[1];
  if (replaced !== manifest) fail(`skill ${updateSkill} replaces rows in ${replaced}, skill ${addSkill} writes ${manifest}`);
  step(updSteps, /answers `(\w+)`/, 'proves the update', updateSkill);
  if (after === outdatedWord) {
    await rm(dirOf(wanted), { recursive: true, force: true });
    await take();
  }
  const final = await status();
  out.statuses.push(final);
  if (final !== currentWord) fail(`after ${updateSkill}, ${wanted} answers ${final}, want ${currentWord}`);
  console.log(JSON.stringify(out));
  lines.close();
  await client.close();
  process.exit(0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
