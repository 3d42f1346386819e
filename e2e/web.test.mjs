// The local web UI in headless Chromium (Debian's chromium, driven by
// playwright-core): open the UI on fixture logs, select a session, open a
// Retrieval Process, report a case, go back, and merge a Draft.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { makeVault, LORE } from "./lib.mjs";

const CHROMIUM = process.env.LORE_CHROMIUM || "/usr/bin/chromium";
let v, serve, browser, url, runId, draftId;

before(async () => {
  v = makeVault("api");
  const env = { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", XDG_CONFIG_HOME: join(v.root, ".config"),
    GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost" };
  const lore = (...args) => execFileSync(LORE, args, { cwd: v.workspace, env }).toString();
  const act = JSON.parse(lore("activate", "--json", "how do we ship a new release"));
  runId = act.run_id;
  const first = act.fragments[0];
  draftId = JSON.parse(lore("store", "create", "--json", "--path", "howto/web-ui.md", "--body", "# Web UI\n\nMerged from the page.\n")).draft_id;
  // A Codex rollout of this workspace that called lore's memory tool.
  const dir = join(v.root, "codex", "sessions", "2026", "11", "30");
  mkdirSync(dir, { recursive: true });
  const lines = [
    { timestamp: "2026-11-30T09:00:00Z", type: "session_meta", payload: { id: "web1", cwd: v.workspace, timestamp: "2026-11-30T09:00:00Z" } },
    { timestamp: "2026-11-30T09:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Ship version 2.0" }] } },
    { timestamp: "2026-11-30T09:00:02Z", type: "event_msg", payload: { type: "item_completed", item: { type: "McpToolCall", id: "c1", server: "lore", tool: "memory",
      arguments: { op: { activate: { query: "how do we ship a new release" } } },
      result: { structuredContent: { run_id: runId, fragments: [{ action: "add", unit_key: first.unit_key, path: first.path, heading_path: first.heading_path, content: first.content.slice(0, 40) + "…" }] } } } } },
  ];
  writeFileSync(join(dir, "rollout-web1.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  serve = spawn(LORE, ["serve", "--codex-home", join(v.root, "codex"), "--claude-home", join(v.root, "none"), "--dsh-home", join(v.root, "none")], { cwd: v.workspace, env });
  url = await new Promise((resolve, reject) => {
    let out = "";
    serve.stdout.on("data", (d) => { out += d; const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]+/); if (m) resolve(m[0]); });
    serve.on("exit", (c) => reject(new Error("lore serve exited " + c)));
    setTimeout(() => reject(new Error("lore serve printed no URL: " + out)), 10000);
  });
  // Only the tests that drive a page need Chromium; the API test runs without.
  if (!existsSync(CHROMIUM)) {
    browserMissing = `headless Chromium is not at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does) or set LORE_CHROMIUM to a Chromium binary`;
    return;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
});

let browserMissing = "";
// needBrowser skips a page test, with one line naming what is missing and
// how to get it, when there is no Chromium; where the browser is required
// (.ci/run sets LORE_REQUIRE_BROWSER=1) it fails instead. It returns true
// when the test may go on.
const needBrowser = (t) => {
  if (!browserMissing) return true;
  if (process.env.LORE_REQUIRE_BROWSER) assert.fail(browserMissing);
  t.skip(browserMissing + " (set LORE_REQUIRE_BROWSER=1 to fail instead)");
  return false;
};

after(async () => {
  await browser?.close();
  serve?.kill();
  v?.cleanup();
});

test("activity: session, request, fragments, Retrieval Process, report, back", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector("#sessions li[data-token='codex:web1']");
  assert.match(await page.textContent("#sessions"), /codex\s*Ship version 2\.0/);
  await page.click("#sessions li[data-token='codex:web1']");
  await page.waitForSelector(".request");
  assert.equal((await page.textContent(".request > .text")).trim(), "Ship version 2.0");
  assert.match(await page.textContent(".activation"), /memory\.activate how do we ship a new release ok · \d+\.\d ms/);
  // The cut preview is replaced by the run's stored copy, rendered as Markdown.
  const fragment = await page.innerHTML(".fragment .md");
  assert.ok(!fragment.includes("…"), "the full text from the run");
  assert.match(await page.textContent(".fragment .where"), /^sent · howto\/release\.md/);
  assert.ok((await page.textContent(".fragment .md")).length > 60);
  await page.click("button.process");
  await page.waitForSelector("table.candidates");
  assert.ok(await page.isHidden("#list"), "the session list folds away");
  const rows = await page.$$("table.candidates tr");
  assert.ok(rows.length > 2);
  assert.match(await page.textContent("table.candidates"), /delivered:add/);
  await page.fill("#expected", "howto/release.md");
  await page.fill("#note", "the checklist should come first");
  await page.click("#report button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#case-result").textContent.includes("Saved evaluation case"));
  const cases = readFileSync(join(v.vault, ".git", "lore", "cases.jsonl"), "utf8");
  assert.match(cases, /"query":"how do we ship a new release"/);
  assert.match(cases, new RegExp(`"run_id":"${runId}"`));
  await page.click("#back");
  await page.waitForSelector(".request");
  assert.ok(await page.isVisible("#list"));
  assert.equal(await page.getAttribute("#sessions li.active", "data-token"), "codex:web1");
  // lore eval --cases scores the vault on the case.
  const out = execFileSync(LORE, ["eval", "--cases", "--mode", "lexical"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "" } }).toString();
  assert.match(out, /cases\s+1\n/);
  assert.match(out, /Recall@20\s+1\.0000/);
});

