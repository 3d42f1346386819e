package web

import (
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/lore-memory/lore/activity"
	"github.com/lore-memory/lore/vault"
)

// The page's views, each at a URL of its own (the page routes them; the
// server answers each with the page): / (the overview), /sessions,
// /session/TOKEN, /run?vault=V&id=ID, /drafts, /drafts/ID, /note/ID,
// /search?q=Q and /stale. Back, bookmarks and links work.
var views = []string{"/sessions", "/session/", "/run", "/drafts", "/drafts/", "/note/", "/search", "/stale"}

// page serves the page itself.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	data, _ := static.ReadFile("static/index.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(data)
}

// overview is the landing view's data: the vault, its open Drafts and the
// projects whose agents' sessions are known.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	v := s.ix.Vault()
	ds, err := s.store.List(r.Context(), "", false)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]any{"vault": v.Root, "vault_name": path.Base(v.Root), "project": s.project,
		"open_drafts": len(ds), "org_ref": strings.TrimPrefix(s.store.OrgRef(), "refs/heads/"), "remote": s.remote.Exists(r.Context())})
}

// syncStatus is a Draft's sync state as the CLI says it: "local (no
// remote)" where the vault has no remote to send it to.
func (s *Server) syncStatus(r *http.Request, d vault.Draft, hasRemote bool) string {
	st := s.remote.Status(r.Context(), d.ID)
	if st == "queued" && !hasRemote {
		return "local (no remote)"
	}
	if d.Merged {
		return "merged"
	}
	return st
}

// draftSession finds the agent session that made a Draft: a session of the
// Draft's project, running when its first operation was stored, whose log
// holds the Draft's id (the store call's result).
func (s *Server) draftSession(d vault.Draft) *activity.Summary {
	if s.act == nil || len(d.Operations) == 0 {
		return nil
	}
	first, last := d.Operations[0].At, d.Operations[len(d.Operations)-1].At
	for cursor := ""; ; {
		p, err := s.act.List(activity.Filter{Project: d.Project}, cursor, 100)
		if err != nil {
			return nil
		}
		for i := range p.Sessions {
			sum := p.Sessions[i]
			if sum.Updated.Before(first.Add(-time.Minute)) || sum.Started.After(last.Add(time.Minute)) {
				continue
			}
			if activity.Mentions(sum, d.ID) {
				return &sum
			}
		}
		if p.Next == "" {
			return nil
		}
		cursor = p.Next
	}
}

// attachment serves a file of the vault a note shows (an image), by its
// path from the vault's root or, as Obsidian finds ![[name.png]], by its
// name; only images.
func (s *Server) attachment(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, from := q.Get("name"), q.Get("from")
	if !imageExt[strings.ToLower(path.Ext(name))] {
		fail(w, vault.Errorf(vault.CodeInvalid, "%q is not an image lore serves", name))
		return
	}
	v := s.ix.Vault()
	var candidates []string
	if from != "" {
		candidates = append(candidates, path.Join(path.Dir(from), name))
	}
	candidates = append(candidates, name)
	if !strings.Contains(name, "/") {
		if p := v.FindAttachment(name); p != "" {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		f, err := v.OpenAttachment(c)
		if err != nil {
			continue
		}
		defer f.Close()
		w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(c)))
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
		io.Copy(w, f)
		return
	}
	fail(w, vault.Errorf(vault.CodeNotFound, "no image %s in the vault", name))
}
