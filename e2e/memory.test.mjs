// The memory tool's contract, held by the official MCP TypeScript SDK client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeVault, connect, memory, raw } from "./lib.mjs";

let v, a;
before(async () => {
  v = makeVault("api");
  a = await connect(v.workspace);
});
after(async () => {
  await a?.close();
  v?.cleanup();
});

test("initialize and tools/list: exactly one tool, memory", async () => {
  assert.equal(a.client.getServerVersion().name, "lore");
  const { tools } = await a.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["memory"]);
  const t = tools[0];
  assert.deepEqual(t.inputSchema.required, ["op"]);
  assert.deepEqual(Object.keys(t.inputSchema.properties.op.properties).sort(), ["activate", "load", "store"]);
  for (const phrase of ["activate", "load", "store", "LORE.md", "compaction", "knownHashes", "expected_hash"]) {
    assert.ok(t.description.includes(phrase), `description mentions ${phrase}`);
  }
});

test("activate → load → store update → activate with state: replace and reuse", async () => {
  const query = "how do we release a new version";
  const first = await memory(a.client, { op: { activate: { query } } });
  assert.equal(first.isError, false);
  assert.equal(first.rawIsError, false, "isError is present and false");
  // The text is a rendering for agents: every fragment's text as written,
  // under a header with its path and headings, and next_state; the
  // structured content is the spec's JSON.
  for (const f of first.data.fragments) {
    assert.ok(first.text.includes(f.content.trimEnd()), "the text holds each fragment's content as written");
    assert.ok(first.text.includes(`[add] ${f.path} › ${f.heading_path[0]}`), "each fragment's header");
  }
  assert.ok(!first.text.includes("sha256:"), "no hash an operation does not take");
  assert.ok(first.text.includes(`next_state: ${first.data.next_state}`));
  assert.match(first.data.next_state, /^las2\.[A-Za-z0-9_-]{38}$/, "next_state is a short reference");
  assert.equal(first.data.profile, "agent_activation.v2");
  assert.ok(first.data.fragments.length > 0);
  for (const f of first.data.fragments) {
    assert.equal(f.action, "add");
    assert.ok(f.unit_key && f.content_hash.startsWith("sha256:") && f.resource_id && f.path && f.content);
    assert.equal(f.kind, "memory");
    assert.ok(Array.isArray(f.heading_path));
  }
  assert.ok(first.data.run_id);
  const target = first.data.fragments[0];

  const loaded = await memory(a.client, { op: { load: { ids: [target.resource_id] } } });
  assert.equal(loaded.isError, false);
  const res = loaded.data.resources[0];
  assert.equal(res.resource_id, target.resource_id);
  assert.equal(res.changed, true);
  assert.ok(res.content.includes(target.content.trim().split("\n")[0]));

  // Replace one line of the delivered fragment.
  // A body line: editing the heading line would rename the unit (its key holds the slug).
  const line = target.content.split("\n").find((l) => !l.startsWith("#") && l.trim().length > 20 && res.content.split(l).length === 2);
  assert.ok(line, "a unique line to edit");
  const stored = await memory(a.client, {
    op: { store: { update: { id: res.resource_id, expected_hash: res.content_hash, replacements: [{ old_text: line, new_text: line + " (edited by e2e)" }] } } },
  });
  assert.equal(stored.isError, false, JSON.stringify(stored.data));
  assert.match(stored.data.local_operation_id, /^lop_/);
  assert.match(stored.data.draft_id, /^drf_/);
  assert.equal(stored.data.queued, true);
  assert.equal(stored.data.sync_status, "queued");

  const second = await memory(a.client, { op: { activate: { query, state: first.data.next_state } } });
  assert.equal(second.isError, false);
  const byKey = Object.fromEntries(second.data.fragments.map((f) => [f.unit_key, f]));
  const edited = byKey[target.unit_key];
  assert.ok(edited, "the edited unit is delivered again");
  assert.equal(edited.action, "replace");
  assert.ok(edited.content.includes("(edited by e2e)"));
  assert.equal(edited.draft_id, stored.data.draft_id, "the fragment says it comes from the Draft");
  const reused = second.data.fragments.filter((f) => f.action === "reuse");
  assert.ok(reused.length > 0, "unchanged fragments are reused");
  for (const f of reused) assert.equal(f.content, undefined);

  // load with the new hash: unchanged, no content.
  const again = await memory(a.client, { op: { load: { ids: [res.resource_id] } } });
  const known = await memory(a.client, { op: { load: { ids: [res.resource_id], knownHashes: { [res.resource_id]: again.data.resources[0].content_hash } } } });
  assert.equal(known.data.resources[0].changed, false);
  assert.equal(known.data.resources[0].content, undefined);
  // The working tree is untouched: the edit is a Draft branch.
  assert.match(v.git("branch", "--list", "drafts/*").toString(), new RegExp(stored.data.draft_id));
  assert.equal(v.git("status", "--porcelain").toString(), "");
});

