"use strict";
// lore's local UI: Activity (projects → sessions → requests), the Retrieval
// Process of a run, and the Drafts review page. Plain DOM, no framework.
const $ = (s) => document.querySelector(s);
const state = { project: "", cursor: "", session: null, scroll: 0, vault: "", projectOfServer: "" };

// The token comes once in the URL's fragment (#token=…, which the browser
// sends to no server) and is kept in this origin's own storage: no cookie,
// so no other local port ever receives it. Every API call sends it.
(function takeToken() {
  const m = /[#&]token=([0-9a-f]+)/.exec(location.hash) || /[?&]token=([0-9a-f]+)/.exec(location.search);
  if (m) {
    localStorage.setItem("lore_token", m[1]);
    history.replaceState(null, "", location.pathname);
  }
})();

async function api(path, body) {
  const headers = { "X-Lore-Token": localStorage.getItem("lore_token") || "" };
  const opts = body ? { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) } : { headers };
  const r = await fetch(path, opts);
  if (r.status === 401) throw new Error("this page has no valid token: open the URL lore serve printed");
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error ? `${data.error.code}: ${data.error.message}` : r.statusText);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c.nodeType ? c : document.createTextNode(String(c)));
  return e;
}

function when(t) {
  const d = new Date(t);
  return isNaN(d) || d.getFullYear() < 2000 ? "" : d.toLocaleString();
}

const deliveredLabel = { add: "sent", replace: "sent (replaces an older version)", reuse: "already in context" };

async function loadProjects() {
  const w = await api("/api/workspaces");
  state.vault = w.vault;
  state.projectOfServer = w.project;
  const ul = $("#projects");
  ul.replaceChildren();
  const item = (name, value) => el("li", {}, el("a", { href: "#", "data-project": value, onclick: (e) => { e.preventDefault(); selectProject(value); } }, name));
  ul.append(item("All projects", ""));
  for (const p of (w.projects || []).sort()) ul.append(item(p || "(no project)", p));
  selectProject("");
}

function selectProject(p) {
  state.project = p;
  document.querySelectorAll("#projects a").forEach((a) => a.classList.toggle("active", a.dataset.project === p));
  $("#nav-drafts").classList.remove("active");
  $("#list").classList.remove("hidden");
  loadSessions(true);
}

async function loadSessions(fresh) {
  if (fresh) { state.cursor = ""; $("#sessions").replaceChildren(); }
  const q = new URLSearchParams({ project: state.project, cursor: state.cursor, limit: "20" });
  const page = await api("/api/sessions?" + q);
  for (const s of page.sessions) {
    const li = el("li", { "data-token": s.session_token, onclick: () => openSession(s.session_token, li) },
      el("div", {}, el("span", { class: "badge " + s.host }, s.host), s.title || "(untitled)"),
      el("div", { class: "time" }, when(s.updated_at), " · ", s.project));
    $("#sessions").append(li);
  }
  state.cursor = page.next_cursor || "";
  $("#more").hidden = !state.cursor;
  if (!page.sessions.length && fresh) {
    $("#sessions").append(el("li", { class: "time" }, "No agent sessions yet."));
    $("#detail").replaceChildren(el("div", { class: "empty" },
      el("p", {}, "No agent has used this memory yet from the workspaces bound to it."),
      el("p", {}, "Bind a code folder (lore bind --vault DIR --project NAME), connect an agent there (lore mcp config --client claude prints how), and its sessions appear here: each request, what it asked of memory and what it got."),
      el("p", {}, "Meanwhile, find a note with the search box on the left.")));
  }
}

async function openSession(token, li) {
  document.querySelectorAll("#sessions li").forEach((x) => x.classList.toggle("active", x === li));
  state.session = token;
  const d = $("#detail");
  d.replaceChildren(el("p", { class: "empty" }, "Loading…"));
  try {
    const s = await api("/api/session?" + new URLSearchParams({ token, limit: "100" }));
    renderSession(s);
  } catch (err) {
    d.replaceChildren(el("p", { class: "error" }, "Could not read this session: " + err.message), el("button", { onclick: () => openSession(token, li) }, "Retry"));
  }
}

