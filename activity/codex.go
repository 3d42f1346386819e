package activity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// codexSource reads Codex CLI rollouts (~/.codex/sessions, archived_sessions).
type codexSource struct{}

func (codexSource) host() string { return "codex" }

func (codexSource) home() SourceHome {
	return SourceHome{Agent: "Codex CLI", Dir: ".codex", Env: []string{"LORE_CODEX_HOME", "CODEX_HOME"}, Flag: "codex-home"}
}

func (codexSource) find(home string, add func(string, fs.FileInfo, bool)) error {
	var first error
	for _, dir := range []string{"archived_sessions", "sessions"} {
		err := walkFiles(filepath.Join(home, dir), func(p string, info fs.FileInfo) {
			if strings.HasSuffix(p, ".jsonl") {
				add(p, info, dir == "sessions")
			}
		})
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (codexSource) header(p string, info fs.FileInfo) (Summary, bool) { return codexHeader(p, info) }

func (codexSource) titles(home string) map[string]string {
	return codexTitles(filepath.Join(home, "session_index.jsonl"))
}

func (codexSource) contains([]byte, string) bool { return false }

func (codexSource) read(s *Session, b *builder) error {
	err := eachLine(s.File, func(_ int, l []byte) {
		if _, ok := codexUserText(l); ok {
			b.structured = true
		}
	})
	if err == nil {
		err = eachLine(s.File, func(n int, l []byte) { b.codex(n, l) })
	}
	return err
}

// codexTitles reads the titles Codex keeps in session_index.jsonl.
func codexTitles(p string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(p)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r struct {
			ID         string `json:"id"`
			Title      string `json:"title"`
			ThreadName string `json:"thread_name"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != "" {
			if r.ThreadName != "" {
				r.Title = r.ThreadName
			}
			if r.Title != "" {
				out[r.ID] = r.Title
			}
		}
	}
	return out
}

func codexHeader(p string, info fs.FileInfo) (Summary, bool) {
	lines, err := headLines(p)
	if err != nil {
		return Summary{}, false
	}
	for _, l := range lines {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				ID        string          `json:"id"`
				Cwd       string          `json:"cwd"`
				Timestamp string          `json:"timestamp"`
				Source    json.RawMessage `json:"source"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "session_meta" {
			continue
		}
		if r.Payload.ID == "" || isSubagent(r.Payload.Source) {
			return Summary{}, false
		}
		s := Summary{Host: "codex", SessionID: r.Payload.ID, Workspace: r.Payload.Cwd, Started: parseTime(r.Payload.Timestamp), Updated: info.ModTime().UTC(), File: p}
		s.Token = "codex:" + s.SessionID
		s.Title = firstCodexPrompt(lines)
		return s, true
	}
	return Summary{}, false
}

// isSubagent reads session_meta.source: "subagent", or {"subagent": …}.
func isSubagent(src json.RawMessage) bool {
	var s string
	if json.Unmarshal(src, &s) == nil {
		return strings.Contains(strings.ToLower(s), "subagent")
	}
	var m map[string]any
	if json.Unmarshal(src, &m) == nil {
		_, ok := m["subagent"]
		return ok
	}
	return false
}

func firstCodexPrompt(lines [][]byte) string {
	for _, l := range lines {
		if t, ok := codexUserText(l); ok {
			return preview(t)
		}
	}
	return ""
}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexUserText reads a structured user message (not the environment or
// instruction messages Codex also sends as the user).
func codexUserText(line []byte) (string, bool) {
	var l codexLine
	if json.Unmarshal(line, &l) != nil || l.Type != "response_item" {
		return "", false
	}
	text, ok := codexMessage(l.Payload, "user")
	if !ok {
		return "", false
	}
	text = strings.TrimSpace(text)
	for _, tag := range []string{"<environment_context>", "<user_instructions>", "<user_shell_command>", "<turn_aborted>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(text, tag) {
			return "", false
		}
	}
	return text, text != ""
}

// codexMessage reads the text of a response_item message of role.
func codexMessage(payload json.RawMessage, role string) (string, bool) {
	var p struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Type != "message" || p.Role != role {
		return "", false
	}
	var parts []string
	for _, c := range p.Content {
		if c.Type == "input_text" || c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

func (b *builder) codex(n int, raw []byte) {
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		if len(strings.TrimSpace(string(raw))) > 0 {
			b.problem("line %d: not JSON (%v)", n, err)
		}
		return
	}
	at := parseTime(l.Timestamp)
	if text, ok := codexUserText(raw); ok {
		b.human(text, at)
		return
	}
	if l.Type == "response_item" {
		if text, ok := codexMessage(l.Payload, "developer"); ok {
			b.hookText("", text, at)
			return
		}
	}
	var p map[string]any
	if json.Unmarshal(l.Payload, &p) != nil {
		return
	}
	typ, _ := p["type"].(string)
	switch {
	case l.Type == "event_msg" && typ == "user_message":
		// Legacy: only when the rollout has no structured user messages
		// (newer rollouts carry both for one prompt).
		if msg, _ := p["message"].(string); msg != "" && !b.structured {
			b.human(msg, at)
		}
	case l.Type == "event_msg" && typ == "item_completed":
		b.codexItem(p, at)
	case l.Type == "event_msg" && typ == "mcp_tool_call_end":
		inv, _ := p["invocation"].(map[string]any)
		a, ok := loreActivation(inv, at)
		if !ok {
			return
		}
		a.CallID, _ = p["call_id"].(string)
		applyResult(b.activation(a), p["result"], false)
	case l.Type == "response_item" && typ == "function_call" && codexShells[fmt.Sprint(p["name"])]:
		id, _ := p["call_id"].(string)
		b.shell(id, codexCommand(p["arguments"]), at)
	case l.Type == "response_item" && typ == "function_call":
		name, _ := p["name"].(string)
		server, tool, ok := splitToolName(name)
		if !ok || !loreServers[server] {
			return
		}
		q, st, ok := activateArgs(tool, p["arguments"])
		if !ok {
			return
		}
		id, _ := p["call_id"].(string)
		b.call(id, Activation{Query: q, HadState: st, At: at})
	case l.Type == "response_item" && typ == "function_call_output":
		id, _ := p["call_id"].(string)
		out := p["output"]
		if text, ok := out.(string); ok {
			b.shellResult(id, text)
		}
		if m, ok := out.(map[string]any); ok {
			if c, ok := m["content"]; ok {
				out = c
			}
		}
		b.result(id, out, false)
	}
}

// loreActivation reads a Codex MCP call ({"server", "tool", "arguments"}):
// an activation when it is lore's activate.
func loreActivation(call map[string]any, at time.Time) (Activation, bool) {
	server, _ := call["server"].(string)
	tool, _ := call["tool"].(string)
	if !loreServers[server] {
		return Activation{}, false
	}
	q, st, ok := activateArgs(tool, call["arguments"])
	return Activation{Query: q, HadState: st, At: at}, ok
}

// codexItem reads a completed item of a Codex rollout: a call of lore's
// activate over MCP, with its result or error.
func (b *builder) codexItem(p map[string]any, at time.Time) {
	item, _ := p["item"].(map[string]any)
	if item == nil || item["type"] != "McpToolCall" {
		return
	}
	a, ok := loreActivation(item, at)
	if !ok {
		return
	}
	if id, _ := item["id"].(string); id != "" {
		a.CallID = id
	}
	if e, ok := item["error"].(map[string]any); ok && e != nil {
		a.Status, a.Error = "error", fmt.Sprint(e["message"])
		b.activation(a)
		return
	}
	res, has := item["result"]
	if !has || res == nil {
		a.Status = "pending"
		b.activation(a)
		return
	}
	applyResult(b.activation(a), res, false)
}

// codexShells are the names of Codex's shell tools.
var codexShells = map[string]bool{"exec_command": true, "shell": true, "local_shell": true, "shell_command": true}

// codexCommand reads a shell call's command from its arguments (a JSON
// string): cmd or command, a string or an argv list.
func codexCommand(args any) string {
	s, _ := args.(string)
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return ""
	}
	for _, k := range []string{"cmd", "command"} {
		switch v := m[k].(type) {
		case string:
			return v
		case []any:
			var parts []string
			for _, x := range v {
				parts = append(parts, fmt.Sprint(x))
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}
