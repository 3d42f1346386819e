// lore mcp --http: one warm server for several agent clients (the official
// TypeScript SDK's Streamable HTTP client), each session bound by its URL to
// a project, beside one-shot CLI commands on the same vault.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { makeVault, startHTTP, LORE } from "./lib.mjs";

let v, server, url, token;

before(async () => {
  v = makeVault("api");
  ({ proc: server, url, token } = await startHTTP(v));
});

after(async () => {
  // SIGTERM stops the server cleanly: it no longer says it listens.
  const exited = new Promise((r) => server?.on("exit", r));
  server?.kill("SIGTERM");
  await exited;
  assert.ok(!existsSync(join(v.vault, ".git", "lore", "mcp-http.json")), "mcp-http.json is removed at exit");
  v?.cleanup();
});

async function client(query) {
  const c = new Client({ name: "lore-e2e-http", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url + query), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

const lore = (...args) => execFileSync(LORE, args, { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "" } }).toString();

test("two clients share one server, each bound to its own project", async () => {
  // Every unit embedded first, so the server's background embedding cannot
  // change the vectors between an activate and the one that reuses its
  // state (CI caught a fragment ranked anew between the two).
  lore("index");
  const api = await client("?project=api");
  const web = await client("?project=web");
  try {
    const tools = await api.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name), ["memory"]);
    const q = { name: "memory", arguments: { op: { activate: { query: "deploy the app to staging and production" } } } };
    const [a, w] = await Promise.all([api.callTool(q), web.callTool(q)]);
    assert.equal(a.isError, false, "isError is present and false");
    const paths = (r) => r.structuredContent.fragments.map((f) => f.path);
    assert.ok(paths(a).includes("projects/api/deploy.md"), paths(a).join(", "));
    assert.ok(!paths(w).some((p) => p.startsWith("projects/api/")), "the web session never sees the api project's notes: " + paths(w).join(", "));
    assert.ok(a.content[0].text.startsWith("[add] "), "the text is the agents' rendering");
    // The same strict decoding and error results as over stdio.
    const bad = await api.callTool({ name: "memory", arguments: { op: { activate: { query: "x", limit: 3 } } } });
    assert.equal(bad.isError, true);
    assert.equal(bad.structuredContent.error.code, "invalid_input");
    // Activation state is per session: each client's next_state works for it.
    const again = await api.callTool({ name: "memory", arguments: { op: { activate: { query: "deploy the app to staging and production", state: a.structuredContent.next_state } } } });
    assert.ok(again.structuredContent.fragments.every((f) => f.action === "reuse"), "the same query with its state: all reuse");
  } finally {
    await api.close();
    await web.close();
  }
});

test("a store over HTTP and one-shot commands see each other", async () => {
  const api = await client("?project=api");
  try {
    const r = await api.callTool({ name: "memory", arguments: { op: { store: { create: { path: "projects/api/http-note.md", body: "# HTTP note\n\nmade over the warm server\n" } } } } });
    assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
    const listed = JSON.parse(lore("drafts", "list", "--project", "api", "--json")).drafts;
    assert.ok(listed.some((d) => d.draft_id === r.structuredContent.draft_id || d.id === r.structuredContent.draft_id), "the CLI lists the Draft the server made");
    lore("store", "create", "--project", "api", "--path", "projects/api/cli-note.md", "--body", "# CLI note\n\nmade by a one-shot command zebrafinch\n");
    const found = await api.callTool({ name: "memory", arguments: { op: { activate: { query: "zebrafinch one-shot command" } } } });
    assert.ok(found.structuredContent.fragments.some((f) => f.path === "projects/api/cli-note.md"), "the server sees the CLI's Draft");
  } finally {
    await api.close();
  }
});