test("a store from a second server process at the same time", async () => {
  const b = await connect(v.workspace);
  try {
    const [r1, r2] = await Promise.all([
      memory(a.client, { op: { store: { create: { path: "notes/from-a.md", body: "# From A\n\nwritten by server A\n" } } } }),
      memory(b.client, { op: { store: { resource: "memory", create: { path: "notes/from-b.md", body: "# From B\n\nwritten by server B\n", description: "B's note" } } } }),
    ]);
    assert.equal(r1.isError, false, JSON.stringify(r1.data));
    assert.equal(r2.isError, false, JSON.stringify(r2.data));
    assert.notEqual(r1.data.draft_id, r2.data.draft_id);
    // Each server sees the other's Draft (same project).
    const la = await memory(a.client, { op: { load: { ids: ["notes/from-b.md"] } } });
    assert.equal(la.isError, false);
    assert.equal(la.data.resources[0].description, "B's note");
    const lb = await memory(b.client, { op: { load: { ids: ["notes/from-a.md"] } } });
    assert.equal(lb.isError, false);
  } finally {
    await b.close();
  }
  // Another project of the same vault does not see api's Drafts.
  const webSpace = mkdtempSync(join(tmpdir(), "lore-web-"));
  writeFileSync(join(webSpace, ".lore.yaml"), `vault: ${v.vault}\nproject: web\n`);
  const w = await connect(webSpace);
  try {
    const r = await memory(w.client, { op: { load: { ids: ["notes/from-a.md"] } } });
    assert.equal(r.isError, true);
    assert.equal(r.data.error.code, "memory_resource_not_found");
  } finally {
    await w.close();
    rmSync(webSpace, { recursive: true, force: true });
  }
});

test("every error is a tool result with isError and the spec's code", async () => {
  const code = async (args) => {
    const r = await memory(a.client, args);
    assert.equal(r.isError, true, JSON.stringify(args));
    assert.deepEqual(r.data, r.text);
    return r.data.error;
  };
  const loaded = (await memory(a.client, { op: { load: { ids: ["decisions/0001-sqlite-for-the-index.md"] } } })).data.resources[0];
  const upd = (replacements, expected_hash = loaded.content_hash) => ({ op: { store: { update: { id: loaded.resource_id, expected_hash, replacements } } } });

  assert.equal((await code({ op: { activate: { query: "x", state: "not-a-state" } } })).code, "invalid_activation_state");
  assert.equal((await code({ op: { load: { ids: ["no/such/note.md"] } } })).code, "memory_resource_not_found");
  assert.equal((await code(upd([{ old_text: "SQLite", new_text: "x" }], "sha256:" + "0".repeat(64)))).code, "memory_content_changed");
  assert.equal((await code(upd([{ old_text: "this text is nowhere", new_text: "x" }]))).code, "text_replacement_not_found");
  const noNew = await code(upd([{ old_text: "SQLite" }]));
  assert.equal(noNew.code, "invalid_input");
  assert.match(noNew.message, /new_text is required/);
  assert.match((await code(upd([{ old_text: "SQLite", new_text: "x" }], "md5:abc"))).message, /"md5:abc" is not a content hash/);
  assert.equal((await code(upd([{ old_text: "the", new_text: "x" }]))).code, "text_replacement_ambiguous");
  const words = loaded.content.split("\n").find((l) => l.trim().length > 30 && loaded.content.split(l).length === 2);
  assert.equal((await code(upd([{ old_text: words, new_text: "a" }, { old_text: words.slice(5, 20), new_text: "b" }]))).code, "text_replacement_overlap");

  let e = await code({ op: { activate: { query: "x", state: null } } });
  assert.equal(e.code, "invalid_input");
  assert.match(e.message, /op\.activate\.state is null/);
  e = await code({ op: { activate: { query: "x", limit: 3 } } });
  assert.match(e.message, /unknown field op\.activate\.limit/);
  e = await code({ op: { activate: { query: "x" }, load: { ids: ["LORE.md"] } } });
  assert.match(e.message, /exactly one operation/);
  e = await code({ op: { load: { ids: "LORE.md" } } });
  assert.match(e.message, /op\.load\.ids: expected an array/);
  e = await code({ op: { load: { ids: [1] } } });
  assert.match(e.message, /expected a string/);
  e = await code({});
  assert.match(e.message, /op is required/);
  e = await code({ op: { Activate: { query: "x" } } });
  assert.match(e.message, /unknown field op\.Activate/);
  e = await code({ op: { load: { ids: ["LORE.md"], known_hashes: {} } } });
  assert.match(e.message, /unknown field op\.load\.known_hashes/);
  e = await code({ op: { store: { create: { path: "../escape.md", body: "x" } } } });
  assert.match(e.message, /create\.path/);
  e = await code({ op: { store: { resource: "rule", delete: { id: loaded.resource_id } } } });
  assert.match(e.message, /resource/);
  e = await code({ op: { store: { update: { id: loaded.resource_id, expected_hash: loaded.content_hash, replacements: [] } } } });
  assert.match(e.message, /replacements is empty/);
});

