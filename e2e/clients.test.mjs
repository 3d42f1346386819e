// The real agent clients, end to end: Claude Code and Codex, installed from
// npm at the versions package.json pins, run headless in a workspace after
// `lore setup claude|codex` and the steps setup prints, each talking to a
// scripted model on loopback (fakemodel.mjs). The assertions are on what
// the model received: the loadout, each prompt's memory, the memory tool's
// result, the guard's refusal, and no Draft's text in any hook's output.
// Each client gets a fresh HOME; nothing leaves 127.0.0.1.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, appendFileSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { makeVault, connect, memory, jsonLines, LORE } from "./lib.mjs";
import { startFakeModel } from "./fakemodel.mjs";

const here = dirname(fileURLToPath(import.meta.url));
// The wrapper package's postinstall copies the native binary over its
// placeholder; where an npm that runs no install scripts left the
// placeholder, the platform package's own binary is the same program.
const CLAUDE = (() => {
  const wrapper = resolve(here, "node_modules/.bin/claude");
  if (existsSync(wrapper) && statSync(wrapper).size > 1 << 20) return wrapper;
  const scope = resolve(here, "node_modules/@anthropic-ai");
  for (const d of existsSync(scope) ? readdirSync(scope) : []) {
    const bin = join(scope, d, "claude");
    if (d.startsWith("claude-code-") && existsSync(bin)) return bin;
  }
  return wrapper;
})();
const CODEX = resolve(here, "node_modules/.bin/codex");

const DRAFT_MARK = "kestrel-draft-only-text";
// What the model stores through the memory tool in the store tests.
const STORED = { path: "howto/friday-ships.md", mark: "osprey-agent-stored-text" };
const storeOp = { store: { create: { path: STORED.path, body: `# Friday ships\n\nWe ship on Fridays, ${STORED.mark}: the release train leaves at noon.\n` } } };
const storedQuestion = { activate: { query: `when does the release train leave on Fridays ${STORED.mark}` } };
const PROMPT = "how do we ship a new release?";
// A question the vault's guidelines (LORE.md) answer word for word: the
// model's own activate asks it, and must get memory, not the guidelines.
const GUIDELINES_QUESTION = "what must I never store in memory";
const gitEnv = {
  GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost",
  GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost",
};

// modelDir is where the built-in model is installed for the real HOME; the
// clients' fresh HOMEs reach it through LORE_MODEL_DIR.
function modelDir() {
  try {
    const out = execFileSync(LORE, ["model", "status"], { encoding: "utf8" });
    const m = out.match(/installed in (\S+)/);
    return m ? m[1] : "";
  } catch {
    return "";
  }
}

// workspace: the demo vault, a code repository bound to project api whose
// mcp/log.go breaks the rule no-fmt-println-in-mcp once staged, an open
// Draft of the project (stored through lore mcp, as an agent would) that
// must never reach a hook's output, and a release note that cites a
// function the code had when the note was written (2020) and renamed
// after (2099): the prompt's memory must say it may be stale.
async function workspace() {
  const v = makeVault("api");
  const release = join(v.vault, "howto", "release.md");
  writeFileSync(release, readFileSync(release, "utf8").replace("## Cutting the release\n", "## Cutting the release\n\n`publishRelease` in `release/publish.go` uploads the binaries.\n"));
  v.git("commit", "-qam", "the release note cites the code");
  const git = (...args) => execFileSync("git", args, { cwd: v.workspace, env: { ...process.env, ...gitEnv }, stdio: "pipe" }).toString();
  const gitAt = (date, ...args) => execFileSync("git", args, { cwd: v.workspace, stdio: "pipe",
    env: { ...process.env, ...gitEnv, GIT_AUTHOR_DATE: date + "T12:00:00Z", GIT_COMMITTER_DATE: date + "T12:00:00Z" } });
  git("init", "-q", "-b", "main");
  mkdirSync(join(v.workspace, "release"));
  writeFileSync(join(v.workspace, "release", "publish.go"), "package release\n\nfunc publishRelease() {}\n");
  git("add", "-A");
  gitAt("2020-01-02", "commit", "-qm", "release");
  writeFileSync(join(v.workspace, "main.go"), "package main\n");
  git("add", "-A");
  git("commit", "-qm", "code");
  writeFileSync(join(v.workspace, "release", "publish.go"), "package release\n\nfunc shipRelease() {}\n");
  gitAt("2099-01-02", "commit", "-qam", "rename publishRelease");
  mkdirSync(join(v.workspace, "mcp"));
  writeFileSync(join(v.workspace, "mcp", "log.go"), 'package mcp\n\nimport "fmt"\n\nfunc log() { fmt.Println("x") }\n');
  const a = await connect(v.workspace);
  const stored = await memory(a.client, { op: { store: { create: { path: "howto/ship-checklist.md", body: `# Ship checklist\n\nWhen we ship a new release, ${DRAFT_MARK}: check the release notes.\n` } } } });
  await a.close();
  assert.equal(stored.isError, false, JSON.stringify(stored.data));
  return { ...v, git, draftID: stored.data.draft_id, commits: 3 };
}

