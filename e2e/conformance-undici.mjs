// undici as the conformance runner sees it (conformance-hooks.mjs): the same
// module, with lore's bearer token (LORE_TOKEN) on every request().
export * from "undici";
import { request as undiciRequest } from "undici";

export function request(url, opts = {}) {
  const token = process.env.LORE_TOKEN;
  let headers = opts.headers || {};
  if (token) {
    headers = Array.isArray(headers) ? [...headers, "authorization", "Bearer " + token] : { ...headers, authorization: "Bearer " + token };
  }
  return undiciRequest(url, { ...opts, headers });
}
