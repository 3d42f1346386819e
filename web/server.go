package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lore-memory/lore/activity"
	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/internal/strictjson"
	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
)

//go:embed static
var static embed.FS

// Memory is what the web UI reads of memory: search, load, link names,
// and the vault it serves (*retrieve.Memory is one).
type Memory interface {
	vault.Searcher
	vault.Loader
	Vault() *vault.Vault
	ResolveLink(ctx context.Context, target, project, src string) (id, path string, err error)
}

// Server serves the UI for one vault (its Drafts) and the activity of the
// bound workspaces.
type Server struct {
	act     *activity.Activity
	runs    *activity.IndexRuns
	ix      Memory
	store   vault.Reviewer
	remote  vault.Publisher
	project string
	token   string
	port    string
	// staleOf checks the project's notes' citations of code (nil: no code
	// repository is bound; UseStale sets it).
	staleOf func(ctx context.Context, project string) (stale.Report, error)
	propose vault.Proposer // makes the Draft of a fix the person asks for
	// headerTimeout bounds how long a connection may take to send a
	// request's headers (and stay idle between requests); tests shorten it.
	headerTimeout time.Duration
}

// New makes a server. The token is random unless given (tests).
func New(act *activity.Activity, runs *activity.IndexRuns, ix Memory, st vault.Reviewer, remote vault.Publisher, project string) *Server {
	var b [16]byte
	rand.Read(b[:])
	return &Server{act: act, runs: runs, ix: ix, store: st, remote: remote, project: project, token: hex.EncodeToString(b[:])}
}

// Listen binds 127.0.0.1:port (0: any free port) and returns the listener
// and the URL to open, token included (in the fragment, which a browser
// never sends to any server).
func (s *Server) Listen(port int) (net.Listener, string, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, "", err
	}
	_, p, _ := net.SplitHostPort(l.Addr().String())
	s.port = p
	return l, fmt.Sprintf("http://127.0.0.1:%s/#token=%s", p, s.token), nil
}

// Handler is the whole site behind the loopback and token checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("GET /{$}", s.page)
	for _, v := range views {
		mux.HandleFunc("GET "+v, s.page)
	}
	api := http.NewServeMux()
	api.HandleFunc("GET /api/overview", s.overview)
	api.HandleFunc("GET /api/attachment", s.attachment)
	api.HandleFunc("GET /api/workspaces", s.workspaces)
	api.HandleFunc("GET /api/sessions", s.sessions)
	api.HandleFunc("GET /api/session", s.session)
	api.HandleFunc("GET /api/run", s.run)
	api.HandleFunc("POST /api/cases", s.addCase)
	api.HandleFunc("GET /api/drafts", s.drafts)
	api.HandleFunc("GET /api/drafts/diff", s.draftDiff)
	api.HandleFunc("POST /api/drafts/merge", s.draftMerge)
	api.HandleFunc("POST /api/drafts/discard", s.draftDiscard)
	api.HandleFunc("GET /api/search", s.search)
	api.HandleFunc("GET /api/note", s.note)
	api.HandleFunc("GET /api/stale", s.stale)
	api.HandleFunc("POST /api/stale/fix", s.staleFix)
	mux.Handle("/api/", s.needToken(api))
	return s.guard(mux)
}

