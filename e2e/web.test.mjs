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
let v, serve, browser, url, runId, draftId, hookText, loreEnv;

before(async () => {
  v = makeVault("api");
  // The workspace is a code repository, and a note cites its code: the
  // function and the file it names were there before the note was written
  // (2020), and the function renamed and the file moved after (2099): the
  // "may be stale" view lists both.
  writeFileSync(join(v.vault, "notes", "retry-backoff.md"), "# Retry backoff\n\n## Cap\n\n`backoffFor` in `sync/retry.go` caps the wait at five minutes.\n\n## Queue\n\nFailed syncs wait in `sync/queue.go`.\n");
  v.git("add", "-A");
  v.git("commit", "-qm", "retry note");
  const codeGit = (date, ...args) => execFileSync("git", args, { cwd: v.workspace, stdio: "pipe", env: { ...process.env,
    GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost",
    GIT_AUTHOR_DATE: date + "T12:00:00Z", GIT_COMMITTER_DATE: date + "T12:00:00Z" } });
  mkdirSync(join(v.workspace, "sync"));
  writeFileSync(join(v.workspace, "sync", "retry.go"), "package sync\n\nfunc backoffFor(n int) int { return n }\n");
  writeFileSync(join(v.workspace, "sync", "queue.go"), "package sync\n\nfunc enqueue() {}\n");
  codeGit("2020-01-02", "init", "-q", "-b", "main");
  codeGit("2020-01-02", "add", "-A");
  codeGit("2020-01-02", "commit", "-qm", "retries");
  writeFileSync(join(v.workspace, "sync", "retry.go"), "package sync\n\nfunc delayFor(n int) int { return n }\n");
  codeGit("2099-01-02", "mv", "sync/queue.go", "sync/jobs.go");
  codeGit("2099-01-02", "commit", "-qam", "rename backoffFor, move the queue");
  const env = { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", XDG_CONFIG_HOME: join(v.root, ".config"),
    GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost" };
  loreEnv = env;
  const lore = (...args) => execFileSync(LORE, args, { cwd: v.workspace, env }).toString();
  const act = JSON.parse(lore("activate", "--json", "how do we ship a new release"));
  runId = act.run_id;
  const first = act.fragments[0];
  draftId = JSON.parse(lore("store", "create", "--json", "--path", "howto/web-ui.md", "--body", "# Web UI\n\nMerged from the page.\n")).draft_id;
  // A Codex rollout of this workspace that called lore's memory tool.
  // A vault image a note shows, and a remote one it must not load.
  writeFileSync(join(v.vault, "howto", "pic.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));
  writeFileSync(join(v.vault, "howto", "pictures.md"), "# Pictures\n\nA diagram: ![[pic.png]]\n\nA remote one: ![logo](https://example.invalid/logo.png)\n");
  // A Codex rollout of this workspace that called lore's memory tool: an
  // activate, and the store that made the Draft (so the Draft links here).
  // What lore's prompt hook gave a Codex session, as Codex records it: a
  // developer message after the prompt.
  const hookOut = execFileSync(LORE, ["hook", "prompt", "--client", "codex"], { cwd: v.workspace, env: { ...env, LORE_NO_SERVER: "1" },
    input: JSON.stringify({ session_id: "web1", hook_event_name: "UserPromptSubmit", cwd: v.workspace, prompt: "what do I check before I tag a release?", turn_id: "t2" }) }).toString();
  hookText = JSON.parse(hookOut).hookSpecificOutput.additionalContext;
  const now = Date.now();
  const at = (s) => new Date(now - 60000 + s * 1000).toISOString();
  const dir = join(v.root, "codex", "sessions", "2026", "11", "30");
  mkdirSync(dir, { recursive: true });
  const lines = [
    { timestamp: at(0), type: "session_meta", payload: { id: "web1", cwd: v.workspace, timestamp: at(0) } },
    { timestamp: at(1), type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Ship version 2.0" }] } },
    { timestamp: at(2), type: "event_msg", payload: { type: "item_completed", item: { type: "McpToolCall", id: "c1", server: "lore", tool: "memory",
      arguments: { op: { activate: { query: "how do we ship a new release" } } },
      result: { structuredContent: { run_id: runId, fragments: [{ action: "add", unit_key: first.unit_key, path: first.path, heading_path: first.heading_path, content: first.content.slice(0, 40) + "…" }] } } } } },
    { timestamp: at(3), type: "event_msg", payload: { type: "item_completed", item: { type: "McpToolCall", id: "c2", server: "lore", tool: "memory",
      arguments: { op: { store: { create: { path: "howto/web-ui.md", body: "# Web UI" } } } },
      result: { structuredContent: { draft_id: draftId, queued: true, sync_status: "queued" } } } } },
    { timestamp: at(4), type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "what do I check before I tag a release?" }] } },
    { timestamp: at(5), type: "response_item", payload: { type: "message", role: "developer", content: [{ type: "input_text", text: hookText }] } },
    { timestamp: at(120), type: "event_msg", payload: { type: "agent_message", message: "done" } },
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

// shot saves a screenshot of a page's view for docs/ when LORE_SCREENSHOTS
// names a folder (make screenshots does); a test run writes none.
async function shot(page, name) {
  const dir = process.env.LORE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, name + ".png"), fullPage: false });
}

const pathOf = (page) => new URL(page.url()).pathname;

test("activity: what lore's hook gave a prompt, read from the client's log, with its Retrieval Process", async (t) => {
  if (!needBrowser(t)) return;
  assert.match(hookText, /^lore: reviewed project memory relevant to this prompt \(run run_/);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector("#detail").textContent.includes("open Draft"));
  await page.click("#projects a[data-project='']");
  await page.waitForSelector("#sessions li[data-token='codex:web1']");
  await page.click("#sessions li[data-token='codex:web1'] a");
  await page.waitForSelector(".request");
  const second = page.locator(".request").nth(1);
  assert.equal((await second.locator(".text").first().textContent()).trim(), "what do I check before I tag a release?");
  assert.match(await second.locator(".activation").first().textContent(), /^lore hook on the prompt ok · \d+\.\d ms/);
  assert.match(await second.locator(".fragment .where").first().textContent(), /howto\/release\.md/);
  assert.equal(await second.locator("button.process").count(), 1, "joined to the hook's retrieval run");
  await page.close();
});

test("activity: session, request, fragments, Retrieval Process, report, back", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  // The overview: the vault's name and the open Drafts.
  await page.waitForFunction(() => document.querySelector("#detail").textContent.includes("open Draft"));
  assert.match(await page.textContent("#detail h2"), /^vault$/);
  assert.match(await page.textContent("#detail"), /1 open Draft waiting for your review/);
  assert.equal((await page.textContent("#drafts-count")).trim(), "1");
  assert.equal(pathOf(page), "/", "the token leaves the URL");
  await shot(page, "overview");
  await page.click("#projects a[data-project='']");
  await page.waitForSelector("#sessions li[data-token='codex:web1']");
  assert.equal(pathOf(page), "/sessions");
  assert.match(await page.textContent("#sessions"), /codex\s*Ship version 2\.0/);
  await page.click("#sessions li[data-token='codex:web1'] a");
  await page.waitForSelector(".request");
  assert.equal(pathOf(page), "/session/codex%3Aweb1", "a session has its own URL");
  assert.equal((await page.textContent(".request > .text")).trim(), "Ship version 2.0");
  assert.match(await page.textContent(".activation"), /memory\.activate how do we ship a new release ok · \d+\.\d ms/);
  // The cut preview is replaced by the run's stored copy, rendered as Markdown.
  const fragment = await page.innerHTML(".fragment .md");
  assert.ok(!fragment.includes("…"), "the full text from the run");
  assert.match(await page.textContent(".fragment .where"), /^sent · howto\/release\.md/);
  assert.ok((await page.textContent(".fragment .md")).length > 60);
  await shot(page, "session");
  await page.click("button.process");
  await page.waitForSelector("table.candidates");
  assert.equal(pathOf(page), "/run", "a run has its own URL");
  assert.ok(await page.isHidden("#list"), "the session list folds away");
  const rows = await page.$$("table.candidates tr");
  assert.ok(rows.length > 2);
  assert.match(await page.textContent("table.candidates"), /delivered:add/);
  // The note stage's coverage term has its column, and the question's
  // words give some candidate one.
  assert.equal(await page.textContent("table.candidates tr:first-child th:nth-child(9)"), "coverage");
  const coverage = await page.$$eval("table.candidates tr td:nth-child(9)", (tds) => tds.map((td) => td.textContent));
  assert.ok(coverage.some((t) => Number(t) > 0), `a candidate with a coverage term: ${coverage}`);
  // Report inaccurate names the section that should have come back.
  await page.check("table.candidates tr:nth-child(3) input.expect");
  await page.fill("#note", "the checklist should come first");
  await page.click("#report button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#case-result").textContent.includes("Saved evaluation case"));
  assert.match(await page.textContent("#case-result"), /by section/);
  const cases = readFileSync(join(v.vault, ".git", "lore", "cases.jsonl"), "utf8");
  assert.match(cases, /"query":"how do we ship a new release"/);
  assert.match(cases, new RegExp(`"run_id":"${runId}"`));
  assert.match(cases, /"expected_sections":\["mem_[^"]+\/[^"]+\/\d+"\]/);
  await shot(page, "run");
  // Back is the browser's own.
  await page.goBack();
  await page.waitForSelector(".request");
  assert.equal(pathOf(page), "/session/codex%3Aweb1");
  assert.ok(await page.isVisible("#list"));
  assert.equal(await page.getAttribute("#sessions li.active", "data-token"), "codex:web1");
  // lore eval --cases scores the vault on the case, by section.
  const out = execFileSync(LORE, ["eval", "--cases", "--mode", "lexical"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "" } }).toString();
  assert.match(out, /cases\s+1\n/);
  await page.close();
});

