// The vault profile (specs/003), every tool, through the TypeScript SDK client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, mkdirSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeVault, connect, call } from "./lib.mjs";

let v, c, home;
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost" };
before(async () => {
  v = makeVault("api");
  // The workspace is a code repository too, with an uncommitted change.
  const g = (...a) => execFileSync("git", a, { cwd: v.workspace, env: gitEnv, stdio: "pipe" });
  g("init", "-q", "-b", "main");
  mkdirSync(join(v.workspace, "scripts"));
  writeFileSync(join(v.workspace, "scripts/deploy.sh"), "#!/bin/sh\ngit push origin main\n");
  g("add", "-A");
  g("commit", "-qm", "start");
  writeFileSync(join(v.workspace, "scripts/deploy.sh"), "#!/bin/sh\ngit push --force origin main\n");
  home = mkdtempSync(join(tmpdir(), "lore-home-"));
  c = await connect(v.workspace, { HERMES_HOME: join(home, "hermes"), PI_CODING_AGENT_DIR: join(home, "omp") }, ["mcp", "--profile", "vault"]);
});
after(async () => {
  await c?.close();
  v?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

test("tools/list: the eight tools of the vault contract", async () => {
  const { tools } = await c.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["distill_session_skill", "flush_session", "gc_session_context", "get_project_loadout", "guard_check", "inspect_log_node", "offload_context", "recall_memory"]);
  const side = await connect(v.workspace, {}, ["mcp", "--sidecar"]);
  try {
    const { tools: five } = await side.client.listTools();
    assert.deepEqual(five.map((t) => t.name).sort(), ["distill_session_skill", "flush_session", "get_project_loadout", "guard_check", "recall_memory"]);
  } finally {
    await side.close();
  }
});

test("get_project_loadout: ≤ 300 tokens, diff brings the relevant decision first", async () => {
  const r = await call(c.client, "get_project_loadout", {});
  assert.equal(r.isError, false);
  assert.match(r.text, /^# Context Loadout: api/);
  assert.ok(r.data.data.tokens <= 300);
  const d = await call(c.client, "get_project_loadout", { diff: true });
  assert.deepEqual(d.data.data.changed_paths, ["scripts/deploy.sh"]);
  assert.match(d.text, /## Active for this change\n- \[\[decisions\/0003-sync-on-demand.md\]\]/);
  const bad = await call(c.client, "get_project_loadout", { project_name: "web" });
  assert.equal(bad.isError, true);
});

test("recall_memory: compact lines by default, whole notes with full", async () => {
  const r = await call(c.client, "recall_memory", { query: "why SQLite for the index", limit: 3 });
  assert.equal(r.isError, false);
  const all = r.text.trim().split("\n");
  const lines = all.filter((l) => l.startsWith("!μ:"));
  assert.equal(lines.length, 3);
  // This server embeds nothing (LORE_MCP_NO_EMBED): the answer says the vectors are missing.
  assert.match(all[all.length - 1], /sections have no vector yet/);
  assert.ok(r.data.data.vectors_pending > 0);
  for (const l of lines) assert.match(l, /^!μ:[^|]+\|[^|]+\.md\|score:[0-9.]+\|links:\d+\/\d+ § /);
  assert.match(lines[0], /decisions\/0001-sqlite-for-the-index\.md/);
  const full = await call(c.client, "recall_memory", { query: "why SQLite for the index", limit: 1, full: true, mode: "bm25" });
  assert.match(full.text, /^<!-- decisions\/0001-sqlite-for-the-index\.md/);
  assert.match(full.text, /\n---\nid: /);
  const bad = await call(c.client, "recall_memory", { query: "x", mode: "fuzzy" });
  assert.equal(bad.isError, true);
  // Spec 003 sets no maximum on limit and allows fields its schema does not name.
  const many = await call(c.client, "recall_memory", { query: "release", limit: 500, mode: "bm25", session: "s-1" });
  assert.equal(many.isError, false, many.text);
  assert.ok(many.text.trim().split("\n").length >= 1);
});

test("guard_check: the working tree, a diff, files, a branch, strict", async () => {
  const wt = await call(c.client, "guard_check", {});
  assert.equal(wt.isError, false);
  assert.equal(wt.data.ok, false);
  assert.equal(wt.data.violations[0].rule, "no-force-push");
  assert.match(wt.text, /❌ Living ADR Guard Failure: 1 violation\(s\) detected/);
  assert.match(wt.text, /- \[no-force-push\] scripts\/deploy.sh Line 2: .git push --force origin main. violates the rule/);
  const diff = "diff --git a/mcp/x.go b/mcp/x.go\n--- a/mcp/x.go\n+++ b/mcp/x.go\n@@ -1 +1,2 @@\n package mcp\n+func f() { fmt.Println(\"hi\") }\n";
  const d = await call(c.client, "guard_check", { diff });
  assert.equal(d.data.violations[0].rule, "no-fmt-println-in-mcp");
  assert.equal(d.data.violations[0].line, 2);
  const f = await call(c.client, "guard_check", { files: ["scripts/deploy.sh"] });
  assert.equal(f.data.violations.length, 1);
  const ok = await call(c.client, "guard_check", { diff: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+fine\n", strict: true });
  assert.equal(ok.data.ok, true);
  const br = await call(c.client, "guard_check", { branch: "main" });
  assert.equal(br.data.violations.length, 0, "nothing committed since main");
  const bad = await call(c.client, "guard_check", { diff: "@@ -1 +1 @@\n+x\n" });
  assert.equal(bad.isError, true);
  // A diff as agents write it (the spec's example shape: no ---/+++/@@ lines).
  const loose = await call(c.client, "guard_check", { diff: "diff --git a/scripts/release.sh b/scripts/release.sh\n+git push --force origin main\n" });
  assert.equal(loose.isError, false, loose.text);
  assert.equal(loose.data.ok, false);
  assert.equal(loose.data.violations[0].line, 1);
  // Text that is not a diff is an error, never ok.
  const prose = await call(c.client, "guard_check", { diff: "I changed the deploy script to force-push" });
  assert.equal(prose.isError, true);
  assert.match(prose.data.error.message, /cannot be read as a diff/);
});

test("flush_session: a Draft in the category's folder, superseding in the same Draft", async () => {
  const r = await call(c.client, "flush_session", {
    title: "ADR 0007: Sync over SSH only",
    category: "decision",
    summary: "Sync uses SSH remotes only.",
    tags: ["sync", "adr"],
    related_notes: ["ADR 0003: Sync on demand with backoff"],
    supersedes: "decisions/0003-sync-on-demand.md",
    content: "## Decision\n\nOnly SSH remotes.\n\n## Rules\n\n- deny: `https://`\n",
  });
  assert.equal(r.isError, false, r.text);
  assert.equal(r.data.data.path, "decisions/0007-sync-over-ssh-only.md");
  assert.match(r.text, /Draft drf_/);
  const draft = r.data.data.result.draft_id;
  const branch = execFileSync("git", ["-C", v.vault, "show", "--stat", "--format=%B", `drafts/api/${draft}`]).toString();
  assert.match(branch, /decisions\/0003-sync-on-demand.md/);
  assert.match(branch, /decisions\/0007-sync-over-ssh-only.md/);
  const old = execFileSync("git", ["-C", v.vault, "show", `drafts/api/${draft}:decisions/0003-sync-on-demand.md`]).toString();
  assert.match(old, /status: superseded/);
  assert.match(old, /superseded_by: mem_/);
  const neu = execFileSync("git", ["-C", v.vault, "show", `drafts/api/${draft}:decisions/0007-sync-over-ssh-only.md`]).toString();
  assert.match(neu, /supersedes:\n    - mem_01JDEMO0000000000000000003/);
  assert.match(neu, /\[\[ADR 0003: Sync on demand with backoff\]\]/);
  // An unmerged Draft switches no rule off: the guard obeys published memory.
  const wt = await call(c.client, "guard_check", {});
  assert.equal(wt.data.violations.filter((x) => x.rule === "no-force-push").length, 1);
  assert.equal(wt.data.violations.filter((x) => x.rule.includes("L")).length, 0, "the Draft's new rule does not apply either");
  const missing = await call(c.client, "flush_session", { title: "x", content: "y", supersedes: ["no such note"] });
  assert.equal(missing.isError, true);
  assert.equal(missing.data.error.code, "memory_resource_not_found");
});

const trace = [
  "$ go test ./...",
  "--- FAIL: TestSync (0.01s)",
  "    sync_test.go:42: error: remote rejected: non-fast-forward",
  "FAIL",
  "$ git fetch origin",
  "$ git rebase origin/main",
  "$ go test ./...",
  "ok  	example.com/sync	0.02s",
].join("\n");

test("distill_session_skill: dry run, vault Draft, hermes and omp layouts", async () => {
  const dry = await call(c.client, "distill_session_skill", { raw_trace: trace, dry_run: true });
  assert.equal(dry.isError, false);
  const sk = dry.data.data.skill;
  assert.match(sk.error_signature, /remote rejected: non-fast-forward/);
  assert.deepEqual(sk.commands, ["go test ./...", "git fetch origin", "git rebase origin/main"]);
  assert.match(sk.final_state[0], /^ok/);
  assert.match(dry.text, /^Preview \(dry run, nothing written\) of skills\//);
  const saved = await call(c.client, "distill_session_skill", { raw_trace: trace, title: "Rebase after a rejected push" });
  assert.match(saved.text, /Draft drf_/);
  assert.equal(saved.data.data.path, "skills/rebase-after-a-rejected-push.md");
  const h = await call(c.client, "distill_session_skill", { raw_trace: trace, title: "Rebase after a rejected push", target: "hermes", tags: ["git"] });
  const hp = join(home, "hermes", "skills", "skill", "rebase-after-a-rejected-push", "SKILL.md");
  assert.equal(h.data.data.path, hp);
  const hermes = readFileSync(hp, "utf8");
  assert.match(hermes, /^---\nname: rebase-after-a-rejected-push\ndescription: .*\nversion: 1.0.0\nmetadata:\n    hermes:\n/);
  assert.match(hermes, /        tags:\n            - git\n/);
  assert.match(hermes, /\n---\n# Rebase after a rejected push\n/);
  const o = await call(c.client, "distill_session_skill", { raw_trace: trace, title: "Rebase after a rejected push", target: "omp" });
  const op = join(home, "omp", "skills", "rebase-after-a-rejected-push", "SKILL.md");
  assert.equal(o.data.data.path, op);
  assert.ok(existsSync(op));
  const none = await call(c.client, "distill_session_skill", {});
  assert.equal(none.isError, true);
  const big = await call(c.client, "distill_session_skill", { raw_trace: "x".repeat(50 * 1024 * 1024) });
  assert.equal(big.isError, true);
  assert.match(big.data.error.message, /50\.0 MiB; the limit is 8 MiB/);
});

test("offload_context → inspect_log_node → distill from the node", async () => {
  const log = ["$ make build", "Compiling lore v0.4.0"];
  for (let i = 0; i < 1000; i++) log.push(`  compiling module ${i}`);
  log.push("error[E0382]: borrow of moved value: `state`", "FAIL build");
  const r = await call(c.client, "offload_context", { content: log.join("\n"), task_id: "build-42" });
  assert.equal(r.isError, false);
  const id = r.data.node_id;
  assert.match(id, /^node_[0-9a-f]{8}$/);
  assert.equal(r.data.lines, 1004);
  assert.ok(r.data.reduction_pct > 90);
  assert.ok(r.data.diagram.trim().split("\n").length <= 15);
  assert.match(r.text, /```mermaid\nstateDiagram-v2/);
  assert.match(r.text, /ErrorDetected: error\[E0382\]|ErrorDetected: error E0382/);
  const again = await call(c.client, "offload_context", { content: log.join("\n") });
  assert.equal(again.data.node_id, id, "content-addressed");
  const short = await call(c.client, "offload_context", { content: "one\ntwo\n" });
  assert.equal(short.data.offloaded, false);
  const ins = await call(c.client, "inspect_log_node", { node_id: id, start_line: 1003, end_line: 1004 });
  assert.equal(ins.isError, false);
  assert.match(ins.text, /lines 1003–1004 of 1004\nerror\[E0382\]/);
  const unknown = await call(c.client, "inspect_log_node", { node_id: "node_00000000" });
  assert.equal(unknown.isError, true);
  assert.equal(unknown.data.error.code, "memory_resource_not_found");
  const bad = await call(c.client, "inspect_log_node", { node_id: "../../etc/passwd" });
  assert.equal(bad.isError, true);
  const d = await call(c.client, "distill_session_skill", { node_id: id, dry_run: true });
  assert.match(d.data.data.skill.error_signature, /E0382/);
  // Offloaded text stays out of git.
  assert.equal(execFileSync("git", ["-C", v.vault, "status", "--porcelain"]).toString(), "");
});

test("gc_session_context: folds old long outputs, collapses repeats, reports the zone", async () => {
  const dump = Array.from({ length: 50 }, (_, i) => `panic: runtime error at frame ${i}`).join("\n");
  const turns = [
    { role: "user", content: "fix the build" },
    { role: "tool", content: dump },
    { role: "tool", content: dump },
    { role: "assistant", content: "retrying" },
    { role: "tool", content: dump },
  ];
  const r = await call(c.client, "gc_session_context", { trajectory_json: JSON.stringify({ session_id: "s1", turns }), hot_window: 1, context_window: 2000 });
  assert.equal(r.isError, false, r.text);
  assert.equal(r.data.session_id, "s1");
  assert.equal(r.data.folded, 2);
  assert.equal(r.data.collapsed, 1);
  assert.match(r.data.turns[1].content, /offloaded as node_/);
  assert.match(r.data.turns[2].content, /same 50 lines as turn 1/);
  assert.equal(r.data.turns[4].content, dump, "the hot window is untouched");
  assert.ok(r.data.tokens_after < r.data.tokens_before);
  assert.ok(r.data.trr > 0);
  assert.ok(["below", "smart", "above"].includes(r.data.zone));
  for (const bad of [{ trajectory_json: "not json" }, { trajectory_json: "{\"session_id\":\"x\"}" }, { trajectory_json: "{}", threshold: 0 }]) {
    const e = await call(c.client, "gc_session_context", bad);
    assert.equal(e.isError, true, JSON.stringify(bad));
  }
});
