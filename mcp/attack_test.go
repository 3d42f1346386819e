package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/journal"
	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// Attacks an agent can make through the MCP tools (issue: trust), each
// written before its fix and failing without it.

// testServer is a real vault (a git repository), its index and Draft store,
// and a server of profile bound to project api, whose workspace is its own
// git repository (the code the guard checks).
type testServer struct {
	*Server
	vault, work string
}

func newTestServer(t *testing.T, profile string, files map[string]string) *testServer {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	vdir, work := filepath.Join(base, "vault"), filepath.Join(base, "work")
	testvault.Repo(t, vdir, files)
	testvault.Repo(t, work, map[string]string{"src/main.go": "package main\n"})
	v, err := vault.Open(vdir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := retrieve.Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	st, err := drafts.Open(context.Background(), ix.Index, mustOutbox(t, ix.Index))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(testDeps(ix, st, "api"), "api", profile, "test", Options{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); ix.Close(); v.Close() })
	return &testServer{Server: s, vault: vdir, work: work}
}

func write(t *testing.T, full, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

var ruleFiles = map[string]string{
	"lore.yaml": "projects:\n  api: {}\n",
	"decisions/0001-everything.md": "---\nid: mem_all\ntitle: Match every line\nguard:\n  - id: any-line\n    deny: \"(?s).+\"\n" +
		"  - id: no-select-star\n    deny: \"SELECT * FROM\"\n    literal: true\n---\n# Match every line\n",
}

func (ts *testServer) guard(t *testing.T, args string) (guardResult, error) {
	t.Helper()
	out, err := ts.guardCheck(context.Background(), []byte(args))
	if err != nil {
		return guardResult{}, err
	}
	return out.(guardResult), nil
}

func TestAttack_GuardCheckReadsNothingOutsideTheWorkspace(t *testing.T) {
	ts := newTestServer(t, "vault", ruleFiles)
	outside := filepath.Join(filepath.Dir(ts.work), "secret.txt")
	write(t, outside, "root:x:0:0:secret\n")
	if err := os.Symlink(outside, filepath.Join(ts.work, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"repo_path": "/", "files": ["etc/passwd"]}`,
		`{"repo_path": "/etc", "files": ["passwd"]}`,
		`{"repo_path": "..", "files": ["secret.txt"]}`,
		`{"repo_path": "` + filepath.Dir(ts.work) + `", "files": ["secret.txt"]}`,
		`{"files": ["../secret.txt"]}`,
		`{"files": ["/etc/passwd"]}`,
		`{"files": ["link.txt"]}`,
		`{"repo_path": "/dev", "files": ["zero"]}`,
	} {
		rep, err := ts.guard(t, args)
		if err == nil {
			t.Errorf("%s: answered ok=%v with %d violations; want it refused", args, rep.OK, rep.Total)
			continue
		}
		if vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("%s: %v; want invalid_input", args, err)
		}
		if strings.Contains(err.Error(), "root:x") || strings.Contains(err.Error(), "secret") && !strings.Contains(args, "secret") {
			t.Errorf("%s: the error quotes the file: %v", args, err)
		}
	}
	// Inside the workspace, a file is read and a violation quotes only its line.
	rep, err := ts.guard(t, `{"files": ["src/main.go"]}`)
	if err != nil || rep.OK || rep.Total != 1 || rep.Violations[0].Text != "package main" {
		t.Fatalf("a file inside the workspace: %+v, %v", rep, err)
	}
}

func TestAttack_GuardCheckDevicesAndFIFOs(t *testing.T) {
	ts := newTestServer(t, "vault", ruleFiles)
	fifo := filepath.Join(ts.work, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ts.work, "zero")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pipe", "zero", "src"} {
		done := make(chan error, 1)
		go func() { _, err := ts.guard(t, `{"files": ["`+f+`"]}`); done <- err }()
		select {
		case err := <-done:
			if vault.ErrorCode(err) != vault.CodeInvalid {
				t.Errorf("files [%s]: %v; want invalid_input", f, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("files [%s]: no answer after 20 s", f)
		}
	}
}

func TestAttack_GuardFindingsAreCapped(t *testing.T) {
	ts := newTestServer(t, "vault", ruleFiles)
	var diff strings.Builder
	diff.WriteString("diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -0,0 +1,20000 @@\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&diff, "+line %d\n", i)
	}
	args, _ := json.Marshal(map[string]string{"diff": diff.String()})
	rep, err := ts.guard(t, string(args))
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.Total != 20000 || len(rep.Violations) != guard.MaxViolations || rep.Omitted != 20000-guard.MaxViolations {
		t.Fatalf("ok=%v total=%d listed=%d omitted=%d", rep.OK, rep.Total, len(rep.Violations), rep.Omitted)
	}
	if text := rep.Format(); len(text) > 200<<10 || !strings.Contains(text, fmt.Sprintf("%d more", rep.Omitted)) {
		t.Fatalf("the report is %d bytes, or does not say how many more there were", len(text))
	}
}

// serve runs the stdio server on pipes and returns a function that sends
// one line and reads the answer to it.
func serve(t *testing.T, ts *testServer) func(line string) map[string]any {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go ts.Serve(ctx, inR, outW, io.Discard)
	t.Cleanup(func() { inW.Close(); cancel() })
	rd := bufio.NewReaderSize(outR, 1<<20)
	return func(line string) map[string]any {
		t.Helper()
		done := make(chan map[string]any, 1)
		go func() {
			inW.Write([]byte(line + "\n"))
			answer, err := rd.ReadBytes('\n')
			if len(answer) > 64<<10 {
				t.Errorf("answer is %d bytes", len(answer))
			}
			var m map[string]any
			if err == nil {
				json.Unmarshal(answer, &m)
			}
			done <- m
		}()
		select {
		case m := <-done:
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer to a %d-byte message after 30 s", len(line))
			return nil
		}
	}
}

func TestAttack_MCPMessagesAreBoundedAndAnswered(t *testing.T) {
	ts := newTestServer(t, "memory", ruleFiles)
	send := serve(t, ts)
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if init["result"] == nil {
		t.Fatalf("initialize: %v", init)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	deep := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory","arguments":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`
	if m := send(deep); m["error"] == nil || m["id"] != float64(2) {
		t.Errorf("10,001 levels deep: %v; want a JSON-RPC error for id 2", m)
	}
	longID := `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 4<<20) + `","method":"tools/list"}`
	if m := send(longID); m["error"] == nil || m["id"] != nil {
		t.Errorf("a 4 MiB id: %v; want a JSON-RPC error with id null (never echoed)", m)
	}
	huge := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"` + strings.Repeat("y", 70<<20) + `"}}`
	if m := send(huge); m["error"] == nil || m["id"] != float64(3) {
		t.Errorf("a 70 MiB message: %v; want a JSON-RPC error for id 3", m)
	}
	idLast := `{"jsonrpc":"2.0","method":"tools/list","params":{"x":"` + strings.Repeat("y", 70<<20) + `"},"id":"last"}`
	if m := send(idLast); m["error"] == nil || m["id"] != "last" {
		t.Errorf("a 70 MiB message whose id comes last: %v; want a JSON-RPC error for id \"last\"", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`); m["result"] == nil {
		t.Fatalf("after the attacks the server no longer answers: %v", m)
	}
}

