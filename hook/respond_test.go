package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// realBackend is what lore hook wires, without a warm server: the vault's
// own index, opened per call, with the real retrieval pipeline and guard.
type realBackend struct {
	b vault.Binding
	// slow, when set, holds every call until the context ends (a disk that
	// stalls).
	slow bool
	// panics, when set, makes Activate panic (a bug in the pipeline).
	panics bool
	// rulesFail, when set, is what Rules fails with; rulesPanic makes it
	// panic instead (an unreadable index, a bug in the guard).
	rulesFail  error
	rulesPanic bool
}

func (rb *realBackend) Binding(string) (vault.Binding, error) { return rb.b, nil }

func (rb *realBackend) open(ctx context.Context) (*retrieve.Memory, func(), error) {
	if rb.slow {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
	v, err := vault.Open(rb.b.Vault)
	if err != nil {
		return nil, nil, err
	}
	m, err := retrieve.Open(ctx, v)
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	return m, func() { m.Close(); v.Close() }, nil
}

func (rb *realBackend) Activate(ctx context.Context, b vault.Binding, req vault.ActivateRequest) (*vault.Activation, error) {
	if rb.panics {
		panic("index out of range in the pipeline")
	}
	m, done, err := rb.open(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	return m.Activate(ctx, req)
}

func (rb *realBackend) Loadout(ctx context.Context, b vault.Binding) (string, error) {
	m, done, err := rb.open(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	return guard.LoadoutFrom(ctx, m, b.Project, nil)
}

func (rb *realBackend) Rules(ctx context.Context, b vault.Binding) (*guard.RuleSet, error) {
	if rb.rulesPanic {
		panic("nil map in the guard")
	}
	if rb.rulesFail != nil {
		return nil, rb.rulesFail
	}
	m, done, err := rb.open(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	src, notes, err := guard.Sources(ctx, m, b.Project)
	if err != nil {
		return nil, err
	}
	rs := guard.Compile(src, b.Project)
	rs.Notes = notes
	return rs, nil
}

// fixture is a vault (a release note, ADR-015's rule) and a code
// repository bound to it as project api.
type fixture struct {
	t           *testing.T
	vault, code string
	backend     *realBackend
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t}
	f.vault = testvault.Committed(t, map[string]string{
		"lore.yaml":            "embedding: {provider: none}\nprojects: {api: {}}\n",
		"howto/release.md":     "---\nid: mem_release\ntitle: How to release a new version\n---\n# How to release a new version\n\n## Before the release\n\nRun make test and update the changelog before you tag the release.\n\n## Cutting the release\n\nTag the release and push the tag; CI builds the binaries.\n",
		"decisions/adr-015.md": "---\nid: mem_adr15\nguard:\n  - id: ADR-015-no-select-star\n    deny: \"SELECT \\\\* FROM\"\n    message: name the columns\n---\n# ADR 015: no SELECT *\n\nQueries name their columns.\n",
	})
	f.code = testvault.Committed(t, map[string]string{"main.go": "package main\n"})
	f.backend = &realBackend{b: vault.Binding{Vault: f.vault, Project: "api", Workspace: f.code}}
	return f
}

// respond answers event with the client's JSON, the cwd the code folder.
func (f *fixture) respond(event string, input map[string]any) ([]byte, *Responder, error) {
	f.t.Helper()
	in := map[string]any{"cwd": f.code, "session_id": "s1", "hook_event_name": event}
	for k, v := range input {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	h := &Responder{Event: event, Client: "claude", Start: time.Now(), Backend: f.backend, UserLogDir: f.t.TempDir()}
	out, err := h.Respond(context.Background(), strings.NewReader(string(data)))
	return out, h, err
}

// hooksLog is the vault's hooks.log ("" when there is none).
func (f *fixture) hooksLog() string {
	f.t.Helper()
	v, err := vault.Open(f.vault)
	if err != nil {
		f.t.Fatal(err)
	}
	defer v.Close()
	data, _ := os.ReadFile(filepath.Join(v.DataDir(), LogFile))
	return string(data)
}

// additional is the additionalContext of an answer ("" for none).
func additional(t *testing.T, out []byte) string {
	t.Helper()
	if len(out) == 0 {
		return ""
	}
	var o struct {
		H struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("not the clients' JSON: %v\n%s", err, out)
	}
	return o.H.Context
}

// denial is a pre-tool answer's refusal ("" when the call goes on).
func denial(t *testing.T, out []byte) string {
	t.Helper()
	if len(out) == 0 {
		return ""
	}
	var o struct {
		H struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("not the clients' JSON: %v\n%s", err, out)
	}
	if o.H.Decision != "deny" {
		t.Fatalf("an answer that is not a refusal: %s", out)
	}
	return o.H.Reason
}

// A prompt about the vault gets its reviewed memory within the budget,
// framed as lore's; the same prompt again gets nothing new; a slash
// command, an empty prompt and an unrelated one get nothing.
func TestRespond_PromptGetsRelevantMemoryOnce(t *testing.T) {
	f := newFixture(t)
	out, _, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if err != nil {
		t.Fatal(err)
	}
	text := additional(t, out)
	if !strings.HasPrefix(text, "lore: reviewed project memory") || !strings.Contains(text, "update the changelog before you tag") {
		t.Fatalf("the prompt's memory:\n%s", text)
	}
	if Tokens(text, "run_000000000000000000000000") > 600 {
		t.Errorf("over the default budget of 600 tokens: %d", Tokens(text, "run_000000000000000000000000"))
	}
	again, _, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if err != nil || strings.Contains(additional(t, again), "update the changelog") {
		t.Errorf("the same session got the same section twice: %s %v", again, err)
	}
	for _, p := range []string{"/compact", "   ", "fix the typo in the README"} {
		out, _, err := f.respond(UserPromptSubmit, map[string]any{"prompt": p, "session_id": "other"})
		if err != nil || len(out) != 0 {
			t.Errorf("prompt %q got %s (%v), want nothing", p, out, err)
		}
	}
}

// The budget counts the whole text: a budget that holds the lead and the
// first fragment's header and text but not the second's (the answer is 156
// tokens at the default budget) gets the first alone,
// and one too small for any fragment gets nothing and leaves the session's
// state as it was.
func TestRespond_PromptBudgetBoundsTheWholeText(t *testing.T) {
	f := newFixture(t)
	testvault.Write(t, f.vault, "lore.yaml", "embedding: {provider: none}\nprojects: {api: {}}\nhooks: {prompt_budget: 20}\n")
	out, h, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if err != nil || len(out) != 0 {
		t.Fatalf("a budget no fragment fits got %s (%v)", out, err)
	}
	if st := h.sessions().State("s1"); st != "" {
		t.Errorf("nothing was given, yet the session's state moved: %q", st)
	}
	testvault.Write(t, f.vault, "lore.yaml", "embedding: {provider: none}\nprojects: {api: {}}\nhooks: {prompt_budget: 120}\n")
	out, _, err = f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	text := additional(t, out)
	if err != nil || !strings.Contains(text, "update the changelog") || strings.Contains(text, "Cutting the release") {
		t.Fatalf("a budget the first fragment fits: %v\n%s", err, text)
	}
	if n := Tokens(text, "run_000000000000000000000000"); n > 120 {
		t.Errorf("the whole text is %d tokens, over the budget of 120:\n%s", n, text)
	}
}

// Session start gives the loadout and the memory tool's name with the
// session's handle; a resume gives none of it (the client kept it); a
// clear forgets what the prompts were given.
func TestRespond_SessionStart(t *testing.T) {
	f := newFixture(t)
	out, _, err := f.respond(SessionStart, map[string]any{"source": "startup"})
	text := additional(t, out)
	if err != nil || !strings.Contains(text, "mcp__lore__memory") || !strings.Contains(text, "hs1.") || !strings.Contains(text, "ADR-015") {
		t.Fatalf("startup: %v\n%s", err, text)
	}
	out, _, err = f.respond(SessionStart, map[string]any{"source": "resume"})
	if err != nil || additional(t, out) != "" {
		t.Errorf("resume sent a second loadout: %s %v", out, err)
	}
	if _, _, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.respond(SessionStart, map[string]any{"source": "clear"}); err != nil {
		t.Fatal(err)
	}
	out, _, err = f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if err != nil || !strings.Contains(additional(t, out), "update the changelog") {
		t.Errorf("after a clear the section was not sent again: %s %v", out, err)
	}
}

// Before a shell command: a commit of a change an error rule refuses is
// denied with the rule; the same commit of a clean change, a command that
// commits nothing and another tool go on; a commit lore cannot read is
// refused as unchecked.
func TestRespond_PreToolChecksCommits(t *testing.T) {
	f := newFixture(t)
	testvault.Write(t, f.code, "db.go", "package main\n\nconst q = \"SELECT * FROM users\"\n")
	testvault.Git(t, f.code, "add", "db.go")
	bash := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}
	}
	out, _, err := f.respond(PreToolUse, bash(`git commit -m "users query"`))
	if reason := denial(t, out); err != nil || !strings.Contains(reason, "ADR-015-no-select-star") || !strings.HasPrefix(reason, GuardLead) {
		t.Fatalf("a commit the rule refuses: %v\n%s", err, out)
	}
	out, _, _ = f.respond(PreToolUse, bash(`cd sub && eval "git commit -m x"`))
	if reason := denial(t, out); !strings.Contains(reason, "unchecked") {
		t.Errorf("a commit through eval was not refused as unchecked:\n%s", out)
	}
	for _, in := range []map[string]any{bash("go test ./..."), {"tool_name": "Edit", "tool_input": map[string]any{}}} {
		if out, _, err := f.respond(PreToolUse, in); err != nil || len(out) != 0 {
			t.Errorf("%v got %s (%v), want nothing", in, out, err)
		}
	}
	testvault.Write(t, f.code, "db.go", "package main\n\nconst q = \"SELECT id, name FROM users\"\n")
	testvault.Git(t, f.code, "add", "db.go")
	if out, _, err := f.respond(PreToolUse, bash(`git commit -m "users query"`)); err != nil || len(out) != 0 {
		t.Errorf("a clean commit got %s (%v)", out, err)
	}
}

// Past hooks.deadline_ms a prompt gets nothing, and Respond returns the
// failure, which Log (as lore hook calls it) writes to the vault's
// hooks.log; a commit the check could not finish on is refused, not let
// through, and Respond logs that refusal itself.
func TestRespond_PastTheDeadline(t *testing.T) {
	f := newFixture(t)
	testvault.Write(t, f.vault, "lore.yaml", "embedding: {provider: none}\nprojects: {api: {}}\nhooks: {deadline_ms: 300}\n")
	f.backend.slow = true
	out, h, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if len(out) != 0 || err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("a stalled prompt: %s %v", out, err)
	}
	h.Log(err)
	if logged := f.hooksLog(); !strings.Contains(logged, "claude UserPromptSubmit session s1: past the deadline") {
		t.Errorf("hooks.log: %q", logged)
	}
	out, _, _ = f.respond(PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -am wip"}})
	if reason := denial(t, out); !strings.Contains(reason, "could not check it within hooks.deadline_ms") {
		t.Errorf("a commit past the deadline:\n%s", out)
	}
	if logged := f.hooksLog(); !strings.Contains(logged, "claude PreToolUse session s1: past the deadline of 300ms (hooks.deadline_ms): the commit was refused unchecked") {
		t.Errorf("the refused commit is not in hooks.log: %q", logged)
	}
}

// With no vault known, a failure goes to the user's log, and the log stays
// bounded: past its size the older half goes.
func TestRespond_LogIsBounded(t *testing.T) {
	dir := t.TempDir()
	h := &Responder{Event: UserPromptSubmit, Client: "codex", UserLogDir: dir}
	old := strings.Repeat("2026-11-20T10:00:00Z claude UserPromptSubmit session a: old\n", maxLog/60+10)
	if err := os.WriteFile(filepath.Join(dir, LogFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Log(errors.New("no binding\nfor this folder"))
	data, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxLog || len(data) < maxLog/3 {
		t.Errorf("log of %d bytes after trimming, want about half of %d", len(data), maxLog)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "codex UserPromptSubmit session -: no binding for this folder") {
		t.Errorf("last line %q", last)
	}
	if !strings.HasPrefix(lines[0], "2026-11-20T10:00:00Z") {
		t.Errorf("the trim left half a line: %q", lines[0])
	}
}

// A bug that panics while a prompt is answered is the hook's error, which
// lore hook logs: the prompt gets nothing and the process goes on.
func TestRespond_APanicIsTheHooksError(t *testing.T) {
	f := newFixture(t)
	f.backend.panics = true
	out, _, err := f.respond(UserPromptSubmit, map[string]any{"prompt": "what must I do before I tag the release?"})
	if err == nil || !strings.Contains(err.Error(), "a bug in lore: index out of range in the pipeline") || len(out) != 0 {
		t.Fatalf("a panicking activate: out %q, err %v", out, err)
	}
}

// Attack: a commit the check fails on (the rules cannot be read, the guard
// panics, git cannot say what would be committed) is refused, as one past
// the deadline is: an agent that breaks the index, or a bug, must not make
// the check let every commit through. The failure is in hooks.log; a shell
// command that commits nothing still goes on.
func TestRespond_ACommitTheCheckFailsOnIsRefused(t *testing.T) {
	commit := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -am wip"}}
	for _, c := range []struct {
		name   string
		breaks func(*fixture)
		want   string
	}{
		{"rules unreadable", func(f *fixture) { f.backend.rulesFail = errors.New("index.db: file is not a database") }, "index.db: file is not a database"},
		{"the guard panics", func(f *fixture) { f.backend.rulesPanic = true }, "a bug in lore: nil map in the guard"},
		{"git fails", func(f *fixture) {
			if err := os.RemoveAll(filepath.Join(f.code, ".git", "objects")); err != nil {
				t.Fatal(err)
			}
			testvault.Write(t, f.code, ".git/HEAD", "ref: refs/heads/main\n")
		}, "could not check"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.breaks(f)
			out, _, err := f.respond(PreToolUse, commit)
			if err != nil {
				t.Fatalf("the failure was the hook's error, and the commit would go through: %v", err)
			}
			reason := denial(t, out)
			if !strings.Contains(reason, "could not check") || !strings.Contains(reason, c.want) {
				t.Fatalf("a commit the check failed on:\n%s", out)
			}
			if logged := f.hooksLog(); !strings.Contains(logged, "the commit was refused unchecked") {
				t.Errorf("the refusal is not in hooks.log: %q", logged)
			}
			out, _, err = f.respond(PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}})
			if len(out) != 0 || err != nil {
				t.Errorf("a command that commits nothing: %s %v", out, err)
			}
		})
	}
}

// The first commit of a new repository is checked as any other: with no
// HEAD yet, a rule's violation is refused with the rule's message, and a
// clean first commit goes through.
func TestRespond_TheFirstCommitOfANewRepositoryIsChecked(t *testing.T) {
	f := newFixture(t)
	f.code = t.TempDir()
	f.backend.b.Workspace = f.code
	testvault.Git(t, f.code, "init", "-q", "-b", "main")
	testvault.Write(t, f.code, "q.sql", "SELECT * FROM users\n")
	for _, cmd := range []string{"git add q.sql && git commit -m first", "git commit -am first"} {
		testvault.Git(t, f.code, "add", "q.sql")
		out, _, err := f.respond(PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
		if reason := denial(t, out); err != nil || !strings.Contains(reason, "ADR-015-no-select-star") {
			t.Errorf("%s: %q %v, want the rule's refusal", cmd, reason, err)
		}
	}
	testvault.Write(t, f.code, "q.sql", "SELECT id FROM users\n")
	out, _, err := f.respond(PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git add q.sql && git commit -m first"}})
	if len(out) != 0 || err != nil {
		t.Errorf("a clean first commit: %s %v", out, err)
	}
}

// A commit is refused, not let through, when the vault's lore.yaml cannot
// be read, and the refusal is logged where a hook logs without a vault
// (the user's folder): lore could not know the rules to check it by.
func TestRespond_ACommitIsRefusedWhenLoreYamlIsUnreadable(t *testing.T) {
	f := newFixture(t)
	testvault.Write(t, f.vault, "lore.yaml", "projects: [not, a, map\n")
	out, h, err := f.respond(PreToolUse, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -am wip"}})
	if reason := denial(t, out); err != nil || !strings.Contains(reason, "could not read the workspace's binding or the vault's lore.yaml") {
		t.Fatalf("a commit with lore.yaml broken: %q %v", reason, err)
	}
	logged, _ := os.ReadFile(filepath.Join(h.UserLogDir, LogFile))
	if !strings.Contains(string(logged), "the commit was refused unchecked") {
		t.Errorf("the refusal is not logged: %q", logged)
	}
}
