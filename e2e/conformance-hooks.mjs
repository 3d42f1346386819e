// Module hooks for running the official MCP conformance runner against
// `lore mcp --http` (see conformance.test.mjs). Registered by
// conformance-preload.mjs; they change nothing but the two things below.
//
// 1. The runner's bundle imports fs.globSync, which Node.js has from 22 on;
//    this machine's Node is 20. The server scenarios never call it, so on
//    Node 20 the import is replaced by a function that throws if called.
// 2. The runner's clients send no credentials, and lore's HTTP transport
//    refuses a request without its bearer token. Its `undici` import is
//    resolved to conformance-undici.mjs, which adds the token to the
//    requests that scenario sends with undici's request(); requests made
//    with fetch get it from the preload.
import fs from "node:fs";

const runner = "@modelcontextprotocol/conformance/dist/";

export async function resolve(specifier, context, next) {
  if (specifier === "undici" && context.parentURL?.includes(runner)) {
    return next(new URL("./conformance-undici.mjs", import.meta.url).href, context);
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const r = await next(url, context);
  if (typeof fs.globSync === "function" || !url.includes(runner) || !r.source) return r;
  let s = r.source.toString();
  let name = null;
  s = s.replace(/globSync as (\w+),/, (_, v) => { name = v; return ""; });
  if (name) {
    s = s.replace(/^(#!.*\n)?/, (m) => m + `const ${name} = () => { throw new Error("fs.globSync needs Node.js 22"); };\n`);
  }
  return { ...r, source: s };
}