// shapeProblem measures only the top-level id, wherever it stands, without
// decoding the message.
func TestShapeProblemFindsTheTopLevelID(t *testing.T) {
	long := strings.Repeat("x", 300)
	for msg, bad := range map[string]bool{
		`{"jsonrpc":"2.0","id":"` + long + `","method":"ping"}`:                             true,
		`{"jsonrpc":"2.0","method":"ping","params":{},"id" : "` + long + `"}`:               true,
		`{"jsonrpc":"2.0","id":` + strings.Repeat("9", 300) + `,"method":"ping"}`:           true,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":"` + long + `"}}`:     false,
		`{"jsonrpc":"2.0","method":"id","params":{"x":"\"id\":\"` + long + `\""},"id":"a"}`: false,
		`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`:                                     false,
	} {
		if got := shapeProblem([]byte(msg)) != ""; got != bad {
			t.Errorf("%.60s…: problem %v, want %v", msg, got, bad)
		}
	}
}

// panickyMemory is real memory whose Load panics, as a bug on one note did.
type panickyMemory struct{ Memory }

func (panickyMemory) Load(_ context.Context, ids []string, _ string) ([]vault.Loaded, error) {
	_ = ids[len(ids):][0] // index out of range
	return nil, nil
}

// TestAttack_APanicInACallAnswersThatCallOnly: a panic inside one tool call
// (a note, or an agent's Draft, that trips a bug) answers that call with an
// internal error, logs its stack, and the server goes on answering.
func TestAttack_APanicInACallAnswersThatCallOnly(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	var log strings.Builder
	s, err := New(testDeps(panickyMemory{ts.ix}, ts.store, "api"), "api", "memory", "test", Options{WorkDir: ts.work, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx, inR, outW, io.Discard)
	defer inW.Close()
	rd := bufio.NewReader(outR)
	call := func(line string) map[string]any {
		t.Helper()
		inW.Write([]byte(line + "\n"))
		answer, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(answer, &m)
		return m
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m := call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory","arguments":{"op":{"load":{"ids":["mem_release"]}}}}}`)
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if e, _ := sc["error"].(map[string]any); m["error"] != nil || res["isError"] != true || e["code"] != vault.CodeInternal {
		t.Fatalf("a panicking load answered %v; want an isError result with code internal", m)
	}
	if !strings.Contains(log.String(), "panic in tool memory") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("the log has no stack of the panic: %q", log.String())
	}
	m = call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory","arguments":{"op":{"activate":{"query":"release"}}}}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
		t.Errorf("after the panic, activate answered %v", m)
	}
}

