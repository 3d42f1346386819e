package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/golden"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

// A note that cites code, in a vault bound to a code repository, both real
// git: while the code holds, nothing is marked; once the cited function is
// renamed, lore stale lists the note with the commit and the edit (exit 1),
// activate's JSON and text and the prompt hook carry the finding, and
// nothing in the vault was changed or committed.
func TestStale_MarkedEverywhereWithTheCommit(t *testing.T) {
	h := newHookEnv(t)
	testvault.Write(t, h.vault, "notes/retry.md", "---\nid: mem_retry\n---\n# Sync retries\n\n"+
		"## Backoff cap\n\nThe retry backoff lives in `sync/retry.go`: `backoffFor` caps the wait at five minutes.\n\n"+
		"## Retry budget\n\nA sync gives up after the retry budget of ten tries; the backoff cap is unrelated.\n")
	testvault.Git(t, h.vault, "add", "-A")
	testvault.Git(t, h.vault, "commit", "-qm", "retry note")
	retry := "package sync\n\n// backoffFor is the wait before retry n.\nfunc backoffFor(n int) int { return min(1<<n, 300) }\n"
	// The code had backoffFor before the note was written (the vault's
	// commit is now) and loses it after: dated commits, not the clock's
	// second.
	testvault.Write(t, h.code, "sync/retry.go", retry)
	testvault.Git(t, h.code, "add", "-A")
	testvault.GitAt(t, h.code, "2020-01-02", "commit", "-qm", "retries")
	vaultHead := testvault.Git(t, h.vault, "rev-parse", "HEAD")

	lore := func(args ...string) (string, bool) {
		t.Helper()
		return loreInEnv(t, h.code, h.config, []string{"LORE_NO_SERVER=1"}, args...)
	}
	if out, ok := lore("stale"); !ok || !strings.Contains(out, "1 cite code; broken citations: 0") {
		t.Fatalf("nothing moved: %v\n%s", ok, out)
	}
	if out, _ := lore("activate", "retry backoff cap", "--json"); strings.Contains(out, `"stale"`) {
		t.Fatalf("nothing moved, yet activate marks:\n%s", out)
	}

	testvault.Write(t, h.code, "sync/retry.go", strings.ReplaceAll(retry, "backoffFor", "delayFor"))
	testvault.GitAt(t, h.code, "2099-01-02", "commit", "-qam", "rename backoffFor")
	commit := strings.TrimSpace(testvault.Git(t, h.code, "rev-parse", "--short=7", "HEAD"))
	day := strings.TrimSpace(testvault.Git(t, h.code, "log", "-1", "--format=%ad", "--date=short"))
	sentence := "cites `backoffFor` in sync/retry.go, removed in " + commit + " on " + day + " by t"

	out, ok := lore("stale")
	if ok || !strings.Contains(out, "notes/retry.md:8 › Sync retries › Backoff cap\n  "+sentence+"\n  edit: `backoffFor` is no longer in sync/retry.go") {
		t.Fatalf("lore stale (exit 0: %v):\n%q\nwant %q", ok, out, sentence)
	}
	if doc, _ := lore("doctor"); !strings.Contains(doc, "stale:      1 note cites code that changed (lore stale lists each") {
		t.Errorf("lore doctor does not name the stale note:\n%s", doc)
	}
	out, _ = lore("stale", "--json")
	var rep struct {
		Broken   int `json:"broken"`
		Findings []struct {
			Note, Cites, Problem, Commit, Edit string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Broken != 1 || len(rep.Findings) != 1 ||
		rep.Findings[0].Note != "notes/retry.md" || rep.Findings[0].Problem != "identifier_removed" || !strings.HasPrefix(rep.Findings[0].Commit, commit) {
		t.Fatalf("lore stale --json: %v\n%s", err, out)
	}

	out, _ = lore("activate", "retry backoff cap", "--json")
	var act struct {
		Fragments []struct {
			HeadingPath []string `json:"heading_path"`
			Stale       []struct{ Cites, Problem string }
		}
	}
	if err := json.Unmarshal([]byte(out), &act); err != nil || len(act.Fragments) == 0 {
		t.Fatalf("activate: %v\n%s", err, out)
	}
	for _, f := range act.Fragments {
		cap := f.HeadingPath[len(f.HeadingPath)-1] == "Backoff cap"
		if cap != (len(f.Stale) == 1) || cap && (f.Stale[0].Cites != "backoffFor" || f.Stale[0].Problem != "identifier_removed") {
			t.Errorf("fragment %v: stale %+v", f.HeadingPath, f.Stale)
		}
	}

	// activate's text says it under the fragment's header.
	text, _ := lore("activate", "retry backoff cap")
	text = regexp.MustCompile(`run_[0-9a-z]+`).ReplaceAllString(text, "run_ID")
	text = regexp.MustCompile(`las2\.\S+`).ReplaceAllString(text, "las2.STATE")
	golden.Check(t, "activate-stale.txt", strings.ReplaceAll(strings.ReplaceAll(text, commit, "COMMIT"), day, "DAY"))

	// The prompt hook says it under the fragment's header, with its mark.
	hk, ok := h.run("prompt", "claude", map[string]any{"session_id": "s-stale", "hook_event_name": "UserPromptSubmit", "prompt": "what is the retry backoff cap?"})
	if !ok {
		t.Fatalf("hook: %s", hk)
	}
	got := regexp.MustCompile(`run_[0-9a-z]+`).ReplaceAllString(hk, "run_ID")
	if m := regexp.MustCompile(`lore's own lines start with ([0-9a-f]{6})`).FindStringSubmatch(got); m != nil {
		got = strings.ReplaceAll(got, m[1], "MARK")
	}
	got = strings.ReplaceAll(strings.ReplaceAll(got, commit, "COMMIT"), day, "DAY")
	golden.Check(t, filepath.Join("hook", "claude-prompt-stale.json"), got)

	// A warm server marks too, for the workspace the request names (and
	// guesses none when it names none).
	startWarm(t, h.vault, append(testGitEnv, "LORE_VAULT="+h.vault, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1", "XDG_CONFIG_HOME="+h.config)...)
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	b := vault.Binding{Vault: h.vault, Project: "api"}
	for _, ws := range []string{h.code, ""} {
		reply, err := askWarm(context.Background(), e, b, warm.ActivatePath, warm.Request{Query: "retry backoff cap", Project: "api", Workspace: ws})
		if err != nil || reply.Activation == nil || len(reply.Activation.Fragments) == 0 {
			t.Fatalf("warm activate (workspace %q): %v", ws, err)
		}
		marked := 0
		for _, f := range reply.Activation.Fragments {
			marked += len(f.Stale)
		}
		if (ws != "") != (marked == 1) {
			t.Errorf("warm activate for workspace %q marked %d findings", ws, marked)
		}
	}

	// Marking is not editing.
	if st := testvault.Git(t, h.vault, "status", "--porcelain"); st != "" {
		t.Errorf("the vault's work tree changed:\n%s", st)
	}
	if head := testvault.Git(t, h.vault, "rev-parse", "HEAD"); head != vaultHead {
		t.Errorf("the vault got a commit: %s", head)
	}
}

// lore stale --propose: each renamed path's citation gets a Draft that
// points it at the new name, to review; the note in the vault is as it was.
func TestStale_ProposeMakesADraftForARename(t *testing.T) {
	h := newHookEnv(t)
	testvault.Write(t, h.vault, "notes/queue.md", "---\nid: mem_queue\n---\n# Queue\n\nFailed syncs wait in `sync/queue.go`.\n")
	testvault.Git(t, h.vault, "add", "-A")
	testvault.Git(t, h.vault, "commit", "-qm", "queue note")
	testvault.Write(t, h.code, "sync/queue.go", "package sync\n\nfunc enqueue() {}\n")
	testvault.Git(t, h.code, "add", "-A")
	testvault.GitAt(t, h.code, "2020-01-02", "commit", "-qm", "queue")
	testvault.Git(t, h.code, "mv", "sync/queue.go", "sync/jobs.go")
	testvault.GitAt(t, h.code, "2099-01-02", "commit", "-qm", "move the queue")
	lore := func(args ...string) (string, bool) {
		t.Helper()
		return loreInEnv(t, h.code, h.config, []string{"LORE_NO_SERVER=1"}, args...)
	}
	out, _ := lore("stale", "--propose")
	id := regexp.MustCompile(`proposed (drf_\S+) for notes/queue\.md: Point sync/queue\.go at sync/jobs\.go`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("lore stale --propose:\n%s", out)
	}
	diff, ok := lore("drafts", "diff", id[1])
	if !ok || !strings.Contains(diff, "-Failed syncs wait in `sync/queue.go`.") || !strings.Contains(diff, "+Failed syncs wait in `sync/jobs.go`.") {
		t.Fatalf("the Draft's diff:\n%s", diff)
	}
	if st := testvault.Git(t, h.vault, "status", "--porcelain"); st != "" {
		t.Errorf("the vault's work tree changed:\n%s", st)
	}
}