test("memory: find a note, open it rendered, follow a wikilink, go back; a favicon", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  assert.match(await page.getAttribute("link[rel=icon]", "href"), /^data:image\/svg\+xml/);
  await page.fill("#q", "how do we ship a new release");
  await page.press("#q", "Enter");
  await page.waitForFunction(() => document.querySelector("#sessions").textContent.includes("howto/release.md"));
  assert.equal(pathOf(page), "/search", "a search has its own URL");
  assert.ok(!(await page.getAttribute("#nav-drafts", "class") || "").includes("active"), "Drafts is not highlighted while results show");
  await shot(page, "search");
  await page.click("#sessions li:first-child a");
  await page.waitForSelector(".md.note h1");
  assert.match(pathOf(page), /^\/note\//, "a note has its own URL");
  assert.match(await page.textContent("#detail"), /howto\/release\.md/);
  assert.match(await page.textContent(".md.note h1"), /How to release a new version/);
  assert.ok(!(await page.textContent(".md.note")).includes("id: mem_"), "the frontmatter is not shown as text");
  await shot(page, "note");
  const before = page.url();
  // A vault image is shown from the vault; a remote one is not loaded.
  const pics = await browser.newPage();
  await pics.goto(url.replace("/#", "/note/howto%2Fpictures.md#"));
  await pics.waitForFunction(() => document.querySelector(".md.note img.attachment")?.src.startsWith("blob:"));
  assert.match(await pics.textContent(".md.note"), /remote image not loaded: logo/);
  await shot(pics, "note-images");
  await pics.close();
  await page.click(".md.note a.wikilink");
  // The URL changes before the linked note is fetched and drawn: wait for the
  // note itself, not for a heading, which the note left behind still has.
  await page.waitForFunction((b) => location.href !== b && /ADR 0003/.test(document.querySelector("#detail h2")?.textContent || ""), before);
  assert.match(pathOf(page), /^\/note\//, "the linked note has its own URL");
  await page.goBack();
  await page.waitForFunction((b) => location.href === b, before);
  await page.waitForFunction(() => /How to release/.test(document.querySelector(".md.note h1")?.textContent || ""));
  await page.close();
});

test("memory: a Draft that search finds is marked as one, a published note not", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url.replace("/#", "/search?q=" + encodeURIComponent("web ui merged from the page") + "#"));
  const hit = "#sessions li:has-text('howto/web-ui.md')";
  await page.waitForSelector(hit);
  assert.match(await page.textContent(hit), new RegExp(`Draft ${draftId}, not reviewed`), "the Draft's hit says it is a Draft");
  await page.goto(url.replace("/#", "/search?q=" + encodeURIComponent("how do we ship a new release") + "#"));
  await page.waitForFunction(() => document.querySelector("#sessions").textContent.includes("howto/release.md"));
  assert.doesNotMatch(await page.textContent("#sessions li:has-text('howto/release.md')"), /not reviewed/, "a published note's hit is not marked");
  await page.close();
});

