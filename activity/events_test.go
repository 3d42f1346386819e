package activity

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The record shapes Claude Code 2.1.328 and Codex 0.169.0 wrote in the
// real-client suite (e2e/clients.test.mjs): a session start, a prompt, the
// agent's activate whose result holds a Draft's fragment, a commit the
// guard refused, and a second session start (a resume) after the prompt.
// Activity marks the Draft as a Draft, shows the refusal as an event of its
// request, and files the second session start under an entry of its own.
func TestSessionEvents_DraftsRefusalsAndResumes(t *testing.T) {
	const draftResult = `{"next_state":"hs1.x","fragments":[{"action":"reuse","scope":"org","path":"howto/release.md","heading_path":["Release"],"unit_key":"mem_1/release/0/0","resource_id":"mem_1","content_hash":"sha256:0","kind":"memory"},{"action":"add","scope":"draft","draft_id":"drf_01K","path":"howto/ship.md","heading_path":["Ship"],"content":"draft text","unit_key":"mem_2/ship/0/0","resource_id":"mem_2","content_hash":"sha256:1","kind":"memory"}],"removed":[],"index_revision":"search_1","profile":"agent_activation.v2","run_id":"run_1"}`
	const reason = "lore guard: the project's rules in memory refuse this commit:\n\n- [no-fmt-println-in-mcp] error mcp/log.go:5"
	start := "lore: this project's reviewed memory (vault v, project api).\n\n# Context Loadout: api"
	home := t.TempDir()
	homes := Homes{"claude": filepath.Join(home, "claude"), "codex": filepath.Join(home, "codex"), "dsh": filepath.Join(home, "dsh")}
	claudeRec := func(typ, rest string) string {
		return `{"type":"` + typ + `","sessionId":"cs","cwd":"/work/code","timestamp":"2026-12-06T10:00:00Z",` + rest + `}`
	}
	writeLines(t, filepath.Join(homes["claude"], "projects/-work-code/cs.jsonl"), []byte(strings.Join([]string{
		`{"type":"queue-operation","operation":"enqueue","sessionId":"cs","timestamp":"2026-12-06T10:00:00Z"}`,
		claudeRec("attachment", `"attachment":{"type":"hook_additional_context","hookEvent":"SessionStart","content":[`+q(start)+`]}`),
		claudeRec("user", `"message":{"role":"user","content":"how do we ship?"}`),
		claudeRec("assistant", `"message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__lore__memory","input":{"op":{"activate":{"query":"ship","state":"hs1.x"}}}}]}`),
		claudeRec("user", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":`+q(draftResult)+`}]}]}`),
		claudeRec("assistant", `"message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git add -A && git commit -m x"}}]}`),
		claudeRec("user", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":`+q("PreToolUse:Bash hook error: "+reason)+`}]}`),
		claudeRec("attachment", `"attachment":{"type":"hook_additional_context","hookEvent":"SessionStart","content":[`+q(start)+`]}`),
	}, "\n")+"\n"))
	codexRec := func(typ, payload string) string {
		return `{"timestamp":"2026-12-06T10:00:00Z","type":"` + typ + `","payload":` + payload + `}`
	}
	writeLines(t, filepath.Join(homes["codex"], "sessions/2026/12/06/rollout-2026-12-06T10-00-00-cx.jsonl"), []byte(strings.Join([]string{
		codexRec("session_meta", `{"id":"cx","cwd":"/work/code","timestamp":"2026-12-06T10:00:00Z"}`),
		codexRec("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":`+q(start)+`}]}`),
		codexRec("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"how do we ship?"}]}`),
		codexRec("event_msg", `{"type":"item_completed","item":{"type":"McpToolCall","id":"c1","server":"lore","tool":"memory","arguments":{"op":{"activate":{"query":"ship"}}},"result":{"content":[{"type":"text","text":"x"}],"structuredContent":`+draftResult+`}}}`),
		codexRec("response_item", `{"type":"function_call","name":"exec_command","arguments":`+q(`{"cmd":"git add -A && git commit -m x"}`)+`,"call_id":"c2"}`),
		codexRec("response_item", `{"type":"function_call_output","call_id":"c2","output":`+q("Command blocked by PreToolUse hook: "+reason)+`}`),
		codexRec("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":`+q(start)+`}]}`),
	}, "\n")+"\n"))
	a := New(homes, []Workspace{{Root: "/work/code", Project: "api"}})
	runs := NewIndexRuns(nil)
	defer runs.Close()
	for _, token := range []string{"claude:cs", "codex:cx"} {
		s, err := a.Open(context.Background(), token, runs, 1, 20)
		if err != nil {
			t.Fatalf("%s: %v", token, err)
		}
		if len(s.Requests) != 3 || s.Requests[1].Text != "how do we ship?" || s.Requests[2].Text != "" {
			t.Fatalf("%s: requests %+v, want the loadout, the prompt, and the second session start apart", token, s.Requests)
		}
		if acts := s.Requests[2].Activations; len(acts) != 1 || acts[0].Event != "SessionStart" {
			t.Errorf("%s: the second session start is filed as %+v", token, acts)
		}
		acts := s.Requests[1].Activations
		if len(acts) != 1 || len(acts[0].Fragments) != 2 || acts[0].Fragments[0].DraftID != "" || acts[0].Fragments[1].DraftID != "drf_01K" {
			t.Errorf("%s: the activate's fragments %+v, want the second marked as Draft drf_01K", token, acts)
		}
		rf := s.Requests[1].Refusals
		if len(rf) != 1 || rf[0].Command != "git add -A && git commit -m x" || !strings.HasPrefix(rf[0].Reason, "lore guard:") || !strings.Contains(rf[0].Reason, "no-fmt-println-in-mcp") {
			t.Errorf("%s: refusals %+v", token, rf)
		}
	}
}
