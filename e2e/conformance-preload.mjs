// node --import ./conformance-preload.mjs …/conformance/dist/index.js server …
// Registers conformance-hooks.mjs and gives the runner's fetch-based clients
// lore's bearer token (LORE_TOKEN); see conformance-hooks.mjs for why.
import { register } from "node:module";

register("./conformance-hooks.mjs", import.meta.url);

const token = process.env.LORE_TOKEN;
if (token) {
  const base = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set("Authorization", "Bearer " + token);
    return base(input, { ...init, headers });
  };
}