test("memory: a section hit opens its note at that section", async (t) => {
  if (!needBrowser(t)) return;
  // A short window, so the section is below the fold unless the page goes there.
  const page = await browser.newPage({ viewport: { width: 1280, height: 260 } });
  await page.goto(url.replace("/#", "/search?q=" + encodeURIComponent("after the release announce") + "#"));
  const hit = "#sessions li a:has-text('After the release')";
  await page.waitForSelector(hit);
  await page.click(hit);
  await page.waitForSelector(".md.note .target");
  assert.equal((await page.textContent(".md.note .target")).trim(), "After the release", "the heading of the section that was hit");
  // The heading is in the window, though it lies below the fold of the
  // note's top: the page went there.
  const at = await page.evaluate(() => {
    const r = document.querySelector(".md.note .target").getBoundingClientRect();
    const scrolled = Math.max(...[document.scrollingElement, ...document.querySelectorAll("*")].map((e) => e.scrollTop));
    return { top: r.top, bottom: r.bottom, scrolled, height: innerHeight };
  });
  assert.ok(at.top >= 0 && at.bottom <= at.height, `the section's heading is in the window: ${JSON.stringify(at)}`);
  assert.ok(at.top + at.scrolled > at.height, `the section lies below the fold of the note's top, so the page scrolled: ${JSON.stringify(at)}`);
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
    await page.goto(emptyURL.replace("/#", "/sessions#"));
    await page.waitForFunction(() => document.querySelector("#detail").textContent.includes("No agent has used this memory yet"));
    assert.match(await page.textContent("#detail"), /lore mcp config --client claude/);
    await page.close();
  } finally {
    empty.kill();
  }
});

