// Package web is lore's local web UI (lore serve) and its JSON API: the
// Activity view of specs/004 (workspaces and projects; sessions newest
// first; each request with its memory queries, status, timing and the
// fragments delivered, rendered as Markdown; a Retrieval Process view per
// run with every candidate's stages and fate; "Report inaccurate", which
// stores an evaluation case), and a Drafts page (list, diff, merge,
// discard).
//
// Security: the server listens on 127.0.0.1 only; a request whose Host is
// not a loopback name is refused (no DNS rebinding); every request needs
// the random token printed in the start-up URL (the first page load turns
// ?token= into an HttpOnly, SameSite=Strict cookie); requests that change
// anything must be POSTs with a JSON body and, when they carry an Origin,
// the server's own; no CORS headers are ever sent. Static assets are
// embedded in the binary; no CDN. Markdown is rendered on the server with
// goldmark, which leaves raw HTML out.
package web