// guard enforces a loopback Host (against DNS rebinding) and same-origin
// requests, and sets the headers every answer carries. The page and its
// static files hold no data and need no token; every /api/ request does
// (needToken).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		host, port, err := net.SplitHostPort(r.Host)
		if err != nil || (host != "127.0.0.1" && host != "localhost" && host != "[::1]" && host != "::1") || (s.port != "" && port != s.port) {
			http.Error(w, "lore serve answers only on its loopback address", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(w, "cross-origin requests are refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// needToken lets through API requests that carry the token in the
// X-Lore-Token header. The token is never a cookie: a browser sends a
// host's cookies to every port of it, so any other local server the person
// opened got the cookie and merged with it. The page keeps the token in
// its origin's own storage (port included), where no other origin reads
// it, and sets the header itself, which no other origin can make a
// browser send (no CORS is allowed). A POST's body must be JSON.
func (s *Server) needToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.tokenOK(r.Header.Get("X-Lore-Token")) {
			http.Error(w, "no token: open the URL lore serve printed", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "POST bodies are JSON", http.StatusUnsupportedMediaType)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// statusOf is the HTTP status of each error code; anything else is 500.
var statusOf = map[string]int{
	vault.CodeInvalid:              http.StatusBadRequest,
	vault.CodeInvalidState:         http.StatusBadRequest,
	vault.CodeNotFound:             http.StatusNotFound,
	vault.CodeConflict:             http.StatusConflict,
	vault.CodeContentChanged:       http.StatusConflict,
	vault.CodeReplacementNotFound:  http.StatusConflict,
	vault.CodeReplacementAmbiguous: http.StatusConflict,
	vault.CodeReplacementOverlap:   http.StatusConflict,
	vault.CodeBusy:                 http.StatusServiceUnavailable,
	vault.CodeModelPreparing:       http.StatusServiceUnavailable,
	vault.CodeUnbound:              http.StatusServiceUnavailable,
	vault.CodeNotVault:             http.StatusServiceUnavailable,
	vault.CodeConfig:               http.StatusServiceUnavailable,
}

// fail answers with err's code and message as {"error": {code, message}}
// and the code's status; a busy index or a model being prepared says when
// to try again (Retry-After).
func fail(w http.ResponseWriter, err error) {
	code, ok := statusOf[vault.ErrorCode(err)]
	if !ok {
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "2")
	}
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": vault.ErrorCode(err), "message": vault.Message(err)}})
}

func (s *Server) workspaces(w http.ResponseWriter, r *http.Request) {
	projects := map[string]bool{}
	for _, ws := range s.act.Workspaces() {
		projects[ws.Project] = true
	}
	var ps []string
	for p := range projects {
		ps = append(ps, p)
	}
	writeJSON(w, map[string]any{"workspaces": s.act.Workspaces(), "projects": ps, "vault": s.ix.Vault().Root, "project": s.project})
}

func atoi(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := s.act.List(activity.Filter{Project: q.Get("project"), Workspace: q.Get("workspace")}, q.Get("cursor"), atoi(q.Get("limit"), 0))
	if err != nil {
		fail(w, vault.Errorf(vault.CodeInvalid, "%v", err))
		return
	}
	writeJSON(w, p)
}

type viewFragment struct {
	activity.Fragment
	HTML string `json:"html"`
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sp, err := s.act.Open(r.Context(), q.Get("token"), s.runs, atoi(q.Get("page"), 1), atoi(q.Get("limit"), 0))
	if err != nil {
		fail(w, vault.Errorf(vault.CodeNotFound, "%v", err))
		return
	}
	// Fragments with their Markdown rendered.
	type viewAct struct {
		activity.Activation
		Fragments []viewFragment `json:"fragments"`
	}
	type viewReq struct {
		activity.Request
		Activations []viewAct `json:"activations"`
	}
	var reqs []viewReq
	for _, rq := range sp.Requests {
		vr := viewReq{Request: rq}
		for _, a := range rq.Activations {
			va := viewAct{Activation: a}
			for _, f := range a.Fragments {
				va.Fragments = append(va.Fragments, viewFragment{Fragment: f, HTML: render(f.Content)})
			}
			vr.Activations = append(vr.Activations, va)
		}
		reqs = append(reqs, vr)
	}
	writeJSON(w, map[string]any{"session": sp.Summary, "requests": reqs, "total_requests": sp.Total, "next_page": sp.Next, "problems": sp.Problems, "partial": sp.Partial})
}

// vaultOf checks that dir is the vault of a bound workspace.
func (s *Server) vaultOf(dir string) (string, bool) {
	for _, ws := range s.act.Workspaces() {
		if filepath.Clean(ws.Vault) == filepath.Clean(dir) {
			return ws.Vault, true
		}
	}
	return "", false
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, ok := s.vaultOf(q.Get("vault"))
	if !ok {
		fail(w, vault.Errorf(vault.CodeNotFound, "%s is not the vault of a bound workspace", q.Get("vault")))
		return
	}
	raw, err := s.runs.Run(r.Context(), v, q.Get("id"))
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(raw)
}

func decodeBody(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return err
	}
	return strictjson.Decode(data, v)
}

func (s *Server) addCase(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Vault    string   `json:"vault"`
		RunID    string   `json:"run_id"`
		Project  string   `json:"project"`
		Query    string   `json:"query"`
		Expected []string `json:"expected"`
		Sections []string `json:"expected_sections,omitempty"`
		Note     string   `json:"note,omitempty"`
	}
	if err := decodeBody(r, &in); err != nil {
		fail(w, err)
		return
	}
	v, ok := s.vaultOf(in.Vault)
	if !ok || filepath.Clean(v) != s.ix.Vault().Root {
		fail(w, vault.Errorf(vault.CodeInvalid, "cases are kept for the served vault %s", s.ix.Vault().Root))
		return
	}
	c, err := eval.CasesOf(s.ix.Vault()).Add(r.Context(), s.ix, eval.Case{RunID: in.RunID, Project: in.Project, Query: in.Query, Expected: in.Expected, Sections: in.Sections, Note: in.Note})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, c)
}

