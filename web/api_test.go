package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/activity"
	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// apiServer is the web API on a real vault (git, SQLite index, Draft
// store), called through its handler with the token, as the page calls it.
type apiServer struct {
	t     *testing.T
	srv   *Server
	h     http.Handler
	store *drafts.Store
	root  string
}

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	return newAPIServerWith(t, nil)
}

// newAPIServerWith is newAPIServer's vault with more files.
func newAPIServerWith(t *testing.T, more map[string]string) *apiServer {
	t.Helper()
	files := map[string]string{
		"lore.yaml":          "embedding: {provider: none}\nprojects: {api: {}}\n",
		"howto/release.md":   "---\nid: mem_release\n---\n# Release\n\nTag the commit, then run make release. See [[Deploy]].\n\n![[diagram.png]]\n",
		"howto/deploy.md":    "---\nid: mem_deploy\n---\n# Deploy\n\nRun make deploy after the release.\n",
		"howto/diagram.png":  "\x89PNG\r\n\x1a\n",
		"journal/u/p/one.md": "---\nid: mem_journal\n---\n# Private\n\nnot for the web view\n",
		"a/Home.md":          "---\nid: mem_home_a\n---\n# Home of a\n",
		"bb/Home.md":         "---\nid: mem_home_bb\n---\n# Home of bb\n",
		"bb/note.md":         "---\nid: mem_bb_note\n---\n# Note in bb\n\nSee [[Home]] and [md home](Home.md).\n",
	}
	for p, s := range more {
		files[p] = s
	}
	root := testvault.New(t, files)
	testvault.Git(t, root, "add", "-A")
	testvault.Git(t, root, "commit", "-qm", "start")
	_, ix := testvault.Open(t, root, retrieve.Open)
	out, err := outbox.Open(context.Background(), filepath.Join(ix.Vault().DataDir(), "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := drafts.Open(context.Background(), ix.Index, out)
	if err != nil {
		t.Fatal(err)
	}
	s := New(activity.New(activity.Homes{}, nil), activity.NewIndexRuns(nil), ix, st, st.Remote(), "api")
	s.token = "secret"
	return &apiServer{t: t, srv: s, h: s.Handler(), store: st, root: root}
}

// call sends one API request and returns its status and decoded body.
func (a *apiServer) call(method, target, body string) (int, map[string]any) {
	a.t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Host = "127.0.0.1:7411"
	r.Header.Set("X-Lore-Token", "secret")
	if method == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	a.h.ServeHTTP(w, r)
	var out map[string]any
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			a.t.Fatalf("%s %s: %v\n%s", method, target, err, w.Body)
		}
	}
	return w.Code, out
}

func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// The read side of the API: search, a whole note rendered, attachments,
// the overview, workspaces and sessions; each bad request gets its status
// and {error: {code, message}}.
func TestAPI_Reads(t *testing.T) {
	a := newAPIServer(t)
	code, out := a.call("GET", "/api/search?q=make+release", "")
	if code != 200 || !strings.Contains(toJSON(out), "howto/release.md") {
		t.Fatalf("search: %d %v", code, out)
	}
	if code, out = a.call("GET", "/api/search?q=private", ""); code != 200 || strings.Contains(toJSON(out), "journal/") {
		t.Fatalf("search shows a journal note: %d %v", code, out)
	}
	code, out = a.call("GET", "/api/note?id=mem_release", "")
	if code != 200 || out["path"] != "howto/release.md" || !strings.Contains(out["html"].(string), "Deploy") {
		t.Fatalf("note: %d %v", code, out)
	}
	// A note's links resolve from the note, as in Obsidian: of two files
	// named Home, the one in its own folder.
	if code, out = a.call("GET", "/api/note?id=mem_bb_note", ""); code != 200 || !strings.Contains(out["html"].(string), `data-note="mem_home_bb">Home</a>`) ||
		!strings.Contains(out["html"].(string), `data-note="mem_home_bb">md home</a>`) {
		t.Fatalf("bb/note.md's [[Home]] and [md home](Home.md): %d %v; want links to bb/Home.md", code, out)
	}
	for _, c := range []struct {
		target string
		status int
		code   string
	}{
		{"/api/search?q=", 400, vault.CodeInvalid},
		{"/api/note?id=mem_nowhere", 404, vault.CodeNotFound},
		{"/api/note?id=../../etc/passwd", 400, vault.CodeInvalid},
		{"/api/attachment?name=../lore.yaml&from=howto/release.md", 400, vault.CodeInvalid},
		{"/api/session?token=codex:nobody", 404, vault.CodeNotFound},
		{"/api/run?vault=/elsewhere&id=run_x", 404, vault.CodeNotFound},
		{"/api/drafts/diff?id=drf_nowhere", 404, vault.CodeNotFound},
	} {
		code, out := a.call("GET", c.target, "")
		if code != c.status || errCode(out) != c.code {
			t.Errorf("GET %s: %d %v, want %d %s", c.target, code, out, c.status, c.code)
		}
	}
	for _, target := range []string{"/api/overview", "/api/workspaces", "/api/sessions", "/api/drafts"} {
		if code, out := a.call("GET", target, ""); code != 200 || out == nil {
			t.Errorf("GET %s: %d %v", target, code, out)
		}
	}
}