// TestAttack_ADraftOfAListAfterAHeadingStaysReadable: eight writers once
// appended "- marker pN iK" lines to one shared note through store update
// until its Draft was a heading, ~180 list lines and a paragraph: the
// parser panicked, every load of the note failed, a server's refresh took
// its process down, and none of 615 acknowledged updates could be read
// back. Each update must be read back by load, and activate must answer.
func TestAttack_ADraftOfAListAfterAHeadingStaysReadable(t *testing.T) {
	ts := newTestServer(t, "memory", map[string]string{
		"lore.yaml": "projects:\n  api: {}\n",
		"howto/release.md": "---\nid: mem_release\ntitle: Releasing the mobile app\n---\n# Releasing the mobile app\n\n## Before the release\nRun `make verify`.\n\n" +
			"## Shipping\nTag the commit `vX.Y.Z`, push the tag, and the pipeline uploads both builds. Promote the\nAndroid build from internal testing to production after 24 hours without crashes.\n",
	})
	ctx := context.Background()
	for i := 0; i < 180; i++ {
		out, err := ts.mem(t, `{"op":{"load":{"ids":["mem_release"]}}}`)
		if err != nil {
			t.Fatalf("load after %d updates: %v", i, err)
		}
		r := out.(loadResult).Resources[0]
		line := fmt.Sprintf("- marker p%d i%d\n", i%8, i)
		if _, err := ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"`+r.ContentHash+`","replacements":[{"old_text":"## Shipping\n","new_text":"## Shipping\n`+strings.TrimSuffix(line, "\n")+`\n"}]}}}}`); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	out, err := ts.mem(t, `{"op":{"load":{"ids":["mem_release"]}}}`)
	if err != nil {
		t.Fatalf("load of the Draft's note: %v", err)
	}
	body := *out.(loadResult).Resources[0].Content
	for i := 0; i < 180; i++ {
		if !strings.Contains(body, fmt.Sprintf("- marker p%d i%d\n", i%8, i)) {
			t.Fatalf("acknowledged update %d is not in the note", i)
		}
	}
	if _, err := ts.mem(t, `{"op":{"activate":{"query":"promote the android build"}}}`); err != nil {
		t.Fatalf("activate: %v", err)
	}
	if _, err := ts.ix.(*retrieve.Memory).Index.Rebuild(ctx, nil); err != nil {
		t.Fatalf("rebuild: %v", err)
	}
}

// TestAttack_NoProjectReadsAnotherProjectsDiary: a journal remember in
// namespace u1/p1 wrote a diary entry, and a workspace bound to another
// project got the diary section from memory activate and the note from the
// vault profile's recall_memory. Journal notes appear in no project's
// memory or vault-profile results (the journal's tools read them), and a
// diary only in a journal recall with include_diary.
func TestAttack_NoProjectReadsAnotherProjectsDiary(t *testing.T) {
	js := newTestServer(t, "journal", releaseFiles)
	ctx := context.Background()
	if _, err := js.jRemember(ctx, []byte(`{"namespace":"u1/p1","keywords":["zebrafish"],"slice":"zebrafish release notes","diary":"d1 secret diary"}`)); err != nil {
		t.Fatal(err)
	}
	for _, project := range []string{"other", "api"} {
		mem, err := New(testDeps(js.ix, js.store, project), project, "memory", "test", Options{WorkDir: js.work})
		if err != nil {
			t.Fatal(err)
		}
		out, err := mem.memory(ctx, []byte(`{"op":{"activate":{"query":"zebrafish secret diary"}}}`))
		if b, _ := json.Marshal(out); err != nil || strings.Contains(string(b), "secret diary") || strings.Contains(string(b), "journal/") {
			t.Errorf("%s: activate delivered the journal note: %s %v", project, b, err)
		}
		vs, err := New(testDeps(js.ix, js.store, project), project, "vault", "test", Options{WorkDir: js.work})
		if err != nil {
			t.Fatal(err)
		}
		out, err = vs.recallMemory(ctx, []byte(`{"query":"zebrafish secret diary","mode":"bm25"}`))
		if b, _ := json.Marshal(out); err != nil || strings.Contains(string(b), "zebrafish") {
			t.Errorf("%s: recall_memory returned the journal note: %s %v", project, b, err)
		}
	}
	out, err := js.jRecall(ctx, []byte(`{"namespace":"u1/p1","keywords":["zebrafish"]}`))
	if b, _ := json.Marshal(out); err != nil || !strings.Contains(string(b), "zebrafish release notes") || strings.Contains(string(b), "secret diary") {
		t.Errorf("journal recall without include_diary: %s %v", b, err)
	}
	out, err = js.jRecall(ctx, []byte(`{"namespace":"u1/p1","keywords":["zebrafish"],"include_diary":true}`))
	if b, _ := json.Marshal(out); err != nil || !strings.Contains(string(b), "secret diary") {
		t.Errorf("journal recall with include_diary lost the diary: %s %v", b, err)
	}
}

// TestAttack_NoStoreOrVaultToolPublishes: with lore.yaml's old
// auto_publish globs, memory store create, update and delete of a journal
// path each returned published: true, and the vault tools wrote there too.
// Now every one leaves a Draft, and the org ref never moves.
func TestAttack_NoStoreOrVaultToolPublishes(t *testing.T) {
	files := map[string]string{
		"lore.yaml":     "projects:\n  api: {}\nauto_publish: [journal/**, notes/**]\nfolders: {log: journal/agent/notes, skill: notes}\n",
		"notes/kept.md": "---\nid: mem_kept\n---\n# Kept\n\npublished\n",
	}
	ts := newTestServer(t, "memory", files)
	orgHead := func() string {
		out, err := exec.Command("git", "-C", ts.vault, "rev-parse", "refs/heads/main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	before := orgHead()
	check := func(what string, out any, err error) {
		t.Helper()
		if b, _ := json.Marshal(out); err != nil || strings.Contains(string(b), `"published":true`) || orgHead() != before {
			t.Errorf("%s: %s %v; want a Draft, the org ref unchanged", what, b, err)
		}
	}
	out, err := ts.mem(t, `{"op":{"store":{"create":{"path":"journal/agent/notes/2026/direct.md","body":"# Direct\n\nby an agent\n"}}}}`)
	check("store create", out, err)
	out, err = ts.mem(t, `{"op":{"load":{"ids":["mem_kept"]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	hash := out.(loadResult).Resources[0].ContentHash
	out, err = ts.mem(t, `{"op":{"store":{"update":{"id":"mem_kept","expected_hash":"`+hash+`","replacements":[{"old_text":"published","new_text":"rewritten"}]}}}}`)
	check("store update", out, err)
	vs, err := New(testDeps(ts.ix, ts.store, "web"), "web", "vault", "test", Options{WorkDir: ts.work})
	if err != nil {
		t.Fatal(err)
	}
	out, err = vs.flushSession(context.Background(), []byte(`{"title":"Session log","category":"log","content":"what happened"}`))
	check("flush_session", out, err)
	out, err = vs.distill(context.Background(), []byte(`{"raw_trace":"$ make build\nok\n$ make test\nok\n","title":"Build and test"}`))
	check("distill_session_skill", out, err)
	ms, err := New(testDeps(ts.ix, ts.store, "web"), "web", "memory", "test", Options{WorkDir: ts.work})
	if err != nil {
		t.Fatal(err)
	}
	out, err = ms.memory(context.Background(), []byte(`{"op":{"store":{"delete":{"id":"mem_kept"}}}}`))
	check("store delete", out, err)
}

// TestAttack_LinksIntoGitLeakNothing: notes that are symlinks to
// ../.git/config (a remote URL with a credential) and to the MCP bearer
// token, committed in the vault as a pull would bring them: search found
// the credential, activate delivered .git/config, load delivered the 0600
// token, and an update of the token note committed the token to a Draft
// branch that sync pushed. A link that resolves into any git directory (or
// other dot-folder) is refused like a link out of the vault.
func TestAttack_LinksIntoGitLeakNothing(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	ctx := context.Background()
	testvault.Git(t, ts.vault, "config", "remote.origin.url", "https://user:ghp_CREDENTIAL4242@example.invalid/memory.git")
	os.MkdirAll(filepath.Join(ts.vault, ".git", "lore"), 0o700)
	os.WriteFile(filepath.Join(ts.vault, ".git", "lore", "mcp-http.token"), []byte("tok_SECRET_BEARER_9999\n"), 0o600)
	if err := os.Symlink("../.git/config", filepath.Join(ts.vault, "howto", "config.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.git/lore/mcp-http.token", filepath.Join(ts.vault, "howto", "token.md")); err != nil {
		t.Fatal(err)
	}
	testvault.Git(t, ts.vault, "add", "-A")
	testvault.Git(t, ts.vault, "commit", "-qm", "links")
	leaks := func(what string, out any, err error) {
		t.Helper()
		b, _ := json.Marshal(out)
		if strings.Contains(string(b), "CREDENTIAL4242") || strings.Contains(string(b), "SECRET_BEARER") {
			t.Errorf("%s leaked a secret: %s", what, b)
		}
	}
	out, err := ts.mem(t, `{"op":{"activate":{"query":"ghp_CREDENTIAL4242 remote origin url tok_SECRET_BEARER_9999"}}}`)
	leaks("activate", out, err)
	for _, id := range []string{"howto/config.md", "howto/token.md"} {
		out, err := ts.mem(t, `{"op":{"load":{"ids":["`+id+`"]}}}`)
		leaks("load "+id, out, err)
		if err == nil {
			t.Errorf("load %s: answered; want it refused", id)
		}
	}
	hits, err := ts.ix.(*retrieve.Memory).Search(ctx, "ghp_CREDENTIAL4242", vault.SearchOptions{Project: "api"})
	leaks("search", hits, err)
	hash := vault.HashBytes([]byte("tok_SECRET_BEARER_9999\n"))
	out, err = ts.mem(t, `{"op":{"store":{"update":{"id":"howto/token.md","expected_hash":"`+hash+`","replacements":[{"old_text":"tok","new_text":"tok"}]}}}}`)
	if err == nil {
		t.Errorf("an update of the token note was accepted: %v", out)
	}
	if refs, _ := exec.Command("git", "-C", ts.vault, "for-each-ref", "refs/heads/drafts/").Output(); len(refs) > 0 {
		if log, _ := exec.Command("git", "-C", ts.vault, "log", "-p", "--all", "--", "howto/token.md").Output(); strings.Contains(string(log), "SECRET_BEARER") {
			t.Errorf("the token was committed to a Draft branch:\n%s", log)
		}
	}
}

// mustOutbox opens the vault's outbox, as lore does beside the index.
func mustOutbox(t testing.TB, ix *fts.Index) *outbox.Outbox {
	t.Helper()
	out, err := outbox.Open(context.Background(), filepath.Join(ix.Vault().DataDir(), "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testDeps wires a server's collaborators as lore does (cmd/lore's
// serverDeps): the journal writes as project, offloaded logs are bounded.
func testDeps(ix Memory, st Writer, project string) Deps {
	maxBytes, maxNodes := ix.Vault().Config.OffloadLimits()
	return Deps{Memory: ix, Store: st, Journal: journal.New(ix, st, project),
		Offload: offload.NewStore(filepath.Join(ix.Vault().DataDir(), "offload"), maxBytes, maxNodes)}
}