func (s *Server) drafts(w http.ResponseWriter, r *http.Request) {
	ds, err := s.store.List(r.Context(), r.URL.Query().Get("project"), false)
	if err != nil {
		fail(w, err)
		return
	}
	type session struct {
		Token string `json:"session_token"`
		Title string `json:"title"`
		Host  string `json:"host"`
	}
	type row struct {
		vault.Draft
		ShortID    string   `json:"short_id"`
		SyncStatus string   `json:"sync_status"`
		Session    *session `json:"session,omitempty"` // the agent session that made it, when its log is here
	}
	hasRemote := s.remote.Exists(r.Context())
	out := []row{}
	for _, d := range ds {
		rw := row{Draft: d, ShortID: vault.ShortID(d.ID, ds), SyncStatus: s.syncStatus(r, d, hasRemote)}
		if sum := s.draftSession(d); sum != nil {
			rw.Session = &session{sum.Token, sum.Title, sum.Host}
		}
		out = append(out, rw)
	}
	writeJSON(w, map[string]any{"drafts": out, "org_ref": s.store.OrgRef()})
}

// draftDiff answers a Draft's diff with the head it shows: the page sends
// that head back with Merge, so what the person saw is what merges.
func (s *Server) draftDiff(w http.ResponseWriter, r *http.Request) {
	patch, d, err := s.store.Diff(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		fail(w, err)
		return
	}
	// Control, escape and invisible characters are marked (<U+200B>), so two
	// lines that differ never look the same.
	writeJSON(w, map[string]string{"diff": termtext.Mark(patch), "draft_id": d.ID, "head": d.Head})
}

type idsInput struct {
	IDs []string `json:"ids"`
}

// mergeInput names each Draft to merge with the head its diff showed.
type mergeInput struct {
	IDs   []string          `json:"ids"`
	Heads map[string]string `json:"heads"`
	// WithEdits first records the vault's uncommitted edits as the
	// person's commit; without it a merge waits while there are any.
	WithEdits bool `json:"with_edits,omitempty"`
}

// draftMerge merges Drafts at the heads the page showed; a Draft without
// one, or one that moved since, is refused and nothing is merged.
func (s *Server) draftMerge(w http.ResponseWriter, r *http.Request) {
	var in mergeInput
	if err := decodeBody(r, &in); err != nil {
		fail(w, err)
		return
	}
	var reviewed []string
	for _, id := range in.IDs {
		h := in.Heads[id]
		if h == "" {
			fail(w, vault.Errorf(vault.CodeInvalid, "merge %s: heads.%s is required: the head its diff showed (GET /api/drafts/diff)", id, id))
			return
		}
		reviewed = append(reviewed, id+"@"+h)
	}
	if in.WithEdits {
		if _, _, err := s.store.CommitEdits(r.Context()); err != nil {
			fail(w, err)
			return
		}
	}
	res, err := s.store.Merge(r.Context(), reviewed)
	if err != nil {
		fail(w, err)
		return
	}
	// With a remote, the merge is published there at once, as the CLI's.
	published := ""
	if len(res.Merged) > 0 {
		published = s.remote.Publish(r.Context())
	}
	writeJSON(w, struct {
		vault.MergeResult
		Published string `json:"published,omitempty"`
	}{res, published})
}

func (s *Server) draftDiscard(w http.ResponseWriter, r *http.Request) {
	var in idsInput
	if err := decodeBody(r, &in); err != nil {
		fail(w, err)
		return
	}
	done, err := s.store.Discard(r.Context(), in.IDs)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]any{"discarded": done})
}

// Serve runs the server until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	// Time-outs: a client that opens a connection and sends nothing (or
	// half a request) is dropped instead of held forever.
	header := s.headerTimeout
	if header == 0 {
		header = 10 * time.Second
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: header, ReadTimeout: time.Minute,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 12 * header, MaxHeaderBytes: 64 << 10}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err := srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// search finds notes with the same index as lore search: people open the UI
// to look at memory, not only at activity. project defaults to the server's.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		fail(w, vault.Errorf(vault.CodeInvalid, "q is empty: type what to find"))
		return
	}
	hits, err := s.ix.Search(r.Context(), q, vault.SearchOptions{Project: s.viewProject(r), Limit: 20})
	if err != nil {
		fail(w, err)
		return
	}
	if hits == nil {
		hits = []vault.Hit{}
	}
	writeJSON(w, map[string]any{"hits": hits})
}