test("drafts: diff and merge from the page", async (t) => {
  if (!needBrowser(t)) return;
  // A second Draft, discarded from the page below.
  const other = JSON.parse(execFileSync(LORE, ["store", "create", "--json", "--path", "howto/scratch.md", "--body", "# Scratch\n\nNot wanted.\n"],
    { cwd: v.workspace, env: loreEnv }).toString()).draft_id;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url.replace("/#", "/drafts#"));
  const box = `section[data-draft='${draftId}']`;
  await page.waitForSelector(box);
  await page.waitForFunction(() => document.querySelector("#drafts-count").textContent === "2");
  assert.match(await page.textContent(box), /local \(no remote\)/, "the same word as the CLI");
  assert.match(await page.textContent(box), / · e2e on \S+ \(here\) · /, "who made the Draft, and on which machine: this one, as its outbox logged");
  assert.match(await page.textContent(box), /made in codex session “Ship version 2\.0”/, "a Draft links to the session that made it");
  assert.equal(await page.getAttribute(`${box} a[href^='/session/']`, "href"), "/session/codex%3Aweb1");
  await page.click(`${box} button.diff-btn`);
  await page.waitForFunction((b) => [...document.querySelectorAll(b + " pre.diff span.add")].some((x) => x.textContent.includes("Merged from the page.")), box);
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector("pre.diff")).whiteSpace), "pre-wrap", "long lines wrap");
  await shot(page, "drafts");
  // The vault's work tree holds the person's unrecorded notes (pictures.md):
  // the merge waits and names them, until the person records them.
  await page.click(`${box} button.merge`);
  await page.waitForSelector(`${box} .draft-status button.merge-with-edits`);
  assert.match(await page.textContent(`${box} .draft-status`), /uncommitted edit\(s\).*howto\/pictures\.md/);
  await page.click(`${box} .draft-status button.merge-with-edits`);
  await page.waitForFunction((b) => document.querySelector(b + " .draft-status").textContent.startsWith("Merged into main"), box);
  assert.ok(existsSync(join(v.vault, "howto", "web-ui.md")), "the clean work tree follows the merge");
  assert.match(execFileSync("git", ["-C", v.vault, "log", "-3", "--format=%B"]).toString(), /Lore-Draft: /);
  // The page follows what it just did, with no reload: the merged card
  // offers neither Merge nor Discard, and the count goes down.
  assert.equal(await page.locator(`${box} button.merge, ${box} button.discard`).count(), 0, "the merged Draft still offers Merge or Discard");
  await page.waitForFunction(() => document.querySelector("#drafts-count").textContent === "1");
  const second = `section[data-draft='${other}']`;
  await page.click(`${second} button.discard`);
  await page.waitForFunction((b) => document.querySelector(b + " .draft-status").textContent === "Discarded.", second);
  assert.equal(await page.locator(`${second} button.merge, ${second} button.discard`).count(), 0, "the discarded Draft still offers Merge or Discard");
  await page.waitForFunction(() => document.querySelector("#drafts-count").textContent === "");
  await page.close();
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

