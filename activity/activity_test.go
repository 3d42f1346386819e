package activity

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// fixture copies testdata's homes, makes a real vault with real retrieval
// runs (two of project api, one of web), puts their ids into the logs, and
// writes the DSH sessions (zstd frames, one half-written) and a 1 GB log.
type fixture struct {
	homes         Homes
	vault         string
	ix            *retrieve.Memory
	runOK, runWeb string
	runOld        string
	activity      *Activity
	runs          *IndexRuns
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	tmp := t.TempDir()
	f := &fixture{homes: Homes{"codex": filepath.Join(tmp, "codex"), "claude": filepath.Join(tmp, "claude"), "dsh": filepath.Join(tmp, "dsh")}}
	if out, err := exec.Command("cp", "-R", "testdata/codex", "testdata/claude", tmp).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	// A real vault and its runs.
	f.vault = filepath.Join(tmp, "vault")
	testvault.Repo(t, f.vault, map[string]string{
		"lore.yaml":                      "embedding: {provider: none}\nprojects: {api: {}, web: {}}\n",
		"decisions/0004-retry-budget.md": "---\nid: mem_0004\n---\n# ADR 0004\n\n## Decision\n\nA failed push is retried at most **8** times, with backoff from 1 s to 5 minutes.\n",
		"decisions/0001.md":              "---\nid: mem_0001\n---\n# Index\n\n## Why\n\nOne file, no server, unique old query words.\n",
	})
	v, err := vault.Open(f.vault)
	if err != nil {
		t.Fatal(err)
	}
	f.ix, err = retrieve.Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ix.Close(); v.Close() })
	act := func(q, project string) string {
		a, err := f.ix.Activate(context.Background(), vault.ActivateRequest{Query: q, Project: project})
		if err != nil {
			t.Fatal(err)
		}
		return a.RunID
	}
	f.runOK = act("sync retry budget backoff", "api")
	f.runWeb = act("retry budget", "web")
	f.runOld = act("unique old query", "api")
	act("SELECT star rule", "api")
	act("SELECT star rule", "api") // two runs of one query: a log without run_id must not join
	for _, p := range []string{
		filepath.Join(f.homes["codex"], "sessions/2026/11/30/rollout-2026-11-30T09-00-00-c1.jsonl"),
		filepath.Join(f.homes["claude"], "projects/-work-code/cl1.jsonl"),
	} {
		data, _ := os.ReadFile(p)
		s := strings.ReplaceAll(strings.ReplaceAll(string(data), "RUN_OK", f.runOK), "RUN_OTHER", f.runWeb)
		os.WriteFile(p, []byte(s), 0o644)
	}
	// DSH: one frame per record, and half of one more frame at the end.
	enc, _ := zstd.NewWriter(nil)
	var file []byte
	for _, rec := range []string{
		`{"type":"session","id":"d1","workspace":"/work/code","createdAt":"2026-11-28T08:00:00Z"}`,
		`{"type":"session/title","title":"DSH: migrations"}`,
		`{"type":"user/message","source":{"kind":"agent"},"text":"an agent's own message"}`,
		`{"type":"user/message","source":{"kind":"user"},"text":"How do I add a migration?","timestamp":"2026-11-28T08:00:01Z"}`,
		`{"type":"tool/call","callId":"k1","name":"mcp__lore__memory","arguments":{"op":{"activate":{"query":"add a migration"}}}}`,
		`{"type":"tool/call","callId":"k2","name":"mcp__lore__memory","arguments":{"op":{"store":{"create":{"path":"x.md","body":"y"}}}}}`,
		`{"type":"tool/result","callId":"k1","result":{"structuredContent":{"fragments":[{"action":"add","unit_key":"mem_9/steps/0/0","path":"howto/add-a-migration.md","heading_path":["Steps"],"content":"1. Add a numbered file."}]}}}`,
		`{"type":"tool/result","callId":"nobody","result":{}}`,
		`{"type":"some/new/type","x":1}`,
	} {
		file = append(file, enc.EncodeAll([]byte(rec+"\n"), nil)...)
	}
	half := enc.EncodeAll([]byte(`{"type":"user/message","source":{"kind":"user"},"text":"written later"}`+"\n"), nil)
	file = append(file, half[:len(half)/2]...)
	dshDir := filepath.Join(f.homes["dsh"], "sessions", "-work-code", "d1")
	os.MkdirAll(dshDir, 0o755)
	os.WriteFile(filepath.Join(dshDir, "session.jsonl.zstd"), file, 0o644)
	bad := filepath.Join(f.homes["dsh"], "sessions", "-work-code", "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "session.jsonl.zstd"), []byte("this is not zstd\n"), 0o644)
	// A 1 GB log with a good header (sparse).
	big := filepath.Join(f.homes["codex"], "sessions/2026/11/30/rollout-big.jsonl")
	os.WriteFile(big, []byte(`{"timestamp":"2026-11-30T12:00:00Z","type":"session_meta","payload":{"id":"big","cwd":"/work/code","timestamp":"2026-11-30T12:00:00Z"}}`+"\n"), 0o644)
	os.Truncate(big, 1<<30)
	f.runs = NewIndexRuns(nil)
	f.runs.Add(f.ix)
	t.Cleanup(f.runs.Close)
	f.activity = New(f.homes, []Workspace{{Root: "/work/code", Vault: f.vault, Project: "api"}, {Root: "/work/web", Vault: f.vault, Project: "web"}})
	return f
}

