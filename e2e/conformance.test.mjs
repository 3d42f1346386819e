// The official MCP conformance runner (@modelcontextprotocol/conformance)
// and the TypeScript SDK client share one `lore mcp --http`: the runner's
// server scenarios go straight to lore's Streamable HTTP endpoint (no stdio
// bridge) while an SDK session on the same server keeps working, its
// activation state included.
//
// The scenarios run are those that test a server as such: initialization,
// ping, tools/list, concurrent POST streams, SSE polling and DNS-rebinding
// protection. The others call the reference test server's own fixtures
// (tools named test_*, resources, prompts, logging, completion), which lore
// does not have: lore serves one tool, `memory`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LORE, makeVault, startHTTP } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const runner = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const scenarios = ["server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "server-sse-polling", "dns-rebinding-protection"];

let v, server, url, token, out;

before(async () => {
  v = makeVault("api");
  // Indexed (vectors included) before the server starts, so the index
  // does not change under the test: an answer given while sections were
  // still being embedded is lexical, and a later one may add fragments.
  execFileSync(LORE, ["index"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "" }, stdio: "pipe" });
  out = mkdtempSync(join(tmpdir(), "lore-conformance-"));
  ({ proc: server, url, token } = await startHTTP(v));
});

after(async () => {
  const exited = new Promise((r) => server?.on("exit", r));
  server?.kill("SIGTERM");
  await exited;
  v?.cleanup();
  if (out) rmSync(out, { recursive: true, force: true });
});

// runScenario runs one server scenario of the conformance runner against
// lore and returns its checks (the runner's checks.json).
function runScenario(name) {
  const dir = join(out, name);
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", join(here, "conformance-preload.mjs"), runner, "server", "--url", url, "--scenario", name, "-o", dir],
      { env: { ...process.env, LORE_TOKEN: token }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const runs = existsSync(dir) ? readdirSync(dir) : [];
        const checks = runs.length === 1 ? JSON.parse(readFileSync(join(dir, runs[0], "checks.json"), "utf8")) : null;
        resolve({ name, checks, exit: error ? error.code : 0, output: stdout + stderr });
      });
  });
}

test("the conformance runner's server scenarios pass against lore mcp --http while an SDK session shares the server", async () => {
  const sdk = new Client({ name: "lore-e2e-beside-conformance", version: "1.0.0" });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(url + "?project=api"), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    const q = { name: "memory", arguments: { op: { activate: { query: "deploy the app to staging and production" } } } };
    const first = await sdk.callTool(q);
    assert.equal(first.isError, false, JSON.stringify(first.structuredContent));

    // The runner's scenarios, one after another, while the SDK session
    // keeps asking the same server.
    const asking = (async () => {
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await sdk.callTool(q));
      return answers;
    })();
    const results = [];
    for (const name of scenarios) results.push(await runScenario(name));
    for (const a of await asking) assert.equal(a.isError, false, "the SDK session was answered throughout");

    for (const r of results) {
      assert.ok(r.checks, `${r.name}: the runner wrote its checks\n${r.output}`);
      const failed = r.checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO");
      assert.deepEqual(failed.map((c) => `${c.id}: ${c.errorMessage}`), [], `${r.name}: every check passes\n${r.output}`);
      assert.equal(r.exit, 0, `${r.name}: the runner exits 0\n${r.output}`);
    }
    const passed = (name) => results.find((r) => r.name === name).checks.filter((c) => c.status === "SUCCESS").map((c) => c.id);
    assert.deepEqual(passed("server-initialize"), ["server-initialize"]);
    assert.deepEqual(passed("tools-list"), ["tools-list"]);
    // DNS rebinding: a foreign Host is refused by the Host check (403), not
    // merely for want of the token (401); the loopback Host is served.
    const rebinding = results.find((r) => r.name === "dns-rebinding-protection").checks;
    assert.deepEqual(rebinding.map((c) => [c.id, c.status, c.details?.statusCode]), [
      ["localhost-host-rebinding-rejected", "SUCCESS", 403],
      ["localhost-host-valid-accepted", "SUCCESS", 200],
    ]);

    // The SDK session's own activation state survived the runner's sessions.
    const again = await sdk.callTool({ name: "memory", arguments: { op: { activate: { query: q.arguments.op.activate.query, state: first.structuredContent.next_state } } } });
    assert.ok(again.structuredContent.fragments.every((f) => f.action === "reuse"), "the same query with its state: all reuse");
  } finally {
    await sdk.close();
  }
});