function renderSession(s) {
  const d = $("#detail");
  d.replaceChildren(el("h2", {}, el("span", { class: "badge " + s.session.host }, s.session.host), s.session.title || s.session.session_id),
    el("p", { class: "time" }, s.session.workspace, " · ", s.session.project, " · ", when(s.session.updated_at)));
  if (!s.requests || !s.requests.length) d.append(el("p", { class: "empty" }, "No user requests in this session."));
  for (const r of s.requests || []) {
    const box = el("section", { class: "request" }, el("div", { class: "text" }, r.text || "(activity before the first request)"));
    for (const a of r.activations || []) box.append(renderActivation(a, s.session));
    if (!r.activations || !r.activations.length) box.append(el("div", { class: "activation time" }, "No memory query for this request."));
    d.append(box);
  }
}

function renderActivation(a, session) {
  const timing = a.total_us != null ? ` · ${(a.total_us / 1000).toFixed(1)} ms` : "";
  const head = el("div", {}, "memory.activate ", el("span", { class: "query" }, a.query), " ",
    el("span", { class: "status " + a.status }, a.status), timing);
  const box = el("div", { class: "activation" }, head);
  if (a.error) box.append(el("div", { class: "error" }, a.error));
  if (a.run_id && a.run === "joined") {
    box.append(el("button", { class: "process", onclick: () => openRun(session, a) }, "Retrieval Process"));
  } else if (a.run && a.run !== "joined") {
    box.append(el("div", { class: "time" }, "retrieval run: " + a.run));
  }
  for (const f of a.fragments || []) {
    const body = el("div", { class: "md" });
    body.innerHTML = f.html; // rendered by the server (goldmark, raw HTML left out)
    box.append(el("div", { class: "fragment" },
      el("div", { class: "where" }, `${deliveredLabel[f.action] || f.action} · ${f.path} › ${(f.heading_path || []).join(" › ")}`), body));
  }
  return box;
}

async function openRun(session, a) {
  state.scroll = $("#detail").scrollTop;
  $("#list").classList.add("hidden");
  const d = $("#detail");
  d.replaceChildren(el("p", {}, "Loading the retrieval run…"));
  const run = await api("/api/run?" + new URLSearchParams({ vault: session.vault, id: a.run_id }));
  const back = el("button", { id: "back", onclick: () => { $("#list").classList.remove("hidden"); openSession(state.session, document.querySelector(`#sessions li[data-token="${CSS.escape(state.session)}"]`)).then(() => { $("#detail").scrollTop = state.scroll; }); } }, "← Back to the session");
  const table = el("table", { class: "candidates" }, el("tr", {}, ...["#", "unit", "exact", "bm25", "vector", "fused", "links", "final", "outcome"].map((h) => el("th", {}, h))));
  for (const c of run.candidates || []) {
    const cell = (rank, score) => rank ? `${rank}${score != null ? " (" + Number(score).toFixed(3) + ")" : ""}` : "";
    table.append(el("tr", { class: String(c.outcome || "").startsWith("cut") ? "cut" : "" },
      el("td", {}, c.rank), el("td", {}, `${c.path} › ${(c.heading_path || []).join(" › ")}`),
      el("td", {}, cell(c.exact_rank)), el("td", {}, cell(c.bm25_rank, c.bm25_score)), el("td", {}, cell(c.vector_rank, c.vector_score)),
      el("td", {}, Number(c.fused || 0).toFixed(3)), el("td", {}, c.link_bonus ? Number(c.link_bonus).toFixed(3) : ""),
      el("td", {}, Number(c.final || 0).toFixed(3)), el("td", { class: "outcome" }, c.outcome)));
  }
  const expected = el("textarea", { id: "expected", placeholder: "Resources that should have come back: one id or path per line" });
  const note = el("input", { id: "note", placeholder: "What was wrong (optional)" });
  const result = el("p", { id: "case-result" });
  const report = el("form", { id: "report", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const c = await api("/api/cases", { vault: session.vault, run_id: a.run_id, project: run.project, query: run.query,
        expected: expected.value.split("\n").map((x) => x.trim()).filter(Boolean), note: note.value });
      result.className = ""; result.textContent = `Saved evaluation case ${c.id}; lore eval --cases scores it.`;
    } catch (err) { result.className = "error"; result.textContent = err.message; }
  } }, el("h3", {}, "Report inaccurate"), expected, note, el("button", { type: "submit" }, "Save case"), result);
  d.replaceChildren(back, el("h2", {}, "Retrieval Process"),
    el("p", {}, "Query ", el("span", { class: "query" }, run.query), ` · ${run.mode} · ${(run.total_us / 1000).toFixed(1)} ms · ${run.run_id}`),
    el("p", { class: "time" }, "Stages (µs): " + Object.entries(run.timings_us || {}).map(([k, v]) => `${k} ${v}`).join(", ")),
    table, report);
}