func TestListAndPaging(t *testing.T) {
	f := newFixture(t)
	p, err := f.activity.List(Filter{}, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for {
		for _, s := range p.Sessions {
			tokens = append(tokens, s.Token)
		}
		if p.Next == "" {
			break
		}
		if p, err = f.activity.List(Filter{}, p.Next, 2); err != nil {
			t.Fatal(err)
		}
	}
	// Newest first by file time; the fixture files all share one time, so
	// compare as a set: the subagent, unbound, damaged and non-zstd ones are gone.
	want := map[string]bool{"codex:c1": true, "codex:c0": true, "codex:big": true, "claude:cl1": true, "dsh:d1": true}
	if len(tokens) != len(want) {
		t.Fatalf("tokens %v", tokens)
	}
	for _, tk := range tokens {
		if !want[tk] {
			t.Fatalf("unexpected %s in %v", tk, tokens)
		}
	}
	all, _ := f.activity.List(Filter{}, "", 100)
	for _, s := range all.Sessions {
		switch s.Token {
		case "codex:c1":
			if s.Title != "Retry budget work" || !strings.Contains(s.File, "/sessions/") || s.Project != "api" {
				t.Fatalf("c1: %+v", s)
			}
		case "claude:cl1":
			if s.Title != "Guard rules for SQL" {
				t.Fatalf("cl1: %+v", s)
			}
		case "dsh:d1":
			if s.Title != "DSH: migrations" {
				t.Fatalf("d1: %+v", s)
			}
		}
	}
	if p, _ := f.activity.List(Filter{Project: "web"}, "", 20); p.Total != 0 {
		t.Fatalf("web: %+v", p)
	}
	if p, _ := f.activity.List(Filter{Workspace: "/not/bound"}, "", 20); p.Total != 0 || len(p.Sessions) != 0 {
		t.Fatalf("unbound workspace filter: %+v", p)
	}
	if _, err := f.activity.List(Filter{}, "", 101); err == nil {
		t.Fatal("limit 101 accepted")
	}
	if _, err := f.activity.List(Filter{}, "garbage", 20); err == nil {
		t.Fatal("bad cursor accepted")
	}
}

func TestCodexSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.activity.Open(context.Background(), "codex:c1", f.runs, 1, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Requests) != 3 || s.Requests[0].Text != "Fix the sync retry budget" || s.Requests[1].Text != "Now the error codes" {
		t.Fatalf("requests: %+v", s.Requests)
	}
	r1 := s.Requests[0]
	if len(r1.Activations) != 2 {
		t.Fatalf("activations of request 1 (load, other server and the orphan result must not count): %+v", r1.Activations)
	}
	a := r1.Activations[0]
	if a.Query != "sync retry budget backoff" || a.Status != "ok" || a.Run != "joined" || a.TotalUS == nil || a.RunID != f.runOK {
		t.Fatalf("first activation: %+v", a)
	}
	if fr := a.Fragments[0]; fr.From != "run" || !strings.Contains(fr.Content, "backoff from 1 s") {
		t.Fatalf("a cut preview must be filled from the run: %+v", fr)
	}
	b := r1.Activations[1]
	if b.Query != "retry budget" || !b.HadState || b.Run != "other project" || b.TotalUS != nil || b.Fragments[0].Action != "reuse" {
		t.Fatalf("a run of another project must not join: %+v", b)
	}
	r2 := s.Requests[1]
	if len(r2.Activations) != 3 || r2.Activations[0].Query != "error codes" || r2.Activations[0].Fragments[0].Content != "Codes are stable." {
		t.Fatalf("legacy activate: %+v", r2.Activations)
	}
	if e := r2.Activations[1]; e.Status != "error" || !strings.Contains(e.Error, "search_model_preparing") {
		t.Fatalf("error: %+v", e)
	}
	if p := r2.Activations[2]; p.Status != "pending" || p.Query != "never answered" {
		t.Fatalf("pending: %+v", p)
	}
	if len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "not JSON") {
		t.Fatalf("problems: %v", s.Problems)
	}
	// Paging requests.
	p1, _ := f.activity.Open(context.Background(), "codex:c1", f.runs, 1, 2)
	p2, _ := f.activity.Open(context.Background(), "codex:c1", f.runs, 2, 2)
	if len(p1.Requests) != 2 || p1.Next != 2 || len(p2.Requests) != 1 || p2.Next != 0 || p2.Total != 3 {
		t.Fatalf("pages: %d/%d %d/%d", len(p1.Requests), p1.Next, len(p2.Requests), p2.Next)
	}
}

