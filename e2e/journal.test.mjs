// The journal profile (specs/002), every tool, through the TypeScript SDK client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { makeVault, connect, call, LORE } from "./lib.mjs";

let v, c;
before(async () => {
  v = makeVault("api");
  c = await connect(v.workspace, {}, ["mcp", "--profile", "journal"]);
});
after(async () => {
  await c?.close();
  v?.cleanup();
});

test("tools/list and now", async () => {
  const { tools } = await c.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["keywords_list", "keywords_list_global", "now", "recall", "remember"]);
  const r = await call(c.client, "now", {});
  assert.equal(r.isError, false);
  const d = r.data.data;
  assert.match(d.utc_rfc3339, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Math.abs(d.utc_ts - Date.now() / 1000) < 60);
  assert.equal(d.local_offset_minutes * 60, d.local_offset_seconds);
});

test("remember → keywords → recall, as notes in the vault", async () => {
  const r1 = await call(c.client, "remember", { namespace: "u1/p1", keywords: [" Redis ", "锁", "redis", "2025年7月12日", "今天"], slice: "We moved to Redlock.", diary: "Single Redis lost locks on failover.", importance: 5, occurred_at: "2025-07-12", source: "incident review" });
  assert.equal(r1.isError, false, r1.text);
  assert.deepEqual(r1.data.data.keywords, ["redis", "锁", "2025年", "7月", "12日"]);
  assert.match(r1.data.data.path, /^journal\/u1\/p1\/\d{4}\//);
  assert.equal(r1.data.data.published, true, "journal notes are auto-published");
  const onDisk = execFileSync("git", ["-C", v.vault, "show", `main:${r1.data.data.path}`]).toString();
  assert.match(onDisk, /namespace: u1\/p1/);
  const r2 = await call(c.client, "remember", { namespace: "u1/p1", keywords: ["cache"], slice: "Cache TTL is 30 seconds.", diary: "Chosen after load tests." });
  assert.equal(r2.isError, false);
  await call(c.client, "remember", { namespace: "u2/p2", keywords: ["redis"], slice: "Other team.", diary: "x" });

  const kl = await call(c.client, "keywords_list", { namespace: "u1/p1" });
  assert.deepEqual(kl.data.data.keywords, ["锁", "7月", "12日", "2025年", "cache", "redis"]);
  assert.equal(kl.data.data.total, 6);
  const g = await call(c.client, "keywords_list_global", {});
  assert.equal(g.data.data.scanned_namespaces, 2);
  assert.deepEqual(g.data.data.keywords[0], { keyword: "redis", namespaces: 2, items: 2 });

  const rc = await call(c.client, "recall", { namespace: "u1/p1", keywords: ["REDIS", "7月"] });
  assert.equal(rc.data.data.total, 1);
  assert.deepEqual(rc.data.data.items[0].matched_keywords, ["redis", "7月"]);
  assert.equal(rc.data.data.items[0].diary, undefined, "no diary unless asked");
  const withDiary = await call(c.client, "recall", { namespace: "u1/p1", keywords: ["redis"], include_diary: true });
  assert.equal(withDiary.data.data.items[0].diary, "Single Redis lost locks on failover.");
  const byTime = await call(c.client, "recall", { namespace: "u1/p1", query: "time=2025-07-01..2025-07-31" });
  assert.equal(byTime.data.data.total, 1);
  const byText = await call(c.client, "recall", { namespace: "u1/p1", query: "ttl" });
  assert.equal(byText.data.data.items[0].slice, "Cache TTL is 30 seconds.");
  const range = await call(c.client, "recall", { namespace: "u1/p1", start: "2025-01-01", end: "2025-12-31", limit: 1 });
  assert.equal(range.data.data.items.length, 1);
});

test("bad input is a tool error that names the problem", async () => {
  const bad = async (name, args, re) => {
    const r = await call(c.client, name, args);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.equal(r.data.error.code, "invalid_input");
    assert.match(r.data.error.message, re);
  };
  await bad("keywords_list", { namespace: "u1" }, /exactly two segments/);
  await bad("keywords_list", { namespace: "u1/p1/x" }, /exactly two segments/);
  await bad("keywords_list", { namespace: "u1/.." }, /exactly two segments/);
  // The spec: '\\' is '/', empty segments are ignored.
  const bs = await call(c.client, "keywords_list", { namespace: "u1\\p1" });
  assert.equal(bs.isError, false, bs.text);
  assert.equal(bs.data.data.namespace, "u1/p1");
  const dbl = await call(c.client, "recall", { namespace: "u1//p1", keywords: ["cache"] });
  assert.equal(dbl.isError, false, dbl.text);
  await bad("keywords_list", { namespace: "/p1" }, /exactly two segments/);
  await bad("remember", { namespace: "u1/p1", keywords: ["a"], slice: "x", diary: "y", importance: 0 }, /importance 0/);
  await bad("remember", { namespace: "u1/p1", keywords: ["a"], slice: "x", diary: "y", importance: 6 }, /importance 6/);
  await bad("remember", { namespace: "u1/p1", keywords: ["a"], slice: "x", diary: "y", occurred_at: "yesterday-ish" }, /occurred_at/);
  await bad("remember", { namespace: "u1/p1", keywords: ["明天"], slice: "x", diary: "y" }, /time-like/);
  await bad("recall", { namespace: "u1/p1", limit: 0 }, /limit 0/);
  await bad("recall", { namespace: "u1/p1", limit: 1000 }, /limit 1000/);
  await bad("recall", { namespace: "u1/p1", start: "soon" }, /start/);
  await bad("recall", { namespace: "u1/p1", extra: 1 }, /unknown field extra/);
  await bad("now", { x: null }, /unknown field x|is null/);
});

test("the one-shot CLI mirrors the tools", () => {
  const env = { ...process.env, LORE_VAULT: v.vault, LORE_PROJECT: "api" };
  const out = execFileSync(LORE, ["journal", "recall", "--namespace", "u1/p1", "--keyword", "cache", "--text"], { env }).toString();
  assert.match(out, /u1\/p1: 1 memories\n- \[.*\] cache\n  Cache TTL is 30 seconds\./);
  const json = JSON.parse(execFileSync(LORE, ["journal", "keywords", "list", "--namespace", "u1/p1"], { env }).toString());
  assert.equal(json.data.total, 6);
  const pretty = execFileSync(LORE, ["journal", "now", "--pretty"], { env }).toString();
  assert.match(pretty, /^\{\n  "data": \{\n    "utc_rfc3339"/);
});