// A Draft through the API as a reviewer handles it: listed, its diff with
// the head it shows, a merge without that head or with another refused
// (nothing merged), the merge at the shown head done; another Draft
// discarded.
func TestAPI_ReviewAndMerge(t *testing.T) {
	a := newAPIServer(t)
	ctx := context.Background()
	res, err := a.store.Apply(ctx, "api", vault.Op{Create: &vault.CreateOp{Path: "howto/rollback.md", Body: "# Rollback\n\nRun make rollback.\n"}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := a.store.Apply(ctx, "api", vault.Op{Create: &vault.CreateOp{Path: "howto/other.md", Body: "# Other\n"}})
	if err != nil {
		t.Fatal(err)
	}
	code, out := a.call("GET", "/api/drafts", "")
	if code != 200 || !strings.Contains(toJSON(out), res.DraftID) {
		t.Fatalf("drafts: %d %v", code, out)
	}
	code, out = a.call("GET", "/api/drafts/diff?id="+res.DraftID, "")
	head, _ := out["head"].(string)
	if code != 200 || head == "" || !strings.Contains(out["diff"].(string), "make rollback") {
		t.Fatalf("diff: %d %v", code, out)
	}
	if code, out = a.call("POST", "/api/drafts/merge", `{"ids":["`+res.DraftID+`"]}`); code != 400 || errCode(out) != vault.CodeInvalid {
		t.Fatalf("merge without the head: %d %v", code, out)
	}
	if code, out = a.call("POST", "/api/drafts/merge", `{"ids":["`+res.DraftID+`"],"heads":{"`+res.DraftID+`":"0123456789abcdef0123"}}`); code != 409 || errCode(out) != vault.CodeContentChanged {
		t.Fatalf("merge at another head: %d %v", code, out)
	}
	if strings.Contains(testvault.Git(t, a.root, "ls-tree", "-r", "--name-only", "main"), "rollback") {
		t.Fatal("a refused merge merged")
	}
	if code, out = a.call("POST", "/api/drafts/merge", `{"ids":["`+res.DraftID+`"],"heads":{"`+res.DraftID+`":"`+head+`"}}`); code != 200 {
		t.Fatalf("merge at the shown head: %d %v", code, out)
	}
	if !strings.Contains(testvault.Git(t, a.root, "ls-tree", "-r", "--name-only", "main"), "howto/rollback.md") {
		t.Fatal("the merge did not reach main")
	}
	if code, out = a.call("POST", "/api/drafts/discard", `{"ids":["`+other.DraftID+`"]}`); code != 200 {
		t.Fatalf("discard: %d %v", code, out)
	}
	if code, out = a.call("POST", "/api/drafts/discard", `{"ids":["`+other.DraftID+`"],"x":1}`); code != 400 {
		t.Fatalf("discard with an unknown field: %d %v", code, out)
	}
}

// Each error code has its status; a busy index and a model being prepared
// say when to try again.
func TestFail_StatusOfEachCode(t *testing.T) {
	for code, want := range map[string]int{
		vault.CodeInvalid: 400, vault.CodeInvalidState: 400, vault.CodeNotFound: 404,
		vault.CodeConflict: 409, vault.CodeContentChanged: 409, vault.CodeReplacementNotFound: 409,
		vault.CodeBusy: 503, vault.CodeModelPreparing: 503, vault.CodeInternal: 500,
	} {
		w := httptest.NewRecorder()
		fail(w, &vault.Error{Code: code, Message: "m"})
		if w.Code != want {
			t.Errorf("%s: %d, want %d", code, w.Code, want)
		}
		if retry := w.Header().Get("Retry-After"); (want == 503) != (retry != "") {
			t.Errorf("%s: Retry-After %q", code, retry)
		}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// With a remote, a merge from the page is published there at once, as the
// CLI's: the org ref pushed, the Draft's branch deleted.
func TestAPI_AMergeIsPublishedToTheRemote(t *testing.T) {
	a := newAPIServer(t)
	ctx := context.Background()
	d, bare := testvault.Remote(t, "vault.git")
	testvault.Git(t, a.root, "remote", "add", "origin", d.URL("vault.git"))
	testvault.Git(t, a.root, "push", "-q", "origin", "main")
	res, err := a.store.Apply(ctx, "api", vault.Op{Create: &vault.CreateOp{Path: "howto/rollback.md", Body: "# Rollback\n\nRun make rollback.\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.Remote().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	_, out := a.call("GET", "/api/drafts/diff?id="+res.DraftID, "")
	head, _ := out["head"].(string)
	code, out := a.call("POST", "/api/drafts/merge", `{"ids":["`+res.DraftID+`"],"heads":{"`+res.DraftID+`":"`+head+`"}}`)
	if code != 200 || out["published"] != "org ref: pushed" {
		t.Fatalf("merge: %d %v", code, out)
	}
	if !strings.Contains(testvault.Git(t, bare, "ls-tree", "-r", "--name-only", "main"), "howto/rollback.md") {
		t.Fatal("the remote's main lacks the merge")
	}
	if b := testvault.Git(t, bare, "branch", "--list", "drafts/*"); b != "" {
		t.Fatalf("the Draft's branch is left on the remote: %s", b)
	}
}