test("memory: find a note from the search box, open it whole; a favicon", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage();
  await page.goto(url);
  assert.match(await page.getAttribute("link[rel=icon]", "href"), /^data:image\/svg\+xml/);
  await page.fill("#q", "how do we ship a new release");
  await page.press("#q", "Enter");
  await page.waitForFunction(() => document.querySelector("#sessions").textContent.includes("howto/release.md"));
  await page.click("#sessions li:first-child");
  await page.waitForSelector("pre.note");
  assert.match(await page.textContent("#detail"), /howto\/release\.md/);
  assert.match(await page.textContent("pre.note"), /# How to release a new version/);
  await page.close();
});

test("an empty state that says how to get agent sessions there", async (t) => {
  if (!needBrowser(t)) return;
  const empty = spawn(LORE, ["serve", "--codex-home", join(v.root, "none"), "--claude-home", join(v.root, "none"), "--dsh-home", join(v.root, "none")],
    { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", XDG_CONFIG_HOME: join(v.root, ".config") } });
  try {
    const emptyURL = await new Promise((resolve, reject) => {
      let out = "";
      empty.stdout.on("data", (d) => { out += d; const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]+/); if (m) resolve(m[0]); });
      setTimeout(() => reject(new Error("lore serve printed no URL: " + out)), 10000);
    });
    const page = await browser.newPage();
    await page.goto(emptyURL);
    await page.waitForFunction(() => document.querySelector("#detail").textContent.includes("No agent has used this memory yet"));
    assert.match(await page.textContent("#detail"), /lore mcp config --client claude/);
    await page.close();
  } finally {
    empty.kill();
  }
});

test("drafts: diff and merge from the page", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage();
  await page.goto(url);
  await page.click("#nav-drafts");
  const box = `section[data-draft='${draftId}']`;
  await page.waitForSelector(box);
  await page.click(`${box} button.diff-btn`);
  await page.waitForFunction((b) => document.querySelector(b + " pre.diff").textContent.includes("+Merged from the page."), box);
  await page.click(`${box} button.merge`);
  await page.waitForFunction((b) => document.querySelector(b + " .draft-status").textContent.startsWith("Merged into main"), box);
  assert.ok(existsSync(join(v.vault, "howto", "web-ui.md")), "the clean work tree follows the merge");
  assert.match(execFileSync("git", ["-C", v.vault, "log", "-1", "--format=%B"]).toString(), /Lore-Draft: /);
});

test("loopback and token: the API refuses other hosts, missing tokens and cross-origin writes", async () => {
  const base = url.replace(/\/#token=.*/, "");
  const token = url.split("token=")[1];
  assert.equal((await fetch(base + "/api/sessions")).status, 401);
  assert.equal((await fetch(base + "/api/sessions", { headers: { "X-Lore-Token": "wrong" } })).status, 401);
  assert.equal((await fetch(base + "/api/sessions", { headers: { "X-Lore-Token": token } })).status, 200);
  const evil = await fetch(base + "/api/drafts/merge", { method: "POST", headers: { "X-Lore-Token": token, "Content-Type": "application/json", Origin: "http://evil.example" }, body: "{\"ids\":[]}" });
  assert.equal(evil.status, 403);
  const form = await fetch(base + "/api/drafts/merge", { method: "POST", headers: { "X-Lore-Token": token, "Content-Type": "text/plain" }, body: "{\"ids\":[]}" });
  assert.equal(form.status, 415);
  const r = await fetch(base + "/api/sessions", { headers: { "X-Lore-Token": token } });
  assert.equal(r.headers.get("access-control-allow-origin"), null);
});

// An attack from the red-team pass: the person opens lore serve's page, and
// later a page of another 127.0.0.1 port in the same browser. Browsers send
// a host's cookies to every port, so that server once received the token
// as a cookie with its /favicon.ico request and merged with it. Now the
// token is never a cookie: the other server gets no lore credential, and
// what it replays is refused.
test("attack: another local port gets no credential and cannot merge", async (t) => {
  if (!needBrowser(t)) return;
  const { createServer } = await import("node:http");
  const seen = [];
  const other = createServer((req, res) => { seen.push({ url: req.url, cookie: req.headers.cookie || "", auth: req.headers["x-lore-token"] || "" }); res.end("<html><body>other</body></html>"); });
  await new Promise((r) => other.listen(0, "127.0.0.1", r));
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("#projects a");
    const otherPage = await context.newPage();
    await otherPage.goto(`http://127.0.0.1:${other.address().port}/`);
    await otherPage.waitForLoadState("load");
    assert.ok(seen.length > 0, "the other server was asked");
    for (const s of seen) {
      assert.ok(!/lore/.test(s.cookie) && !s.auth, `the other port received a lore credential: ${JSON.stringify(s)}`);
    }
    const base = url.replace(/\/#token=.*/, "");
    for (const s of seen) {
      const replay = await fetch(base + "/api/drafts/merge", { method: "POST", headers: { "Content-Type": "application/json", Cookie: s.cookie }, body: JSON.stringify({ ids: [draftId], heads: { [draftId]: "0".repeat(40) } }) });
      assert.equal(replay.status, 401, "a replay of what the other port received is refused");
    }
    // The page's own calls still work: the token is in its origin's storage.
    await page.reload();
    await page.waitForSelector("#projects a");
    await context.close();
  } finally {
    other.close();
  }
});