test("lore search and lore activate answer through the warm server, with the output they print alone", () => {
  // Every unit embedded first, so the server's background embedding cannot
  // change the vectors between the two answers compared.
  lore("index");
  const alone = (...args) => execFileSync(LORE, args, { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", LORE_NO_SERVER: "1" } }).toString();
  for (const q of ["how do we ship a new release", "并发控制", "nothing matches zzqx"]) {
    assert.equal(lore("search", q), alone("search", q), `search ${q}`);
    assert.equal(lore("search", "--json", q), alone("search", "--json", q));
    const strip = (s) => s.replace(/run_[0-9a-f]+/g, "RUN");
    assert.equal(strip(lore("activate", q)), strip(alone("activate", q)), `activate ${q}`);
  }
  // An error is the same error.
  assert.throws(() => lore("activate", "--state", "las2.forged", "x"), /invalid_activation_state/);
});

function raw(headers, body = "{}") {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let data = "";
      res.on("data", (d) => { data += d; });
      res.on("end", () => resolve({ status: res.statusCode, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("no token, another Host or another Origin: refused before MCP", async () => {
  const auth = { Authorization: `Bearer ${token}` };
  assert.equal((await raw({})).status, 401);
  assert.equal((await raw({ Authorization: "Bearer " + "0".repeat(64) })).status, 401);
  assert.equal((await raw({ ...auth, Host: "evil.example:" + new URL(url).port })).status, 403, "DNS rebinding: a page's own Host");
  assert.equal((await raw({ ...auth, Origin: "http://evil.example" })).status, 403, "a page on another origin");
  const deep = await raw(auth, "[".repeat(100) + "]".repeat(100));
  assert.equal(deep.status, 400);
  assert.match(deep.body, /nest/);
});

test("two servers on one vault: what one stores the other serves, and the CLI sees both", async () => {
  // A second server on the same vault, on its own port: the change logs keep
  // both in step with each other and with one-shot commands.
  const info = join(v.vault, ".git", "lore", "mcp-http.json");
  const firstRecord = readFileSync(info, "utf8");
  const second = await startHTTP(v, url);
  const url2 = second.url;
  const connect = async (u) => {
    const c = new Client({ name: "lore-e2e-http-two", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(u + "?project=api"), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return c;
  };
  const one = await connect(url), two = await connect(url2);
  try {
    const act = (c, q) => c.callTool({ name: "memory", arguments: { op: { activate: { query: q } } } });
    const has = (r, path) => r.structuredContent.fragments.some((f) => f.path === path);
    const stored = await one.callTool({ name: "memory", arguments: { op: { store: { create: { path: "projects/api/kingfisher.md", body: "# Kingfisher\n\nstored through the first server kingfisher\n" } } } } });
    assert.equal(stored.isError, false, JSON.stringify(stored.structuredContent));
    assert.ok(has(await act(two, "kingfisher stored through the first server"), "projects/api/kingfisher.md"), "the second server serves the first one's Draft");
    const stored2 = await two.callTool({ name: "memory", arguments: { op: { store: { create: { path: "projects/api/heron.md", body: "# Heron\n\nstored through the second server heron\n" } } } } });
    assert.equal(stored2.isError, false, JSON.stringify(stored2.structuredContent));
    assert.ok(has(await act(one, "heron stored through the second server"), "projects/api/heron.md"), "the first server serves the second one's Draft");
    // A one-shot command answered by the newest server, and one doing the
    // work itself, see both.
    for (const env of [{}, { LORE_NO_SERVER: "1" }]) {
      const out = execFileSync(LORE, ["search", "--project", "api", "kingfisher heron"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", ...env } }).toString();
      assert.match(out, /kingfisher\.md/, JSON.stringify(env));
      assert.match(out, /heron\.md/, JSON.stringify(env));
    }
  } finally {
    await one.close();
    await two.close();
    await second.stop();
  }
  // The second server replaced the first one's record and removed it at
  // exit (no server restores another's); the test puts the first one's back
  // for the checks at the end of this file.
  assert.ok(!existsSync(info), "the second server removed its own record");
  writeFileSync(info, firstRecord);
});
