// Start-up cost of lore in the real clients: the time from a client's
// spawn to its first request to the model (a scripted model on loopback),
// with no lore, with lore's MCP server only, and with everything lore setup
// writes (server and hooks), runs alternating so that the machine's drift
// falls on all three alike. Prints a Markdown table of medians.
//
//   node e2e/startbench.mjs [runs]      (make build first; runs default 9)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { makeVault, LORE } from "./lib.mjs";
import { startFakeModel } from "./fakemodel.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const CLAUDE = resolve(here, "node_modules/.bin/claude");
const CODEX = resolve(here, "node_modules/.bin/codex");
const runs = Number(process.argv[2] || 9);

const modelDir = (() => {
  const m = execFileSync(LORE, ["model", "status"], { encoding: "utf8" }).match(/installed in (\S+)/);
  return m ? m[1] : "";
})();

let firstAt = 0;
const model = await startFakeModel(() => ({ text: "done" }));
const seen = model.requests;

function env(home, extra) {
  return {
    PATH: process.env.PATH, HOME: home, LANG: "C.UTF-8", TERM: "dumb", XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", LORE_NO_SERVER: "1", LORE_MODEL_DIR: modelDir,
    GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@localhost", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@localhost", ...extra,
  };
}

// timeToFirst spawns a client and returns the seconds until the model's
// first request arrives; the client is then left to finish.
function timeToFirst(bin, args, cwd, e) {
  return new Promise((res, rej) => {
    const before = seen.length;
    const t0 = process.hrtime.bigint();
    const p = spawn(bin, args, { cwd, env: e, stdio: ["ignore", "ignore", "ignore"] });
    let t = null;
    const poll = setInterval(() => {
      if (t === null && seen.length > before) t = Number(process.hrtime.bigint() - t0) / 1e9;
    }, 1);
    p.on("close", () => { clearInterval(poll); t === null ? rej(new Error(`${bin}: no model request`)) : res(t); });
  });
}

function workspace(kind, client) {
  const v = makeVault("api");
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: v.workspace });
  const home = mkdtempSync(join(tmpdir(), "lore-start-home-"));
  const e = env(home, client === "codex" ? { CODEX_HOME: join(home, ".codex") } : { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-b" });
  if (client === "codex") {
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), `model = "gpt-b"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\n[features]\nplugins = false\n[projects.${JSON.stringify(v.workspace)}]\ntrust_level = "trusted"\n`);
  }
  if (kind !== "none") {
    execFileSync(LORE, ["setup", client], { cwd: v.workspace, env: e });
    execFileSync(LORE, ["index"], { cwd: v.workspace, env: e });
    if (kind === "server") {
      const hooks = client === "codex" ? join(v.workspace, ".codex", "hooks.json") : join(v.workspace, ".claude", "settings.json");
      writeFileSync(hooks, "{}\n");
    }
  }
  const args = client === "codex"
    ? ["exec", "--skip-git-repo-check", "-s", "danger-full-access", ...(kind === "full" ? ["--dangerously-bypass-hook-trust"] : []), "how do we ship a new release?"]
    : ["-p", "how do we ship a new release?"];
  return { v, home, e, args, bin: client === "codex" ? CODEX : CLAUDE };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const rows = [];
for (const client of ["claude", "codex"]) {
  const ws = Object.fromEntries(["none", "server", "full"].map((k) => [k, workspace(k, client)]));
  const times = { none: [], server: [], full: [] };
  for (let i = 0; i < runs + 1; i++) {
    for (const k of ["none", "server", "full"]) {
      const w = ws[k];
      const t = await timeToFirst(w.bin, w.args, w.v.workspace, w.e);
      if (i > 0) times[k].push(t); // the first round warms the page cache
    }
  }
  rows.push([client === "codex" ? "Codex" : "Claude Code", ...["none", "server", "full"].map((k) => median(times[k]).toFixed(2)),
    `+${(median(times.full) - median(times.none)).toFixed(2)}`]);
  for (const w of Object.values(ws)) { w.v.cleanup(); rmSync(w.home, { recursive: true, force: true }); }
}
await model.close();
console.log(`| client (seconds to its first model request, medians of ${runs}) | no lore | server only | full setup | lore's share |`);
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