test("search_model_preparing when the model is not there", async () => {
  const w = makeVault("api");
  try {
    // The built-in model, with an empty model folder.
    const empty = join(w.root, "no-model"); // removed with the vault
    const cfg = "org_ref: main\nprojects:\n  api: {}\nembedding:\n  provider: builtin\n";
    writeFileSync(join(w.vault, "lore.yaml"), cfg);
    mkdirSync(empty);
    const c = await connect(w.workspace, { LORE_MODEL_DIR: empty });
    try {
      const r = await memory(c.client, { op: { activate: { query: "release" } } });
      assert.equal(r.isError, true);
      assert.equal(r.data.error.code, "search_model_preparing");
      assert.match(r.data.error.message, /lore model fetch/);
      assert.equal(typeof r.data.error.progress, "number", "progress is a field, not only text");
      assert.ok(r.data.error.progress >= 0 && r.data.error.progress <= 1);
      // load does not need the model.
      const l = await memory(c.client, { op: { load: { ids: ["LORE.md"] } } });
      assert.equal(l.isError, false);
    } finally {
      await c.close();
    }
  } finally {
    w.cleanup();
  }
});

test("protocol: versions, discover, ids, parse errors, stdout, exit on EOF", async () => {
  for (const version of ["2025-06-18", "2025-11-25", "2025-03-26"]) {
    const p = raw(v.workspace);
    p.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const r = await p.reply(1);
    assert.equal(r.result.protocolVersion, version);
    p.proc.stdin.end();
    assert.equal(await p.exited, 0);
  }
  const p = raw(v.workspace);
  p.send({ jsonrpc: "2.0", id: "d", method: "server/discover", params: {} });
  const d = await p.reply("d");
  assert.equal(d.error.code, -32601);
  p.send({ jsonrpc: "2.0", id: "init-1", method: "initialize", params: { protocolVersion: "2099-01-01", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const init = await p.reply("init-1");
  assert.ok(["2025-11-25", "2025-06-18"].includes(init.result.protocolVersion));
  p.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  p.send("{this is not json");
  p.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "memory", arguments: { op: { load: { ids: ["LORE.md"] } } } } });
  const call = await p.reply(7);
  assert.equal(call.result.isError, false);
  assert.equal(call.result.structuredContent.resources[0].path, "LORE.md");
  p.send({ jsonrpc: "2.0", id: "s", method: "tools/call", params: { name: "memory", arguments: { op: { load: { ids: ["LORE.md"] } } } } });
  assert.equal((await p.reply("s")).result.isError, false);
  p.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "nope", arguments: {} } });
  const unknown = await p.reply(8);
  assert.ok(unknown.error || unknown.result?.isError, "an unknown tool is an error");
  p.proc.stdin.end();
  assert.equal(await p.exited, 0);
  for (const l of p.lines) {
    const m = JSON.parse(l); // only protocol on stdout
    assert.equal(m.jsonrpc, "2.0");
  }
  assert.ok(p.lines.some((l) => JSON.parse(l).error?.code === -32700), "the bad line got a parse error");
});

// In an unbound folder the agent still connects (it once saw only
// "Connection closed"): tools/list answers, and each call is the spec's
// explicit failure, a tool error naming unbound_workspace and what to run.
test("no binding is an explicit failure that says how to bind", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lore-unbound-"));
  try {
    const c = await connect(dir, { HOME: dir, XDG_CONFIG_HOME: dir });
    try {
      const tools = await c.client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name), ["memory"]);
      const r = await memory(c.client, { op: { activate: { query: "how do we release" } } });
      assert.equal(r.isError, true);
      assert.equal(r.data.error.code, "unbound_workspace");
      assert.match(r.data.error.message, /lore bind/);
    } finally {
      await c.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