function home() {
  const h = mkdtempSync(join(tmpdir(), "lore-client-home-"));
  return h;
}

// clientEnv is a client's whole environment: a fresh HOME, no telemetry,
// the model on loopback; nothing of the machine's own agent set-up.
function clientEnv(h, extra = {}) {
  const env = {
    PATH: process.env.PATH, HOME: h, USER: "e2e", LANG: "C.UTF-8", TERM: "dumb",
    XDG_CONFIG_HOME: join(h, ".config"), XDG_CACHE_HOME: join(h, ".cache"), XDG_DATA_HOME: join(h, ".local/share"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1",
    LORE_NO_SERVER: "1", ...gitEnv, ...extra,
  };
  const m = modelDir();
  if (m) env.LORE_MODEL_DIR = m;
  return env;
}

// run runs a client to its end and returns { code, stdout, stderr }.
function run(bin, args, cwd, env, timeoutMs = 120000) {
  return new Promise((resolvePromise, reject) => {
    const p = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => { p.kill("SIGKILL"); reject(new Error(`${bin} ${args.join(" ")}: no end within ${timeoutMs} ms\n${stdout}\n${stderr}`)); }, timeoutMs);
    p.on("error", reject);
    p.on("close", (code) => { clearTimeout(timer); resolvePromise({ code, stdout, stderr }); });
  });
}

function lore(args, cwd, env) {
  return execFileSync(LORE, args, { cwd, env, encoding: "utf8" });
}