// note returns one whole note by id or path, with its body rendered for
// the page (wikilinks as links to the notes they name).
func (s *Server) note(w http.ResponseWriter, r *http.Request) {
	project := s.viewProject(r)
	rs, err := s.ix.Load(r.Context(), []string{r.URL.Query().Get("id")}, project)
	if err != nil {
		fail(w, err)
		return
	}
	n := rs[0]
	body := string(markdown.Body([]byte(n.Content)))
	writeJSON(w, struct {
		vault.Loaded
		HTML string `json:"html"`
	}{n, renderNote(body, n.Path, s.resolverFor(r.Context(), project, n.Path))})
}

// viewProject is the project whose memory a request looks at.
func (s *Server) viewProject(r *http.Request) string {
	if p := r.URL.Query().Get("project"); p != "" && vault.ValidProjectName(p) {
		return p
	}
	return s.project
}

// UseStale sets how the "may be stale" view checks a project's notes
// against the code repository of the bound workspace, and where the fix of
// a renamed path goes when the person asks for it: a Draft, reviewed like
// any other.
func (s *Server) UseStale(check func(ctx context.Context, project string) (stale.Report, error), propose vault.Proposer) {
	s.staleOf, s.propose = check, propose
}

// stale is the "may be stale" view's data: the notes whose citations of
// code broke, each with the commit that broke it and the edit that would
// mend the note. Nothing is changed: the fix is the person's edit, or a
// Draft an agent proposes when asked, reviewed as any other.
func (s *Server) stale(w http.ResponseWriter, r *http.Request) {
	type out struct {
		Bound    bool          `json:"bound"`
		Code     string        `json:"code,omitempty"`
		Notes    int           `json:"notes_checked"`
		Citing   int           `json:"notes_citing_code"`
		Findings []stale.Entry `json:"findings"`
	}
	if s.staleOf == nil {
		writeJSON(w, out{Findings: []stale.Entry{}})
		return
	}
	rep, err := s.staleOf(r.Context(), s.viewProject(r))
	if err != nil {
		fail(w, err)
		return
	}
	o := out{Bound: true, Code: rep.Code, Notes: rep.Notes, Citing: rep.Citing, Findings: []stale.Entry{}}
	for _, e := range rep.Entries {
		if e.Broken() {
			o.Findings = append(o.Findings, e)
		}
	}
	writeJSON(w, o)
}

// staleFixInput names the citation whose fix the person asks for.
type staleFixInput struct {
	Note  string `json:"note"`
	Cites string `json:"cites"`
}

// staleFix makes a Draft that points a renamed path's citation at its new
// name, when the person asks for it on the "may be stale" view. The
// finding is checked again here (the request only names it), and the
// Draft is a proposal like an agent's: the person reviews and merges it.
func (s *Server) staleFix(w http.ResponseWriter, r *http.Request) {
	var in staleFixInput
	if err := decodeBody(r, &in); err != nil {
		fail(w, err)
		return
	}
	if s.staleOf == nil || s.propose == nil {
		fail(w, vault.Errorf(vault.CodeInvalid, "no code repository is bound: there is nothing to fix"))
		return
	}
	project := s.viewProject(r)
	rep, err := s.staleOf(r.Context(), project)
	if err != nil {
		fail(w, err)
		return
	}
	var found *stale.Entry
	for i, e := range rep.Entries {
		if e.Note == in.Note && e.Cites == in.Cites && e.Problem == vault.ProblemRenamed {
			found = &rep.Entries[i]
			break
		}
	}
	if found == nil {
		fail(w, vault.Errorf(vault.CodeNotFound, "%s cites no renamed path %q now: reload the view", in.Note, in.Cites))
		return
	}
	res, ok, err := stale.ProposeRename(r.Context(), s.ix, s.propose, project, *found)
	if err != nil {
		fail(w, err)
		return
	}
	if !ok {
		fail(w, vault.Errorf(vault.CodeInvalid, "%s: the citation of %s has %s", in.Note, found.Path, stale.NoFix))
		return
	}
	writeJSON(w, res)
}