func TestOldLogsJoinOnlyAUniqueRun(t *testing.T) {
	f := newFixture(t)
	s, err := f.activity.Open(context.Background(), "codex:c0", f.runs, 1, 20)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Requests[0].Activations[0]
	if s.Requests[0].Text != "an old legacy prompt" || a.Run != "joined" || a.RunID != f.runOld {
		t.Fatalf("legacy log: %+v", s.Requests)
	}
}

func TestClaudeSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.activity.Open(context.Background(), "claude:cl1", f.runs, 1, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Requests) != 1 || s.Requests[0].Text != "Why do we forbid SELECT *?" {
		t.Fatalf("prompts (meta, slash-command echo, sidechain, interruption excluded): %+v", s.Requests)
	}
	acts := s.Requests[0].Activations
	if len(acts) != 2 || acts[0].Query != "SELECT star rule" || acts[0].Run != "joined" || acts[1].Status != "error" || !strings.Contains(acts[1].Error, "invalid_activation_state") {
		t.Fatalf("activations: %+v", acts)
	}
}

func TestDSHSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.activity.Open(context.Background(), "dsh:d1", f.runs, 1, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Partial || len(s.Requests) != 1 || s.Requests[0].Text != "How do I add a migration?" {
		t.Fatalf("dsh: partial=%v %+v", s.Partial, s.Requests)
	}
	acts := s.Requests[0].Activations
	if len(acts) != 1 || acts[0].Query != "add a migration" || acts[0].Fragments[0].Path != "howto/add-a-migration.md" || acts[0].Run != "missing" {
		t.Fatalf("dsh activations (store is not an activation): %+v", acts)
	}
}

func TestHugeLogIsAnErrorNotACrash(t *testing.T) {
	f := newFixture(t)
	_, err := f.activity.Open(context.Background(), "codex:big", f.runs, 1, 20)
	if err == nil || !strings.Contains(err.Error(), "up to 256 MiB") {
		t.Fatalf("%v", err)
	}
	if _, err := f.activity.Open(context.Background(), "codex:nope", f.runs, 1, 20); err == nil {
		t.Fatal("unknown session opened")
	}
}
