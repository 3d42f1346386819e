// MCP speed over stdio, with the official TypeScript SDK client on a copy of
// the demo vault: process spawn to initialize answered, and activate round
// trips (tools/call to result). Each activate embeds its query with the
// built-in model when it is installed; the first server runs with
// LORE_MCP_NO_EMBED=1, so no unit has a vector and the vector stage finds
// nothing; the second after `lore index` embedded every unit, with the
// server's own embedding on. Run by `make bench`.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { performance } from "node:perf_hooks";
import { makeVault, connect, memory, LORE } from "./lib.mjs";

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (x) => x.toFixed(1).padStart(7);

const v = makeVault("api");
try {
  // Warm the index once (the first server builds it).
  const warm = await connect(v.workspace);
  await memory(warm.client, { op: { activate: { query: "warm up" } } });
  await warm.close();

  const spawnMs = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const c = await connect(v.workspace);
    spawnMs.push(performance.now() - t0);
    await c.close();
  }
  const c = await connect(v.workspace);
  const queries = [
    "how do we ship a new release",
    "why did we choose SQLite for the index",
    "what happens when sync fails",
    "并发控制",
    "how to add a database migration",
    "error codes returned to agents",
  ];
  const activates = async (client) => {
    await memory(client, { op: { activate: { query: queries[0] } } }); // warms the process (and loads the model)
    const ms = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const r = await memory(client, { op: { activate: { query: queries[i % queries.length] } } });
      ms.push(performance.now() - t0);
      if (r.isError) throw new Error(JSON.stringify(r.data));
    }
    return ms;
  };
  const actMs = await activates(c.client);
  // With vectors: when the model is installed, embed every unit, then
  // serve with background embedding on (no LORE_MCP_NO_EMBED).
  let vecMs = null;
  try {
    execFileSync(LORE, ["model", "status"], { stdio: "ignore" });
    execFileSync(LORE, ["index"], { cwd: v.workspace, stdio: "ignore", env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "" } });
    const cv = await connect(v.workspace, { LORE_MCP_NO_EMBED: "" });
    vecMs = await activates(cv.client);
    await cv.close();
  } catch (e) {
    if (!String(e.message).includes("model")) throw e;
  }
  // The same over the Streamable HTTP transport: one lore mcp --http, the
  // SDK's HTTP client (every unit embedded when the model is installed).
  let httpMs = null;
  const server = spawn(LORE, ["mcp", "--http", "127.0.0.1:0"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", LORE_MCP_NO_SYNC: "1" }, stdio: "ignore" });
  try {
    const info = join(v.vault, ".git", "lore", "mcp-http.json");
    for (let i = 0; i < 200 && !existsSync(info); i++) await new Promise((r) => setTimeout(r, 50));
    const url = JSON.parse(readFileSync(info, "utf8")).url;
    const token = readFileSync(join(v.vault, ".git", "lore", "mcp-http.token"), "utf8").trim();
    const hc = new Client({ name: "lore-bench", version: "1.0.0" });
    await hc.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    httpMs = await activates(hc);
    await hc.close();
  } finally {
    server.kill("SIGTERM");
  }
  const loadMs = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    await memory(c.client, { op: { load: { ids: ["LORE.md"] } } });
    loadMs.push(performance.now() - t0);
  }
  // store update round trips, each on the Draft of one note (load included
  // in the loop for the hash, timed separately).
  const storeMs = [];
  for (let i = 0; i < 40; i++) {
    const cur = (await memory(c.client, { op: { load: { ids: ["howto/release.md"] } } })).data.resources[0];
    const last = cur.content.trimEnd().split("\n").pop();
    const t0 = performance.now();
    const r = await memory(c.client, { op: { store: { update: { id: cur.resource_id, expected_hash: cur.content_hash, replacements: [{ old_text: last, new_text: `${last}\nline ${i}` }] } } } });
    storeMs.push(performance.now() - t0);
    if (r.isError) throw new Error(JSON.stringify(r.data));
  }
  const createMs = [];
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    const r = await memory(c.client, { op: { store: { create: { path: `notes/bench-${i}.md`, body: `# Bench ${i}\n\ntext\n` } } } });
    createMs.push(performance.now() - t0);
    if (r.isError) throw new Error(JSON.stringify(r.data));
  }
  await c.close();
  console.log("lore mcp over stdio (TypeScript SDK client, demo vault), ms:");
  console.log("                                   p50     p95");
  console.log(`spawn → initialize answered    ${fmt(pct(spawnMs, 50))} ${fmt(pct(spawnMs, 95))}`);
  console.log(`activate, no unit embedded     ${fmt(pct(actMs, 50))} ${fmt(pct(actMs, 95))}`);
  if (vecMs) console.log(`activate, every unit embedded  ${fmt(pct(vecMs, 50))} ${fmt(pct(vecMs, 95))}  (vector stage included)`);
  else console.log("activate, every unit embedded  (no model installed: run `make model`)");
  if (httpMs) console.log(`activate over HTTP            ${fmt(pct(httpMs, 50))} ${fmt(pct(httpMs, 95))}  (lore mcp --http, SDK HTTP client)`);
  console.log(`load round trip                ${fmt(pct(loadMs, 50))} ${fmt(pct(loadMs, 95))}`);
  console.log(`store update round trip        ${fmt(pct(storeMs, 50))} ${fmt(pct(storeMs, 95))}`);
  console.log(`store create round trip        ${fmt(pct(createMs, 50))} ${fmt(pct(createMs, 95))}  (each a new Draft; up to 40 open)`);
} finally {
  v.cleanup();
}
