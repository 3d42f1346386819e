"use strict";
// lore's local UI: an overview, Activity (projects → sessions → requests),
// the Retrieval Process of a run, the Drafts review page and whole notes.
// Plain DOM, no framework. Every view has its own URL (the History API), so
// Back works and any view can be bookmarked or shared:
//   /                      the overview
//   /sessions?project=P    the sessions of a project ("" for all)
//   /session/TOKEN         one session
//   /run?vault=V&id=ID     one retrieval run
//   /drafts, /drafts/ID    the Drafts; one Draft with its diff open
//   /note/ID               a whole note, rendered, its wikilinks followed
//   /search?q=Q            notes that match
const $ = (s) => document.querySelector(s);
const state = { vault: "", vaultName: "", projectOfServer: "", projects: null };

// The token comes once in the URL's fragment (#token=…, which the browser
// sends to no server) and is kept in this origin's own storage: no cookie,
// so no other local port ever receives it. Every API call sends it.
(function takeToken() {
  const m = /[#&]token=([0-9a-f]+)/.exec(location.hash) || /[?&]token=([0-9a-f]+)/.exec(location.search);
  if (m) {
    localStorage.setItem("lore_token", m[1]);
    history.replaceState(null, "", location.pathname + location.search.replace(/[?&]token=[0-9a-f]+/, ""));
  }
})();

function headers() {
  return { "X-Lore-Token": localStorage.getItem("lore_token") || "" };
}

async function api(path, body) {
  const opts = body ? { method: "POST", headers: { ...headers(), "Content-Type": "application/json" }, body: JSON.stringify(body) } : { headers: headers() };
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

// link is an in-page link to a view: a click routes without a reload.
function link(href, ...children) {
  return el("a", { href, onclick: (e) => { if (e.ctrlKey || e.metaKey || e.shiftKey) return; e.preventDefault(); go(href); } }, ...children);
}

function when(t) {
  const d = new Date(t);
  return isNaN(d) || d.getFullYear() < 2000 ? "" : d.toLocaleString();
}

function where(path, headings) {
  return headings && headings.length ? `${path} › ${headings.join(" › ")}` : path;
}

const deliveredLabel = { add: "sent", replace: "sent (replaces an older version)", reuse: "already in context" };

// go shows the view of a URL and records it in the history.
function go(url) {
  history.pushState(null, "", url);
  route();
}
window.addEventListener("popstate", () => route());

// nav marks the sidebar entry of the view shown, and only that one.
function nav(which, project) {
  document.querySelectorAll("#sidebar a").forEach((a) => a.classList.remove("active"));
  if (which === "drafts") $("#nav-drafts").classList.add("active");
  if (which === "stale") $("#nav-stale").classList.add("active");
  if (which === "overview") $("#nav-home").classList.add("active");
  if (which === "sessions") {
    const a = document.querySelector(`#projects a[data-project="${CSS.escape(project || "")}"]`);
    if (a) a.classList.add("active");
  }
}

async function route() {
  const p = location.pathname, q = new URLSearchParams(location.search);
  const d = $("#detail");
  const from = state.view;
  state.view = p === "/search" ? "search" : p.split("/")[1] || "overview";
  if (state.view === "note" && from === "search") state.view = "search"; // the results stay beside the note
  try {
    await loadProjects();
    if (p === "/" || p === "") return await showOverview();
    if (p === "/sessions") return await showSessions(q.get("project") || "");
    if (p.startsWith("/session/")) return await showSession(decodeURIComponent(p.slice("/session/".length)));
    if (p === "/run") return await showRun(q.get("vault") || "", q.get("id") || "");
    if (p === "/drafts" || p.startsWith("/drafts/")) return await showDrafts(decodeURIComponent(p.slice("/drafts/".length)));
    if (p.startsWith("/note/")) return await showNote(decodeURIComponent(p.slice("/note/".length)), q.getAll("s"));
    if (p === "/search") return await showSearch(q.get("q") || "");
    if (p === "/stale") return await showStale();
    d.replaceChildren(el("p", { class: "error" }, "No such page: " + p));
  } catch (err) {
    d.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

async function loadProjects() {
  if (state.projects) return;
  const w = await api("/api/workspaces");
  state.vault = w.vault;
  state.projectOfServer = w.project;
  state.projects = (w.projects || []).sort();
  const ul = $("#projects");
  ul.replaceChildren();
  const item = (name, value) => {
    const a = link("/sessions?project=" + encodeURIComponent(value), name);
    a.dataset.project = value;
    return el("li", {}, a);
  };
  ul.append(item("All projects", ""));
  for (const p of state.projects) ul.append(item(p || "(no project)", p));
}

async function showOverview() {
  nav("overview");
  $("#list").classList.add("hidden");
  const o = await api("/api/overview");
  document.title = `lore · ${o.vault_name}`;
  $("#vault-name").textContent = o.vault_name;
  const drafts = o.open_drafts === 1 ? "1 open Draft" : `${o.open_drafts} open Drafts`;
  $("#detail").replaceChildren(
    el("h2", {}, o.vault_name),
    el("p", { class: "time" }, o.vault, " · published memory on ", o.org_ref, o.remote ? "" : " · no remote: Drafts stay on this machine"),
    el("p", {}, link("/drafts", drafts), o.open_drafts ? " waiting for your review." : " — nothing waits for your review."),
    el("p", {}, "Agents' sessions: ", link("/sessions", "all projects"), ...state.projects.flatMap((p) => [", ", link("/sessions?project=" + encodeURIComponent(p), p || "(no project)")])),
    el("p", { class: "time" }, "Find a note with the search box on the left."));
}

async function showSessions(project, activeToken) {
  nav("sessions", project);
  $("#list").classList.remove("hidden");
  const ul = $("#sessions");
  ul.replaceChildren();
  let cursor = "";
  const more = async () => {
    const q = new URLSearchParams({ project, cursor, limit: "20" });
    const page = await api("/api/sessions?" + q);
    for (const s of page.sessions) {
      const li = el("li", { "data-token": s.session_token, class: s.session_token === activeToken ? "active" : "" },
        link("/session/" + encodeURIComponent(s.session_token),
          el("div", {}, el("span", { class: "badge " + s.host }, s.host), s.title || "(untitled)"),
          el("div", { class: "time" }, when(s.updated_at), " · ", s.project)));
      ul.append(li);
    }
    cursor = page.next_cursor || "";
    $("#more").hidden = !cursor;
    return page;
  };
  $("#more").onclick = () => more();
  const page = await more();
  if (!activeToken) {
    if (!page.sessions.length) {
      ul.append(el("li", { class: "time" }, "No agent sessions yet."));
      $("#detail").replaceChildren(el("div", { class: "empty" },
        el("p", {}, "No agent has used this memory yet from the workspaces bound to it."),
        el("p", {}, "Bind a code folder (lore bind --vault DIR --project NAME), connect an agent there (lore mcp config --client claude prints how), and its sessions appear here: each request, what it asked of memory and what it got."),
        el("p", {}, "Meanwhile, find a note with the search box on the left.")));
    } else {
      $("#detail").replaceChildren(el("p", { class: "empty" }, "Select a session."));
    }
  }
}

async function showSession(token) {
  const d = $("#detail");
  d.replaceChildren(el("p", { class: "empty" }, "Loading…"));
  const s = await api("/api/session?" + new URLSearchParams({ token, limit: "100" }));
  await showSessions(s.session.project || "", token);
  d.replaceChildren(el("h2", {}, el("span", { class: "badge " + s.session.host }, s.session.host), s.session.title || s.session.session_id),
    el("p", { class: "time" }, s.session.workspace, " · ", s.session.project, " · ", when(s.session.updated_at)));
  if (!s.requests || !s.requests.length) d.append(el("p", { class: "empty" }, "No user requests in this session."));
  for (const r of s.requests || []) {
    const box = el("section", { class: "request" }, el("div", { class: "text" }, r.text || "(before a prompt: a session start, a resume, a clear or a compaction)"));
    for (const a of r.activations || []) box.append(renderActivation(a, s.session));
    if ((!r.activations || !r.activations.length) && !(r.refusals || []).length) box.append(el("div", { class: "activation time" }, "No memory query for this request."));
    for (const rf of r.refusals || []) {
      box.append(el("div", { class: "activation refusal" }, el("div", {}, "lore guard refused ", el("code", {}, rf.command)),
        el("div", { class: "error" }, rf.reason)));
    }
    d.append(box);
  }
}

function renderActivation(a, session) {
  const timing = a.total_us != null ? ` · ${(a.total_us / 1000).toFixed(1)} ms` : "";
  // What lore's own hooks put in the context (via "hook") is labelled by
  // its event; an agent's call by the query it asked.
  const what = a.via === "hook"
    ? [a.event === "SessionStart" ? "lore hook at session start" : "lore hook on the prompt"]
    : ["memory.activate ", el("span", { class: "query" }, a.query)];
  const head = el("div", {}, ...what, " ", el("span", { class: "status " + a.status }, a.status), timing);
  const box = el("div", { class: "activation" }, head);
  if (a.error) box.append(el("div", { class: "error" }, a.error));
  if (a.run_id && a.run === "joined") {
    box.append(el("button", { class: "process", onclick: () => go("/run?" + new URLSearchParams({ vault: session.vault, id: a.run_id })) }, "Retrieval Process"));
  } else if (a.run && a.run !== "joined") {
    box.append(el("div", { class: "time" }, "retrieval run: " + a.run));
  }
  for (const f of a.fragments || []) {
    const body = el("div", { class: "md" });
    body.innerHTML = f.html; // rendered by the server (goldmark, raw HTML left out)
    box.append(el("div", { class: "fragment" },
      el("div", { class: "where" }, `${deliveredLabel[f.action] || f.action} · `,
        ...(f.draft_id ? [el("span", { class: "badge draft" }, `Draft ${f.draft_id}, not reviewed`), " · "] : []),
        where(f.path, f.heading_path)), body));
  }
  return box;
}

async function showRun(vault, id) {
  nav("sessions");
  $("#list").classList.add("hidden");
  const d = $("#detail");
  d.replaceChildren(el("p", {}, "Loading the retrieval run…"));
  const run = await api("/api/run?" + new URLSearchParams({ vault, id }));
  const back = el("button", { id: "back", onclick: () => history.back() }, "← Back");
  const table = el("table", { class: "candidates" }, el("tr", {}, ...["", "#", "unit", "exact", "bm25", "vector", "fused", "links", "coverage", "final", "outcome"].map((h) => el("th", {}, h))));
  const picked = new Set();
  for (const c of run.candidates || []) {
    const cell = (rank, score) => rank ? `${rank}${score != null ? " (" + Number(score).toFixed(3) + ")" : ""}` : "";
    const box = el("input", { type: "checkbox", class: "expect", title: "This section should have come back", onchange: (e) => { if (e.target.checked) picked.add(c.unit_key); else picked.delete(c.unit_key); } });
    table.append(el("tr", { class: String(c.outcome || "").startsWith("cut") ? "cut" : "" },
      el("td", {}, box), el("td", {}, c.rank), el("td", {}, where(c.path, c.heading_path)),
      el("td", {}, cell(c.exact_rank)), el("td", {}, cell(c.bm25_rank, c.bm25_score)), el("td", {}, cell(c.vector_rank, c.vector_score)),
      el("td", {}, Number(c.fused || 0).toFixed(3)), el("td", {}, c.link_bonus ? Number(c.link_bonus).toFixed(3) : ""),
      el("td", {}, c.cover_bonus ? Number(c.cover_bonus).toFixed(3) : ""),
      el("td", {}, Number(c.final || 0).toFixed(3)), el("td", { class: "outcome" }, c.outcome)));
  }
  const expected = el("textarea", { id: "expected", placeholder: "Notes or sections that should have come back, one a line: an id, a path, or path#Heading for a section (or tick rows above)" });
  const note = el("input", { id: "note", placeholder: "What was wrong (optional)" });
  const result = el("p", { id: "case-result" });
  const report = el("form", { id: "report", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const c = await api("/api/cases", { vault, run_id: id, project: run.project, query: run.query,
        expected: expected.value.split("\n").map((x) => x.trim()).filter(Boolean), expected_sections: [...picked], note: note.value });
      result.className = ""; result.textContent = `Saved evaluation case ${c.id}${c.expected_sections && c.expected_sections.length ? " (by section)" : ""}; lore eval --cases scores it.`;
    } catch (err) { result.className = "error"; result.textContent = err.message; }
  } }, el("h3", {}, "Report inaccurate"), el("p", { class: "time" }, "Tick the sections that should have come back, or name them below: a case that names sections is scored by section, so the right note with the wrong section counts as a miss."), expected, note, el("button", { type: "submit" }, "Save case"), result);
  d.replaceChildren(back, el("h2", {}, "Retrieval Process"),
    el("p", {}, "Query ", el("span", { class: "query" }, run.query), ` · ${run.mode} · ${(run.total_us / 1000).toFixed(1)} ms · ${run.run_id}`),
    el("p", { class: "time" }, "Stages (µs): " + Object.entries(run.timings_us || {}).map(([k, v]) => `${k} ${v}`).join(", ")),
    table, report);
}

// diffView renders a unified diff with its lines coloured, as git does.
function diffView(text) {
  const pre = el("pre", { class: "diff" });
  for (const line of text.split("\n")) {
    let cls = "";
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) cls = "file";
    else if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+")) cls = "add";
    else if (line.startsWith("-")) cls = "del";
    pre.append(el("span", { class: cls }, line + "\n"));
  }
  return pre;
}

async function showDrafts(openID) {
  nav("drafts");
  $("#list").classList.add("hidden");
  const d = $("#detail");
  d.replaceChildren(el("h2", {}, "Drafts"));
  const data = await api("/api/drafts");
  if (!data.drafts.length) { d.append(el("p", { class: "empty" }, "No open Drafts.")); return; }
  for (const dr of data.drafts) {
    const last = dr.operations.length ? dr.operations[dr.operations.length - 1] : { op: "" };
    const status = el("span", { class: "draft-status" });
    const diff = el("div", { class: "diff-box", hidden: "" });
    // The head the diff showed is what Merge merges: a Draft that moved
    // since is refused by the server, and shown again.
    let reviewed = "";
    const showDiff = async () => {
      const r = await api("/api/drafts/diff?id=" + encodeURIComponent(dr.draft_id));
      diff.replaceChildren(el("p", { class: "time" }, `head ${r.head.slice(0, 12)}`), diffView(r.diff));
      diff.hidden = false; reviewed = r.head;
    };
    const origin = dr.session
      ? el("div", { class: "time" }, "made in ", link("/session/" + encodeURIComponent(dr.session.session_token), `${dr.session.host} session “${dr.session.title || dr.session.session_token}”`))
      : el("div", { class: "time" }, "no agent session on this machine names it");
    const box = el("section", { class: "request draft", "data-draft": dr.draft_id },
      el("div", { class: "text" }, link("/drafts/" + encodeURIComponent(dr.draft_id), dr.short_id || dr.draft_id), ` · ${dr.project} · ${last.op} ${dr.changed_paths.join(", ") || dr.path} · ${dr.sync_status}`,
        // Who made it and where (a teammate's, fetched by lore sync), and when.
        el("span", { class: "time" }, ` · ${dr.author || "?"}${dr.host ? " on " + dr.host : ""}${dr.made_here ? " (here)" : " (as its commits claim)"} · `, when(dr.updated_at))),
      el("div", { class: "activation" }, origin,
        el("button", { class: "diff-btn", onclick: showDiff }, "Diff"), " ",
        el("button", { class: "merge", onclick: async () => {
          // A merge waits while the vault's work tree holds edits nobody
          // recorded: the server names them, and the person may record them
          // as their own commit first (with_edits), from here or with lore commit.
          const merge = async (withEdits) => {
            try {
              if (!reviewed) { await showDiff(); status.textContent = "Review the diff below, then Merge."; status.classList.remove("error"); return; }
              const r = await api("/api/drafts/merge", { ids: [dr.draft_id], heads: { [dr.draft_id]: reviewed }, ...(withEdits ? { with_edits: true } : {}) });
              status.classList.remove("error"); status.textContent = `Merged into ${data.org_ref.replace("refs/heads/", "")} (${r.commit.slice(0, 12)}); work tree ${r.work_tree}.` + (r.published ? ` Remote: ${r.published}.` : "");
              closed("merged");
            } catch (err) {
              status.replaceChildren(err.message); status.classList.add("error");
              if (/moved after it was reviewed/.test(err.message)) { reviewed = ""; await showDiff().catch(() => {}); }
              if (/uncommitted edit/.test(err.message)) {
                status.append(" ", el("button", { class: "merge-with-edits", onclick: () => merge(true) }, "Record those edits as mine, then merge"));
              }
            }
          };
          await merge(false);
        } }, "Merge"), " ",
        el("button", { class: "discard", onclick: async () => {
          try { await api("/api/drafts/discard", { ids: [dr.draft_id] }); status.classList.remove("error"); status.textContent = "Discarded."; closed("discarded"); }
          catch (err) { status.replaceChildren(err.message); status.classList.add("error"); }
        } }, "Discard"), " ",
        status, diff));
    // A Draft merged or discarded from here is closed: its card says so
    // and offers nothing more, and the count beside Drafts follows.
    const closed = (how) => {
      box.classList.add(how);
      box.querySelectorAll("button.merge, button.discard, button.merge-with-edits").forEach((b) => b.remove());
      refreshCount();
    };
    d.append(box);
    if (openID && (dr.draft_id === openID || dr.draft_id.startsWith(openID))) { showDiff().catch(() => {}); box.scrollIntoView(); }
  }
}

// Find a note: the same index as lore search; a hit opens the whole note.
async function showSearch(q) {
  nav("search");
  $("#q").value = q;
  $("#list").classList.remove("hidden");
  const ul = $("#sessions");
  ul.replaceChildren(el("li", { class: "time" }, "Searching…"));
  $("#more").hidden = true;
  $("#detail").replaceChildren(el("p", { class: "empty" }, "Select a note."));
  const r = await api("/api/search?" + new URLSearchParams({ q }));
  ul.replaceChildren();
  if (!r.hits.length) ul.append(el("li", { class: "time" }, "No note matches “" + q + "”."));
  for (const h of r.hits) {
    // A section hit opens its note at the section (?s= names its headings).
    const at = h.heading_path && h.heading_path.length ? "?" + new URLSearchParams(h.heading_path.map((x) => ["s", x])) : "";
    // A Draft's text says so before its place, as an activation's does.
    const draft = h.draft_id ? [el("span", { class: "badge draft" }, `Draft ${h.draft_id}, not reviewed`), " · "] : [];
    ul.append(el("li", {}, link("/note/" + encodeURIComponent(h.resource_id || h.path) + at,
      el("div", {}, ...draft, where(h.path, h.heading_path)), el("div", { class: "time" }, h.snippet || ""))));
  }
}

// sectionIn is the heading of body that heads the section named by its
// headings (outermost first): each found after the one before it, or, when
// the note's rendering lacks an outer one, the innermost alone.
function sectionIn(body, path) {
  const hs = [...body.querySelectorAll("h1,h2,h3,h4,h5,h6")];
  const find = (names) => {
    let from = 0, found = null;
    for (const name of names) {
      const j = hs.findIndex((h, k) => k >= from && h.textContent.trim() === name.trim());
      if (j < 0) return null;
      found = hs[j]; from = j + 1;
    }
    return found;
  };
  return path.length ? find(path) || find(path.slice(-1)) : null;
}

async function showNote(id, section = []) {
  const d = $("#detail");
  const n = await api("/api/note?" + new URLSearchParams({ id }));
  if (state.view !== "search") { $("#list").classList.add("hidden"); nav("note"); }
  const body = el("div", { class: "md note" });
  body.innerHTML = n.html; // rendered by the server: goldmark, raw HTML left out, wikilinks resolved
  // Wikilinks open the note they name, in the page.
  body.querySelectorAll("a.wikilink").forEach((a) => a.addEventListener("click", (e) => { e.preventDefault(); go(a.getAttribute("href")); }));
  // The vault's own images, loaded with the token (an <img> cannot send it).
  body.querySelectorAll("img[data-attachment]").forEach(async (img) => {
    try {
      const r = await fetch("/api/attachment?" + new URLSearchParams({ name: img.dataset.attachment, from: n.path }), { headers: headers() });
      if (!r.ok) throw new Error(r.statusText);
      img.src = URL.createObjectURL(await r.blob());
    } catch { img.replaceWith(el("span", { class: "remote-image" }, "image not found in the vault: " + img.dataset.attachment)); }
  });
  d.replaceChildren(el("h2", {}, n.title || n.path),
    el("div", { class: "time" }, n.path + " · " + n.resource_id + (n.draft_id ? " · Draft " + n.draft_id : "")), body);
  const target = sectionIn(body, section);
  if (target) { target.classList.add("target"); target.scrollIntoView({ block: "start" }); }
}

// showStale lists the notes whose citations of code no longer hold, each
// with the commit that broke it, the edit that would mend the note, and a
// request to give an agent, which proposes the fix as a Draft to review.
async function showStale() {
  nav("stale");
  $("#list").classList.add("hidden");
  const d = $("#detail");
  d.replaceChildren(el("p", { class: "empty" }, "Checking the notes' citations of code…"));
  const r = await api("/api/stale");
  $("#stale-count").textContent = r.findings.length ? String(r.findings.length) : "";
  if (!r.bound) {
    d.replaceChildren(el("h2", {}, "May be stale"), el("p", { class: "empty" },
      "No code repository is bound: run lore serve in a workspace bound to this vault (lore bind) to check what the notes cite."));
    return;
  }
  const head = el("p", { class: "time" }, `${r.notes_checked} notes checked against ${r.code}; ${r.notes_citing_code} cite code.`);
  if (!r.findings.length) {
    d.replaceChildren(el("h2", {}, "May be stale"), head, el("p", { class: "empty" }, "Every citation of code holds."));
    return;
  }
  const items = r.findings.map((f) => {
    const at = f.heading_path && f.heading_path.length ? "?" + new URLSearchParams(f.heading_path.map((x) => ["s", x])) : "";
    const ask = `Update ${where(f.note, f.heading_path)}: it ${sentence(f)}. ${f.edit}. Propose the change as a Draft.`;
    const copy = el("button", {}, "Copy the request for an agent");
    copy.addEventListener("click", () => navigator.clipboard.writeText(ask).then(() => { copy.textContent = "Copied"; }, () => {}));
    const li = el("li", { class: "stale" },
      link("/note/" + encodeURIComponent(f.note) + at, where(f.note + (f.line ? ":" + f.line : ""), f.heading_path)),
      el("div", {}, sentence(f)),
      el("div", { class: "time" }, "Edit: " + f.edit),
      el("pre", { class: "ask" }, ask), copy);
    if (f.problem === "renamed") {
      // A rename has an exact fix: a Draft, reviewed like any other.
      const fix = el("button", { class: "fix" }, "Propose the fix as a Draft");
      fix.addEventListener("click", async () => {
        fix.disabled = true;
        try {
          const r = await api("/api/stale/fix", { note: f.note, cites: f.cites });
          fix.replaceWith(el("span", { class: "fixed" }, "Draft made: ", link("/drafts/" + encodeURIComponent(r.draft_id), r.draft_id), " (review and merge it under Drafts)"));
          refreshCount();
        } catch (err) { fix.disabled = false; fix.after(el("span", { class: "error" }, " " + err.message)); }
      });
      li.append(" ", fix);
    }
    return li;
  });
  d.replaceChildren(el("h2", {}, "May be stale"), head, el("ul", { class: "stale-list" }, ...items));
}

// sentence says a finding as lore stale does.
function sentence(f) {
  let s = `cites \`${f.cites}\``;
  if (f.kind === "identifier" && f.path) s += " in " + f.path;
  s += { removed: ", deleted", renamed: ", renamed to " + f.renamed_to, lines_changed: ", lines changed",
    identifier_removed: ", removed", commit_missing: ", a commit no branch or tag of the code repository holds" }[f.problem] || "";
  if (f.commit) s += ` in ${f.commit.slice(0, 7)}` + (f.date ? " on " + f.date : "") + (f.author ? " by " + f.author : "");
  return s;
}

// refreshCount shows the vault's name and how many Drafts are open.
function refreshCount() {
  return api("/api/overview").then((o) => { $("#vault-name").textContent = o.vault_name; $("#drafts-count").textContent = o.open_drafts ? String(o.open_drafts) : ""; }).catch(() => {});
}

document.addEventListener("DOMContentLoaded", () => {
  $("#find").addEventListener("submit", (e) => { e.preventDefault(); const q = $("#q").value.trim(); if (q) go("/search?" + new URLSearchParams({ q })); });
  $("#nav-drafts").addEventListener("click", (e) => { e.preventDefault(); go("/drafts"); });
  $("#nav-stale").addEventListener("click", (e) => { e.preventDefault(); go("/stale"); });
  $("#nav-home").addEventListener("click", (e) => { e.preventDefault(); go("/"); });
  $("#refresh").addEventListener("click", () => route());
  refreshCount();
  route();
});