async function showDrafts() {
  document.querySelectorAll("#projects a").forEach((a) => a.classList.remove("active"));
  $("#nav-drafts").classList.add("active");
  $("#list").classList.add("hidden");
  const d = $("#detail");
  d.replaceChildren(el("h2", {}, "Drafts"));
  const data = await api("/api/drafts");
  if (!data.drafts.length) { d.append(el("p", { class: "empty" }, "No open Drafts.")); return; }
  for (const dr of data.drafts) {
    const last = dr.operations.length ? dr.operations[dr.operations.length - 1] : { op: "" };
    const status = el("span", { class: "draft-status" });
    const diff = el("pre", { class: "diff", hidden: "" });
    // The head the diff showed is what Merge merges: a Draft that moved
    // since is refused by the server, and shown again.
    let reviewed = "";
    const showDiff = async () => {
      const r = await api("/api/drafts/diff?id=" + encodeURIComponent(dr.draft_id));
      diff.textContent = r.diff; diff.hidden = false; reviewed = r.head;
    };
    const box = el("section", { class: "request draft", "data-draft": dr.draft_id },
      el("div", { class: "text" }, `${dr.draft_id} · ${dr.project} · ${last.op} ${dr.path || dr.changed_paths.join(", ")} · ${dr.sync_status}`),
      el("div", { class: "activation" },
        el("button", { class: "diff-btn", onclick: showDiff }, "Diff"), " ",
        el("button", { class: "merge", onclick: async () => {
          try {
            if (!reviewed) { await showDiff(); status.textContent = "Review the diff below, then Merge."; status.classList.remove("error"); return; }
            const r = await api("/api/drafts/merge", { ids: [dr.draft_id], heads: { [dr.draft_id]: reviewed } });
            status.classList.remove("error"); status.textContent = `Merged into ${data.org_ref.replace("refs/heads/", "")} (${r.commit.slice(0, 12)}); work tree ${r.work_tree}.`;
          } catch (err) {
            status.textContent = err.message; status.classList.add("error");
            if (/moved after it was reviewed/.test(err.message)) { reviewed = ""; await showDiff().catch(() => {}); }
          }
        } }, "Merge"), " ",
        el("button", { class: "discard", onclick: async () => { await api("/api/drafts/discard", { ids: [dr.draft_id] }); status.textContent = "Discarded."; } }, "Discard"), " ",
        status, diff));
    d.append(box);
  }
}

$("#refresh").addEventListener("click", () => loadSessions(true));
$("#more").addEventListener("click", () => loadSessions(false));
$("#nav-drafts").addEventListener("click", (e) => { e.preventDefault(); showDrafts(); });
loadProjects().catch((err) => { $("#detail").replaceChildren(el("p", { class: "error" }, err.message)); });

// Find a note: the same index as lore search; a hit opens the whole note.
async function findNotes(q) {
  $("#list").classList.remove("hidden");
  const ul = $("#sessions");
  ul.replaceChildren(el("li", { class: "time" }, "Searching…"));
  $("#more").hidden = true;
  try {
    const r = await api("/api/search?" + new URLSearchParams({ q }));
    ul.replaceChildren();
    if (!r.hits.length) ul.append(el("li", { class: "time" }, "No note matches “" + q + "”."));
    for (const h of r.hits) {
      const li = el("li", { onclick: () => openNote(h.resource_id || h.path, li) },
        el("div", {}, h.path + (h.heading_path.length ? " › " + h.heading_path.join(" › ") : "")),
        el("div", { class: "time" }, h.snippet || ""));
      ul.append(li);
    }
  } catch (err) {
    ul.replaceChildren(el("li", { class: "error" }, "Search failed: " + err.message));
  }
}

async function openNote(id, li) {
  document.querySelectorAll("#sessions li").forEach((x) => x.classList.toggle("active", x === li));
  const d = $("#detail");
  try {
    const n = await api("/api/note?" + new URLSearchParams({ id }));
    d.replaceChildren(el("h2", {}, n.title || n.path), el("div", { class: "time" }, n.path + " · " + n.resource_id + (n.draft_id ? " · Draft " + n.draft_id : "")),
      el("pre", { class: "note" }, n.content));
  } catch (err) {
    d.replaceChildren(el("p", { class: "error" }, "Could not load the note: " + err.message));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("#find").addEventListener("submit", (e) => { e.preventDefault(); const q = $("#q").value.trim(); if (q) findNotes(q); });
});
