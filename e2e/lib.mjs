// Helpers for the end-to-end tests: a copy of the demo vault in a temporary
// git repository, a workspace bound to it, and `lore mcp` driven by the
// official MCP TypeScript SDK client over stdio.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, mkdirSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
export const LORE = process.env.LORE_BIN || resolve(here, "../bin/lore");
const DEMO = resolve(here, "../testdata/demo-vault");

const gitEnv = {
  GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@localhost",
  GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@localhost",
};

// modelInstalled reports whether the built-in embedding model is installed.
export function modelInstalled() {
  try {
    execFileSync(LORE, ["model", "status"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

// makeVault copies the demo vault into a new git repository and returns
// { root, vault, workspace } where workspace/.lore.yaml binds project.
export function makeVault(project = "api") {
  const root = mkdtempSync(join(tmpdir(), "lore-e2e-"));
  const vault = join(root, "vault");
  cpSync(DEMO, vault, { recursive: true });
  if (!modelInstalled()) {
    if (process.env.LORE_REQUIRE_MODEL) {
      throw new Error("the built-in model is not installed (run make model)");
    }
    // Without the model, lexical retrieval only; CI installs the model.
    const cfg = readFileSync(join(vault, "lore.yaml"), "utf8");
    writeFileSync(join(vault, "lore.yaml"), cfg + "embedding:\n  provider: none\n");
  }
  const git = (...args) => execFileSync("git", args, { cwd: vault, env: { ...process.env, ...gitEnv }, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "demo vault");
  const workspace = join(root, "code");
  mkdirSync(workspace);
  writeFileSync(join(workspace, ".lore.yaml"), `vault: ${vault}\nproject: ${project}\n`);
  return { root, vault, workspace, git, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

// connect starts `lore mcp` (with args) in cwd and connects the SDK client to it.
export async function connect(cwd, extraEnv = {}, args = ["mcp"]) {
  const transport = new StdioClientTransport({
    command: LORE,
    args,
    cwd,
    env: { ...process.env, ...gitEnv, LORE_VAULT: "", LORE_PROJECT: "", LORE_MCP_NO_EMBED: "1", ...extraEnv },
    stderr: "pipe",
  });
  const client = new Client({ name: "lore-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

// call calls a tool and returns { isError, data, text }.
export async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  return { isError: res.isError === true, rawIsError: res.isError, data: res.structuredContent, text: res.content?.[0]?.text };
}

// memory calls the memory tool and returns { isError, data, text } where
// data is the structured content and text the text content: the same JSON,
// parsed, except for activate, whose text is a rendering for agents (kept
// as it is).
export async function memory(client, args) {
  const res = await client.callTool({ name: "memory", arguments: args });
  const text = res.content?.[0]?.text;
  const parsed = args?.op?.activate && !res.isError ? text : JSON.parse(text);
  return { isError: res.isError === true, rawIsError: res.isError, data: res.structuredContent, text: parsed };
}

// raw starts `lore mcp` and exchanges raw JSON-RPC lines with it.
export function raw(cwd, extraEnv = {}) {
  return jsonLines(LORE, ["mcp"], { cwd, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", LORE_MCP_NO_EMBED: "1", ...extraEnv } });
}

// jsonLines starts a program that speaks JSON-RPC in lines on its standard
// input and output (lore mcp, codex app-server), and exchanges them with it.
export function jsonLines(command, args, opts) {
  const p = spawn(command, args, opts);
  let buf = "";
  const lines = [];
  const waiters = [];
  p.stdout.setEncoding("utf8");
  p.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      waiters.splice(0).forEach((w) => w());
    }
  });
  let stderr = "";
  p.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((r) => p.on("exit", (code) => r(code)));
  return {
    proc: p,
    lines,
    exited,
    stderr: () => stderr,
    send(obj) {
      p.stdin.write((typeof obj === "string" ? obj : JSON.stringify(obj)) + "\n");
    },
    // next waits for the response with the given id.
    async reply(id, timeout = 10000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        for (const l of lines) {
          let m;
          try { m = JSON.parse(l); } catch { continue; } // not a message: lines keeps it for the tests that check
          if (m.id === id) return m;
        }
        if (Date.now() > deadline) throw new Error(`no reply to ${JSON.stringify(id)}; got ${lines.join("\n")}`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 50); });
      }
    },
  };
}

// startHTTP starts `lore mcp --http 127.0.0.1:0` for vault v (in its
// workspace) and waits until it says where it listens (a URL other than
// notURL, when another server of the vault already wrote one). It returns
// { proc, url, token, stop }; stop sends SIGTERM and waits for the exit.
export async function startHTTP(v, notURL = null) {
  const proc = spawn(LORE, ["mcp", "--http", "127.0.0.1:0"], { cwd: v.workspace, env: { ...process.env, LORE_VAULT: "", LORE_PROJECT: "", LORE_MCP_NO_SYNC: "1" }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr.on("data", (d) => { err += d; });
  const data = join(v.vault, ".git", "lore");
  let url = null;
  for (let i = 0; i < 200 && (url === null || url === notURL); i++) {
    await new Promise((r) => setTimeout(r, 50));
    try { url = JSON.parse(readFileSync(join(data, "mcp-http.json"), "utf8")).url; } catch { /* not written yet */ }
  }
  if (url === null || url === notURL) throw new Error("the server did not say where it listens: " + err);
  const token = readFileSync(join(data, "mcp-http.token"), "utf8").trim();
  const stop = async () => {
    const exited = new Promise((r) => proc.on("exit", r));
    proc.kill("SIGTERM");
    await exited;
  };
  return { proc, url, token, stop };
}
