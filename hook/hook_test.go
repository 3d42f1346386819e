package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/vault"
)

// Each client's documented input for each event decodes, its unknown
// fields ignored (a description and a timeout in tool_input, agent_type,
// turn_id, a null transcript_path).
func TestReadInput_EveryClientAndEvent(t *testing.T) {
	for _, c := range []struct {
		file, event, session, prompt, command, source string
	}{
		{"claude/session-start.json", SessionStart, "abc123", "", "", "startup"},
		{"claude/prompt.json", UserPromptSubmit, "abc123", "how do we ship a new release?", "", ""},
		{"claude/pre-tool.json", PreToolUse, "abc123", "", `git add -A && git commit -m "add the query"`, ""},
		{"codex/session-start.json", SessionStart, "0193a6f2-7c1e-7d20-9a41-5e2b6c7d8e9f", "", "", "resume"},
		{"codex/prompt.json", UserPromptSubmit, "0193a6f2-7c1e-7d20-9a41-5e2b6c7d8e9f", "how do we ship a new release?", "", ""},
		{"codex/pre-tool.json", PreToolUse, "0193a6f2-7c1e-7d20-9a41-5e2b6c7d8e9f", "", "git -C api commit -am 'fix'", ""},
	} {
		f, err := os.Open(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		in, err := ReadInput(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if in.Event != c.event || in.SessionID != c.session || in.Prompt != c.prompt || in.ToolInput.Command != c.command || in.Source != c.source || in.Cwd != "/work/code" {
			t.Errorf("%s: %+v", c.file, in)
		}
	}
	for _, bad := range []string{"", "not json", `{"session_id": 7}`} {
		if _, err := ReadInput(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadInput(%q) accepted it", bad)
		}
	}
	if in, err := ReadInput(strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":"a string"}`)); err != nil || in.ToolInput.Command != "" {
		t.Errorf("another tool's input: %+v %v", in, err)
	}
}

// The outputs are the shapes both clients read.
func TestOutputs(t *testing.T) {
	var ctx struct {
		H struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(Context(UserPromptSubmit, "memo"), &ctx); err != nil || ctx.H.Event != UserPromptSubmit || ctx.H.Context != "memo" {
		t.Errorf("Context: %+v %v", ctx, err)
	}
	var deny struct {
		H struct {
			Event, Decision, Reason string
		} `json:"hookSpecificOutput"`
	}
	out := Deny("rule X")
	if err := json.Unmarshal(out, &deny); err != nil || !strings.Contains(string(out), `"permissionDecision":"deny"`) || !strings.Contains(string(out), `"permissionDecisionReason":"rule X"`) || !strings.Contains(string(out), `"hookEventName":"PreToolUse"`) {
		t.Errorf("Deny: %s %v", out, err)
	}
}

// The commits and pushes of a command line, as a shell runs it.
func TestGitCommands(t *testing.T) {
	for line, want := range map[string]string{
		`git commit -m "x"`:                                      "commit",
		`git add -A && git commit -am 'fix'`:                     "commit all",
		`cd api; GIT_AUTHOR_NAME=x git -C sub commit --all -m y`: "commit all sub",
		`(git commit -m "a && b")`:                               "commit",
		`echo "git commit -m x"`:                                 "",
		`git log --oneline | head`:                               "",
		`git -c user.name=x push origin HEAD:main`:               "push",
		`env FOO=1 git --no-pager commit -m ok`:                  "commit",
		`sudo -u me git commit -m ok`:                            "commit",
		`/usr/bin/git commit --amend --no-edit`:                  "commit",
		`git commit -m "$(cat msg)" && git push`:                 "commit push",
		`if [ -n "$x" ]; then git commit -m y; fi`:               "commit",
		`git commit -m 'unclosed`:                                "",
	} {
		var got []string
		for _, g := range GitCommands(line) {
			s := g.Verb
			if g.All {
				s += " all"
			}
			if g.Dir != "" {
				s += " " + g.Dir
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("GitCommands(%q) = %q, want %q", line, got, want)
		}
	}
	g := GitCommands("git push origin +feature:main other")[0]
	if remote, bs := g.PushedBranches(); remote != "origin" || strings.Join(bs, ",") != "main,other" {
		t.Errorf("PushedBranches: %s %v", remote, bs)
	}
	if _, bs := GitCommands("git push")[0].PushedBranches(); len(bs) != 1 || bs[0] != "" {
		t.Errorf("a bare push pushes the current branch: %v", bs)
	}
}

// A session's state is kept, forgotten after a clear, and at most
// MaxSessions are kept; a session id never names a path.
func TestSessions(t *testing.T) {
	s := Sessions{Dir: t.TempDir()}
	if s.State("a") != "" {
		t.Fatal("a new session has a state")
	}
	if err := s.Save("../../etc/passwd", "las2.x"); err != nil {
		t.Fatal(err)
	}
	if s.State("../../etc/passwd") != "las2.x" {
		t.Fatal("the state was not kept")
	}
	ents, _ := os.ReadDir(s.Dir)
	if len(ents) != 2 || ents[0].Name() != ".key" || strings.Contains(ents[1].Name(), "passwd") {
		t.Fatalf("files %v (want the key and one session)", ents)
	}
	s.Forget("../../etc/passwd")
	if s.State("../../etc/passwd") != "" {
		t.Fatal("Forget kept the state")
	}
	for i := 0; i < MaxSessions+10; i++ {
		s.Save(strings.Repeat("s", i+1), "x")
	}
	if ents, _ := os.ReadDir(s.Dir); len(ents) > MaxSessions+1 {
		t.Errorf("%d sessions kept", len(ents))
	}
}

// A prompt's text counts the same whatever its run id: ids are random, and
// counting the real one made the same prompt, vault and state deliver a
// different number of fragments from run to run. The fixed count is never
// below the real one, so the budget still bounds the text.
func TestTokens_RunIDCountsTheSameEveryTime(t *testing.T) {
	text := func(id string) string {
		return Memory(&vault.Activation{RunID: id, Fragments: []vault.Fragment{{Action: "add", Path: "a.md", HeadingPath: []string{"A"}, Content: "some text"}}}, nil)
	}
	ids := []string{"run_019ae1f0c0de0123456789ab", "run_aaaaaaaaaaaaaaaaaaaaaaaa", "run_000000000000000000000000", "run_a1b2c3d4e5f6a7b8c9d0e1f2"}
	want := Tokens(text(ids[0]), ids[0])
	for _, id := range ids {
		if got := Tokens(text(id), id); got != want {
			t.Errorf("%s counts %d, %s %d", id, got, ids[0], want)
		}
		if real := vault.EstimateTokens(text(id)); real > want {
			t.Errorf("%s: the real count %d is over the fixed one %d", id, real, want)
		}
	}
}

// Drafts waiting for review make one line for the person; none make none.
func TestWaiting(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	if w := Waiting(nil, now); w != "" {
		t.Errorf("no Drafts: %q", w)
	}
	got := Waiting([]time.Time{now.Add(-time.Hour), now.Add(-5*24*time.Hour - time.Hour), now.Add(-48 * time.Hour)}, now)
	if got != "lore: 3 Drafts wait for your review (oldest 5 days): lore drafts" {
		t.Errorf("got %q", got)
	}
	out := string(Start("", got))
	if strings.Contains(out, "additionalContext") || !strings.Contains(out, `"systemMessage"`) {
		t.Errorf("the person's line reaches the model's context: %s", out)
	}
}