test("may be stale: a renamed function and a moved file, with the commit, the edit, a request for an agent, and the move's fix as a Draft", async (t) => {
  if (!needBrowser(t)) return;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector("#detail").textContent.includes("open Draft"));
  await page.click("#nav-stale");
  await page.waitForSelector(".stale-list li.stale");
  assert.equal(pathOf(page), "/stale");
  assert.ok((await page.getAttribute("#nav-stale", "class") || "").includes("active"));
  assert.equal(await page.locator(".stale-list li.stale").count(), 2, "only the citations that broke");
  const item = await page.locator(".stale-list li.stale").first().textContent();
  assert.match(item, /notes\/retry-backoff\.md:5 › Retry backoff › Cap/);
  assert.match(item, /cites `backoffFor` in sync\/retry\.go, removed in [0-9a-f]{7} on 2099-01-02 by e2e/);
  assert.match(item, /Edit: `backoffFor` is no longer in sync\/retry\.go/);
  assert.match(await page.locator("pre.ask").first().textContent(), /^Update notes\/retry-backoff\.md › Retry backoff › Cap: it cites .*Propose the change as a Draft\.$/);
  assert.equal((await page.textContent("#stale-count")).trim(), "2");
  assert.equal(await page.locator(".stale-list li.stale").first().locator("button.fix").count(), 0, "a removed name has no mechanical fix");
  const moved = page.locator(".stale-list li.stale").nth(1);
  assert.match(await moved.textContent(), /cites `sync\/queue\.go`, renamed to sync\/jobs\.go in [0-9a-f]{7} on 2099-01-02 by e2e/);
  await shot(page, "stale");
  // The move's fix: a Draft to review, not an edit of the note.
  const drafts = (await page.textContent("#drafts-count")).trim();
  await moved.locator("button.fix").click();
  await moved.locator(".fixed").waitFor();
  assert.match(await moved.locator(".fixed").textContent(), /^Draft made: drf_\S+ \(review and merge it under Drafts\)$/);
  await page.waitForFunction((before) => document.querySelector("#drafts-count").textContent !== before, drafts);
  assert.match(readFileSync(join(v.vault, "notes", "retry-backoff.md"), "utf8"), /`sync\/queue\.go`/, "the note itself is unchanged");
  // The note opens at the section.
  await page.click(".stale-list li.stale a");
  await page.waitForSelector("#detail .note .target");
  assert.match(pathOf(page), /^\/note\//);
  assert.equal((await page.textContent("#detail .note .target")).trim(), "Cap");
  await page.close();
});