// texts flattens every string a request holds, with where it sits.
function texts(v, path = "", out = []) {
  if (typeof v === "string") out.push({ path, text: v });
  else if (Array.isArray(v)) v.forEach((x, i) => texts(x, `${path}[${i}]`, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) texts(x, path ? `${path}.${k}` : k, out);
  return out;
}

const START_LEAD = "lore: this project's reviewed memory";
const PROMPT_LEAD = "lore: reviewed project memory relevant to this prompt";
// The marker under a fragment whose citation of code broke, as the model gets it.
const STALE = /[0-9a-f]{6} ⚠ may be stale \(check the code before relying on this\): cites `publishRelease` in release\/publish\.go, removed in [0-9a-f]{7} on 2099-01-02/;

// handleIn finds the session handle the session start gave the model.
function handleIn(body) {
  for (const { text } of texts(body)) {
    const m = text.includes(START_LEAD) && text.match(/hs1\.[0-9a-f]{24}/);
    if (m) return m[0];
  }
  return undefined;
}

// hookTexts are the hooks' texts as the model received them: each from
// lore's lead to the next lead or the end of that string (a client may
// wrap them, and Claude Code puts several into one system text).
function hookTexts(body) {
  const out = [];
  for (const { text } of texts(body)) {
    const re = new RegExp(`${START_LEAD}|${PROMPT_LEAD}`, "g");
    const at = [...text.matchAll(re)].map((m) => m.index);
    at.forEach((i, k) => out.push(text.slice(i, k + 1 < at.length ? at[k + 1] : undefined)));
  }
  return out;
}

const skipClients = !existsSync(CLAUDE) || !existsSync(CODEX) ? "the pinned clients are not installed (cd e2e && npm ci)" : false;

test("Claude Code: loadout, the prompt's memory once, the memory tool allowed, Drafts marked, the guard's refusal", { skip: skipClients, timeout: 240000 }, async () => {
  const w = await workspace();
  const h = home();
  const model = await startFakeModel(({ body, results }) => {
    if (results === 0) return { tool: "ToolSearch", input: { query: "select:mcp__lore__memory", max_results: 1 } };
    if (results === 1) return { tool: "mcp__lore__memory", input: { op: { activate: { query: PROMPT, state: handleIn(body) } } } };
    if (results === 2) return { tool: "mcp__lore__memory", input: { op: { activate: { query: GUIDELINES_QUESTION } } } };
    if (results === 3) return { tool: "Bash", input: { command: "git add -A && git commit -m 'log from the server'", description: "Commit" } };
    return { text: "done" };
  });
  try {
    const env = clientEnv(h, { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-ant-e2e" });
    const setup = lore(["setup", "claude"], w.workspace, env);
    assert.match(setup, /mcp__lore__memory are approved/);
    assert.doesNotMatch(setup, /you still need to/, "setup leaves the person nothing to do for Claude Code");
    // Bash is the person's own choice to allow; the memory tool is not in
    // --allowedTools: setup's settings allow it.
    const r = await run(CLAUDE, ["-p", PROMPT, "--allowedTools", "Bash"], w.workspace, env);
    if (process.env.LORE_E2E_DUMP) writeFileSync(process.env.LORE_E2E_DUMP + ".claude.out", r.stdout + "\n----\n" + r.stderr);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const main = model.requests.filter((q) => q.kind === "anthropic" && q.body?.tools?.some((t) => t.name === "Bash"));
    assert.ok(main.length >= 5, `the scripted conversation ran (${main.length} main requests)`);
    const first = main[0].body;
    const hooks = hookTexts(first);
    assert.ok(hooks.some((t) => t.startsWith(START_LEAD) && t.includes("Context Loadout: api")), "the model starts with the loadout");
    assert.ok(hooks.some((t) => t.includes("The tool mcp__lore__memory has the rest")), "the loadout names the tool as Claude Code lists it");
    assert.ok(hooks.some((t) => t.startsWith(PROMPT_LEAD) && t.includes("howto/release.md")), "the prompt's memory reaches the model");
    assert.ok(hooks.some((t) => t.startsWith(PROMPT_LEAD) && STALE.test(t)), "the model is told the release section may be stale, with the commit");
    for (const q of main) for (const t of hookTexts(q.body)) assert.ok(!t.includes(DRAFT_MARK), "no hook puts a Draft's text before the model");
    const last = main[main.length - 1].body;
    const prompts = hookTexts(last).filter((t) => t.startsWith(PROMPT_LEAD));
    assert.equal(new Set(prompts).size, 1, "the prompt's memory is in the conversation once");
    // The memory tool's result, as the model received it.
    const results = texts(last).filter(({ path }) => path.includes("content")).map(({ text }) => text);
    const tool = results.find((t) => t.includes("next_state") || t.includes("fragments"));
    assert.ok(tool, "the memory tool answered");
    assert.doesNotMatch(tool, /haven't granted|requested permissions/, "the memory tool is not refused");
    assert.ok(tool.includes(DRAFT_MARK), "the agent's own activate shows the project's Draft");
    assertDraftMarked(tool, w.draftID);
    assert.match(tool, /reuse/, "what the prompt hook delivered comes back as reuse");
    assert.match(tool, /\\?"stale\\?"\s*:\s*\[\s*\{\s*\\?"cites\\?"\s*:\s*\\?"publishRelease/, "the memory tool's answer marks the section stale too");
    // The vault's guidelines are loaded by name, never delivered as memory:
    // asked what must never be stored, the model gets the security note's
    // section, and no fragment of LORE.md (its "Never store" came first).
    const secrets = results.find((t) => t.includes("guides/security.md") && t.includes("Never store secrets"));
    assert.ok(secrets, "the memory tool answered the question on what never to store");
    assert.doesNotMatch(secrets, /\\?"path\\?"\s*:\s*\\?"LORE\.md/, "no fragment of the vault's guidelines reaches the model");
    const refusal = results.find((t) => t.includes("stdout belongs to the MCP protocol"));
    assert.ok(refusal, "the guard's refusal reaches the model");
    assert.equal(w.git("log", "--oneline").trim().split("\n").length, w.commits, "the rule-breaking commit was not made");
    // lore activity reads the session from Claude Code's own transcript.
    assertActivity(w.workspace, env, "claude", w.draftID);
    // The Draft waiting for review is told to the person (Claude Code's
    // hook_system_message, shown in its UI), never to the model.
    assertNotToTheModel(model.requests);
    const transcript = readFileSync(JSON.parse(lore(["activity", "list", "--json"], w.workspace, env)).sessions.find((x) => x.host === "claude").file, "utf8");
    assert.match(transcript, /"type":"hook_system_message"[^\n]*1 Draft waits for your review/, "the person is told a Draft waits");
  } finally {
    if (process.env.LORE_E2E_DUMP) writeFileSync(process.env.LORE_E2E_DUMP + "." + (model.requests.some((q) => q.kind === "openai") ? "codex" : "claude") + ".json", JSON.stringify(model.requests, null, 1));
    await model.close();
    w.cleanup();
  }
});

test("Codex: after trusting the project and approving the hooks, the same promises hold", { skip: skipClients, timeout: 240000 }, async () => {
  const w = await workspace();
  const h = home();
  let trusted = false; // the untrusted run's model only answers
  const model = await startFakeModel(({ body, results }) => {
    if (!trusted) return { text: "done" };
    if (results === 0) return { tool: "memory", namespace: "mcp__lore", input: { op: { activate: { query: PROMPT, state: handleIn(body) } } } };
    if (results === 1) return { tool: "exec_command", input: { cmd: "git add -A && git commit -m 'log from the server'" } };
    return { text: "done" };
  });
  try {
    const { codexHome, env } = codexConfig(h, model.url);
    const setup = lore(["setup", "codex"], w.workspace, env);
    assert.match(setup, /does not trust/, "setup says the project must be trusted");
    assert.match(setup, /not approved lore's hooks/, "setup says the hooks must be approved");
    assert.match(lore(["doctor"], w.workspace, env), /Codex \(project scope\): set up, but not running yet/);
    // Untrusted, Codex loads none of it, as setup said.
    let r = await run(CODEX, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", PROMPT], w.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(!model.requests.some((q) => hookTexts(q.body).length > 0), "an untrusted project gets no hook");
    // The person's steps: trust the project, approve the hooks. The TUI
    // writes these; Codex's own app-server says what their hashes are.
    await trustCodex(w.workspace, codexHome, env);
    assert.match(lore(["doctor"], w.workspace, env), /Codex \(project scope\): set up and ready/);
    model.requests.length = 0;
    trusted = true;
    r = await run(CODEX, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", PROMPT], w.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    if (process.env.LORE_E2E_DUMP) writeFileSync(process.env.LORE_E2E_DUMP + ".codex.out", r.stdout + "\n----\n" + r.stderr);
    assert.doesNotMatch(r.stderr, /codex_hooks` is deprecated/, "setup's feature key is the current one");
    const main = model.requests.filter((q) => q.kind === "openai");
    assert.ok(main.length >= 3, `the scripted conversation ran (${main.length} requests)`);
    const first = main[0].body;
    const hooks = hookTexts(first);
    assert.ok(hooks.some((t) => t.startsWith(START_LEAD) && t.includes("Context Loadout: api")), "the model starts with the loadout");
    assert.ok(hooks.some((t) => t.includes("The tool mcp__lore.memory has the rest")), "the loadout names the tool as Codex lists it");
    assert.ok(hooks.some((t) => t.startsWith(PROMPT_LEAD) && t.includes("howto/release.md")), "the prompt's memory reaches the model");
    assert.ok(hooks.some((t) => t.startsWith(PROMPT_LEAD) && STALE.test(t)), "the model is told the release section may be stale, with the commit");
    for (const q of main) for (const t of hookTexts(q.body)) assert.ok(!t.includes(DRAFT_MARK), "no hook puts a Draft's text before the model");
    const last = main[main.length - 1].body;
    const outputs = (last.input || []).filter((i) => i.type === "function_call_output").map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output)));
    const tool = outputs.find((t) => t.includes("fragments") || t.includes("next_state"));
    assert.ok(tool, "the memory tool answered");
    assert.ok(tool.includes(DRAFT_MARK), "the agent's own activate shows the project's Draft");
    assertDraftMarked(tool, w.draftID);
    assert.match(tool, /reuse/, "what the prompt hook delivered comes back as reuse");
    assert.match(tool, /\\?"stale\\?"\s*:\s*\[\s*\{\s*\\?"cites\\?"\s*:\s*\\?"publishRelease/, "the memory tool's answer marks the section stale too");
    assert.ok(outputs.some((t) => t.includes("stdout belongs to the MCP protocol")), "the guard's refusal reaches the model");
    assert.equal(w.git("log", "--oneline").trim().split("\n").length, w.commits, "the rule-breaking commit was not made");
    assertActivity(w.workspace, env, "codex", w.draftID);
    // Codex shows a hook's systemMessage as a warning of the hook's run
    // (codex-rs hooks/src/events/session_start.rs); the model never gets it.
    assertNotToTheModel(model.requests);
    // A resumed session keeps its history, the loadout with it: the resume
    // sends no second copy, and the new prompt still gets its memory.
    model.requests.length = 0;
    r = await run(CODEX, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", "resume", "--last", "what are the rate limits of the API?"], w.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const resumed = model.requests.filter((q) => q.kind === "openai").at(-1).body;
    const starts = hookTexts(resumed).filter((t) => t.startsWith(START_LEAD));
    assert.equal(starts.length, 1, `the resumed conversation holds the loadout once, not ${starts.length} times`);
    assert.equal(hookTexts(resumed).filter((t) => t.startsWith(PROMPT_LEAD)).length, 2, "each of the two prompts got its memory once");
  } finally {
    if (process.env.LORE_E2E_DUMP) writeFileSync(process.env.LORE_E2E_DUMP + "." + (model.requests.some((q) => q.kind === "openai") ? "codex" : "claude") + ".json", JSON.stringify(model.requests, null, 1));
    await model.close();
    w.cleanup();
  }
});

// The first commit of a new repository is checked as any other. With no
// HEAD yet, git diff HEAD fails; lore once let that commit through
// unchecked, then (with a check that fails refused unchecked) would have
// refused it without saying which rule. Through the real client: the
// agent's first commit, which breaks no-fmt-println-in-mcp, is refused
// with the rule's message, and no commit is made; a clean first commit
// then goes through.
// The model's own store, through the real client: what it stores is a
// Draft (nothing reaches the vault's reviewed history), the store's answer
// says so, and the model's next activate shows it marked as a Draft.
test("Claude Code: what the model stores is a Draft, and its next activate says so", { skip: skipClients, timeout: 240000 }, async () => {
  const w = await workspace();
  const h = home();
  const model = await startFakeModel(({ results }) => {
    if (results === 0) return { tool: "ToolSearch", input: { query: "select:mcp__lore__memory", max_results: 1 } };
    if (results === 1) return { tool: "mcp__lore__memory", input: { op: storeOp } };
    if (results === 2) return { tool: "mcp__lore__memory", input: { op: storedQuestion } };
    return { text: "done" };
  });
  try {
    const env = clientEnv(h, { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-ant-e2e" });
    lore(["setup", "claude"], w.workspace, env);
    const headBefore = vaultGit(w.vault, "rev-parse", "HEAD").trim();
    const r = await run(CLAUDE, ["-p", "remember that we ship on Fridays"], w.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const main = model.requests.filter((q) => q.kind === "anthropic" && q.body?.tools?.some((t) => t.name === "Bash"));
    assert.ok(main.length >= 4, `the scripted conversation ran (${main.length} main requests)`);
    const results = texts(main.at(-1).body).filter(({ path }) => path.includes("content")).map(({ text }) => text);
    assertStoredIsADraft(results, w.vault, headBefore);
    for (const q of main) for (const t of hookTexts(q.body)) assert.ok(!t.includes(STORED.mark), "no hook puts the model's own Draft before it");
  } finally {
    await model.close();
    w.cleanup();
  }
});

test("Codex: what the model stores is a Draft, and its next activate says so", { skip: skipClients, timeout: 240000 }, async () => {
  const w = await workspace();
  const h = home();
  const model = await startFakeModel(({ results }) => {
    if (results === 0) return { tool: "memory", namespace: "mcp__lore", input: { op: storeOp } };
    if (results === 1) return { tool: "memory", namespace: "mcp__lore", input: { op: storedQuestion } };
    return { text: "done" };
  });
  try {
    const { codexHome, env } = codexConfig(h, model.url);
    lore(["setup", "codex"], w.workspace, env);
    await trustCodex(w.workspace, codexHome, env);
    const headBefore = vaultGit(w.vault, "rev-parse", "HEAD").trim();
    const r = await run(CODEX, ["exec", "--skip-git-repo-check", "-s", "danger-full-access", "remember that we ship on Fridays"], w.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const main = model.requests.filter((q) => q.kind === "openai");
    assert.ok(main.length >= 3, `the scripted conversation ran (${main.length} requests)`);
    const outputs = (main.at(-1).body.input || []).filter((i) => i.type === "function_call_output").map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output)));
    assertStoredIsADraft(outputs, w.vault, headBefore);
    for (const q of main) for (const t of hookTexts(q.body)) assert.ok(!t.includes(STORED.mark), "no hook puts the model's own Draft before it");
  } finally {
    await model.close();
    w.cleanup();
  }
});

test("Claude Code: the first commit of a new repository is checked by the guard", { skip: skipClients, timeout: 240000 }, async () => {
  const v = makeVault("api");
  const h = home();
  const git = (...args) => execFileSync("git", args, { cwd: v.workspace, env: { ...process.env, ...gitEnv }, stdio: "pipe" }).toString();
  git("init", "-q", "-b", "main");
  mkdirSync(join(v.workspace, "mcp"));
  writeFileSync(join(v.workspace, "mcp", "log.go"), 'package mcp\n\nimport "fmt"\n\nfunc log() { fmt.Println("x") }\n');
  const model = await startFakeModel(({ results }) => {
    if (results === 0) return { tool: "Bash", input: { command: "git add -A && git commit -m 'first commit'", description: "Commit" } };
    if (results === 1) return { tool: "Bash", input: { command: "printf 'package mcp\\n' > mcp/log.go", description: "Drop the print" } };
    if (results === 2) return { tool: "Bash", input: { command: "git add -A && git commit -m 'first commit'", description: "Commit" } };
    return { text: "done" };
  });
  try {
    const env = clientEnv(h, { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-ant-e2e" });
    lore(["setup", "claude"], v.workspace, env);
    const r = await run(CLAUDE, ["-p", "commit the logging change", "--allowedTools", "Bash"], v.workspace, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const main = model.requests.filter((q) => q.kind === "anthropic" && q.body?.tools?.some((t) => t.name === "Bash"));
    // What the model had read after the first commit was refused.
    const results = texts(main[1].body).filter(({ path }) => path.includes("content")).map(({ text }) => text);
    const refusal = results.find((t) => t.includes("refuse this commit"));
    assert.ok(refusal, `the guard's refusal reaches the model:\n${results.join("\n---\n").slice(-3000)}`);
    assert.doesNotMatch(refusal, /could not check/, "the first commit is checked, not refused unchecked");
    assert.match(refusal, /\[no-fmt-println-in-mcp\] error mcp\/log\.go:5/, "the refusal names the rule and the line");
    assert.ok(main.length >= 4, `the scripted conversation ran (${main.length} main requests)`);
    const after = texts(main.at(-1).body).filter(({ path }) => path.includes("content")).map(({ text }) => text);
    assert.equal(after.filter((t) => t.includes("refuse this commit")).length, 1, "the clean first commit is not refused");
    assert.equal(git("log", "--format=%s").trim(), "first commit", "the clean first commit is the repository's only commit");
    assert.equal(git("show", "HEAD:mcp/log.go"), "package mcp\n", "what was committed is the clean file");
  } finally {
    await model.close();
    v.cleanup();
  }
});

// assertNotToTheModel: the line about Drafts waiting for review reached
// no request to the model.
function assertNotToTheModel(requests) {
  for (const q of requests) assert.ok(!JSON.stringify(q.body).includes("for your review"), "the person's line about waiting Drafts reached the model");
}

// assertDraftMarked: in what the model read of the memory tool's result, the
// Draft's fragment says it is a Draft before its text does.
function assertDraftMarked(tool, draftID) {
  const at = tool.indexOf(DRAFT_MARK);
  const before = tool.slice(Math.max(0, tool.lastIndexOf("{", tool.lastIndexOf('"content"', at))), at);
  assert.ok(before.includes('"scope":"draft"') || before.includes('\\"scope\\":\\"draft\\"') || /Draft drf_/.test(tool.slice(0, at)),
    `the Draft's fragment is marked as a Draft before its text:\n${tool.slice(Math.max(0, at - 400), at + 50)}`);
  assert.ok(tool.includes(draftID), "the Draft's id is given");
}

// assertActivity: lore activity lists the session (read from the client's
// own log), and shows the loadout, the prompt's delivery and the agent's
// activate, the Draft marked as a Draft, and the guard's refusal.
function assertActivity(workspace, env, host, draftID) {
  const list = JSON.parse(lore(["activity", "list", "--json"], workspace, env));
  const s = (list.sessions || []).find((x) => x.host === host);
  assert.ok(s, `lore activity lists the ${host} session:\n${JSON.stringify(list).slice(0, 2000)}`);
  const page = JSON.parse(lore(["activity", "show", s.session_token, "--json"], workspace, env));
  const acts = page.requests.flatMap((r) => r.activations);
  assert.ok(acts.some((a) => a.via === "hook" && a.event === "SessionStart"), "activity shows the loadout");
  assert.ok(acts.some((a) => a.via === "hook" && a.event === "UserPromptSubmit" && a.fragments.length > 0), "activity shows the prompt's delivery");
  const call = acts.find((a) => a.via !== "hook" && a.status === "ok");
  assert.ok(call, `activity shows the agent's activate: ${JSON.stringify(acts).slice(0, 2000)}`);
  assert.ok(call.fragments.some((f) => f.draft_id === draftID), "activity marks the Draft's fragment as a Draft");
  assert.ok(call.fragments.filter((f) => !f.draft_id).every((f) => f.draft_id === undefined), "only the Draft's fragment is marked");
  const refusals = page.requests.flatMap((r) => r.refusals || []);
  assert.ok(refusals.some((r) => r.command.includes("git commit") && r.reason.includes("no-fmt-println-in-mcp")), `activity shows the guard's refusal: ${JSON.stringify(page.requests).slice(0, 1500)}`);
  const text = lore(["activity", "show", s.session_token], workspace, env);
  assert.match(text, /Draft drf_\S+, not reviewed/, "the text view marks the Draft");
  assert.match(text, /lore guard refused "git add -A && git commit/, "the text view shows the refusal");
}

// codexHooks asks Codex's own app-server which hooks it found for cwd, with
// the hash an approval records (the TUI's /hooks approves the same way).
async function codexHooks(cwd, env) {
  const c = jsonLines(CODEX, ["app-server"], { cwd, env });
  try {
    c.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: "lore-e2e", version: "1" } } });
    c.send({ jsonrpc: "2.0", method: "initialized" });
    c.send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [cwd] } });
    const answer = await c.reply(2, 30000);
    const hooks = answer.result.data.flatMap((d) => d.hooks).filter((hk) => hk.command.includes(" hook ") && hk.command.includes("--client codex"));
    assert.equal(hooks.length, 3, `Codex finds lore's three hooks: ${JSON.stringify(answer)}`);
    return hooks;
  } finally {
    c.proc.kill();
  }
}

// vaultGit runs git in the vault's repository.
function vaultGit(vault, ...args) {
  return execFileSync("git", ["-C", vault, ...args], { encoding: "utf8" });
}

// assertStoredIsADraft: in what the model read of the memory tool's
// results, the store's answer names a Draft, and the next activate shows
// the stored text (STORED) marked as that Draft before its text; the
// vault's reviewed history (head before) and work tree do not hold it.
function assertStoredIsADraft(results, vault, headBefore) {
  const mark = STORED.mark;
  const stored = results.find((t) => /draft_id/.test(t) && !t.includes("fragments"));
  assert.ok(stored, `the store's answer reached the model:\n${results.join("\n---\n").slice(-2000)}`);
  const id = stored.match(/drf_[0-9A-Za-z_-]+/)?.[0];
  assert.ok(id, `the store's answer names the Draft: ${stored}`);
  assert.doesNotMatch(stored, /\\?"published\\?"\s*:\s*true/, "the store's answer does not call the Draft published");
  const tool = results.find((t) => t.includes(mark) && (t.includes("next_state") || t.includes("fragments")));
  assert.ok(tool, "the model's next activate finds what it stored");
  const at = tool.indexOf(mark);
  const before = tool.slice(Math.max(0, tool.lastIndexOf("{", tool.lastIndexOf('"content"', at))), at);
  assert.ok(before.includes('"scope":"draft"') || before.includes('\\"scope\\":\\"draft\\"'), `the stored text is marked as a Draft before its text:\n${tool.slice(Math.max(0, at - 400), at + 50)}`);
  assert.ok(tool.includes(id), "the activate names the Draft the store made");
  assert.equal(vaultGit(vault, "rev-parse", "HEAD").trim(), headBefore, "nothing the model stored moved the vault's reviewed history");
  assert.ok(!vaultGit(vault, "ls-tree", "-r", "--name-only", "HEAD").split("\n").includes(STORED.path), "the stored note is not in the reviewed vault");
  assert.ok(!existsSync(join(vault, STORED.path)), "the stored note is not in the vault's work tree");
}

// codexConfig writes a fresh CODEX_HOME whose model is the scripted one at
// url, and returns it with the client's environment. features.plugins
// off: Codex would otherwise run git ls-remote on its curated plugin
// repository at every start (a DNS look-up and a connection off this
// machine); nothing leaves 127.0.0.1.
function codexConfig(h, url) {
  const codexHome = join(h, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), [
    'model = "gpt-e2e"', 'model_provider = "fake"', "",
    "[model_providers.fake]", 'name = "fake"', `base_url = "${url}/v1"`, 'wire_api = "responses"', "",
    "[features]", "plugins = false", "",
  ].join("\n"));
  return { codexHome, env: clientEnv(h, { CODEX_HOME: codexHome }) };
}

// trustCodex takes the person's steps after lore setup codex: trust the
// project and approve lore's hooks. The TUI writes these; Codex's own
// app-server says what the hooks' hashes are.
async function trustCodex(workspace, codexHome, env) {
  appendFileSync(join(codexHome, "config.toml"), `\n[projects.${JSON.stringify(workspace)}]\ntrust_level = "trusted"\n`);
  for (const hk of await codexHooks(workspace, env)) {
    appendFileSync(join(codexHome, "config.toml"), `\n[hooks.state.${JSON.stringify(hk.key)}]\ntrusted_hash = ${JSON.stringify(hk.currentHash)}\n`);
  }
}
