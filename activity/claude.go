package activity

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
)

// claudeSource reads Claude Code transcripts (~/.claude/projects), without
// subagents' own transcripts.
type claudeSource struct{}

func (claudeSource) host() string { return "claude" }

func (claudeSource) home() SourceHome {
	return SourceHome{Agent: "Claude Code", Dir: ".claude", Env: []string{"LORE_CLAUDE_HOME"}, Flag: "claude-home"}
}

func (claudeSource) find(home string, add func(string, fs.FileInfo, bool)) error {
	return walkFiles(filepath.Join(home, "projects"), func(p string, info fs.FileInfo) {
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".jsonl") && !strings.HasPrefix(base, "agent-") && !strings.Contains(filepath.ToSlash(p), "/subagents/") {
			add(p, info, false)
		}
	})
}

func (claudeSource) header(p string, info fs.FileInfo) (Summary, bool) { return claudeHeader(p, info) }

func (claudeSource) titles(string) map[string]string { return nil }

func (claudeSource) contains([]byte, string) bool { return false }

func (claudeSource) read(s *Session, b *builder) error {
	return eachLine(s.File, func(n int, l []byte) { b.claude(n, l) })
}

func claudeHeader(p string, info fs.FileInfo) (Summary, bool) {
	lines, err := headLines(p)
	if err != nil {
		return Summary{}, false
	}
	s := Summary{Host: "claude", Updated: info.ModTime().UTC(), File: p}
	for _, l := range lines {
		var r claudeRecord
		if json.Unmarshal(l, &r) != nil {
			continue
		}
		if r.Type == "summary" && s.Title == "" && r.Summary != "" {
			s.Title = preview(r.Summary)
		}
		if r.IsSidechain {
			continue
		}
		// Claude Code 2.1.3xx opens a transcript with records that carry the
		// session but no workspace (queue-operation in -p mode, last-prompt
		// and mode in interactive sessions): each field comes from the first
		// record that has it.
		if s.SessionID == "" && r.SessionID != "" {
			s.SessionID = r.SessionID
		}
		if s.Workspace == "" && r.Cwd != "" {
			s.Workspace = r.Cwd
		}
		if s.Started.IsZero() && r.Timestamp != "" {
			s.Started = parseTime(r.Timestamp)
		}
		if s.Title == "" {
			if t, ok := r.prompt(); ok {
				s.Title = preview(t)
			}
		}
	}
	if s.SessionID == "" {
		return Summary{}, false
	}
	s.Token = "claude:" + s.SessionID
	return s, true
}

type claudeRecord struct {
	Type        string          `json:"type"`
	Summary     string          `json:"summary"`
	IsSidechain bool            `json:"isSidechain"`
	IsMeta      bool            `json:"isMeta"`
	SessionID   string          `json:"sessionId"`
	Cwd         string          `json:"cwd"`
	Timestamp   string          `json:"timestamp"`
	Attachment  json.RawMessage `json:"attachment"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     any             `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// prompt returns a human prompt: a user record that is not meta, not a
// slash-command echo or an interruption notice, and not only tool results.
func (r claudeRecord) prompt() (string, bool) {
	if r.Type != "user" || r.IsMeta || r.IsSidechain {
		return "", false
	}
	var text string
	var s string
	if json.Unmarshal(r.Message.Content, &s) == nil {
		text = s
	} else {
		var blocks []claudeBlock
		if json.Unmarshal(r.Message.Content, &blocks) != nil {
			return "", false
		}
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		text = strings.Join(parts, "\n")
	}
	text = strings.TrimSpace(text)
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "[Request interrupted by user", "Caveat: The messages below"} {
		if strings.HasPrefix(text, p) {
			return "", false
		}
	}
	return text, text != ""
}

func (b *builder) claude(n int, raw []byte) {
	var r claudeRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		if len(strings.TrimSpace(string(raw))) > 0 {
			b.problem("line %d: not JSON (%v)", n, err)
		}
		return
	}
	if r.IsSidechain {
		return
	}
	at := parseTime(r.Timestamp)
	if r.Type == "attachment" {
		b.claudeHook(r.Attachment, at)
		return
	}
	if text, ok := r.prompt(); ok {
		b.human(text, at)
		return
	}
	var blocks []claudeBlock
	if json.Unmarshal(r.Message.Content, &blocks) != nil {
		return
	}
	for _, bl := range blocks {
		switch bl.Type {
		case "tool_use":
			if bl.Name == "Bash" {
				if in, ok := bl.Input.(map[string]any); ok {
					cmd, _ := in["command"].(string)
					b.shell(bl.ID, cmd, at)
				}
				continue
			}
			server, tool, ok := splitToolName(bl.Name)
			if !ok || !loreServers[server] {
				continue
			}
			q, st, ok := activateArgs(tool, bl.Input)
			if !ok {
				continue
			}
			b.call(bl.ID, Activation{Query: q, HadState: st, At: at})
		case "tool_result":
			var v any
			if json.Unmarshal(bl.Content, &v) != nil {
				continue
			}
			b.shellResult(bl.ToolUseID, resultText(v))
			// Claude keeps a tool's content blocks: [{"type":"text","text":…}].
			if list, ok := v.([]any); ok {
				v = map[string]any{"content": list, "isError": bl.IsError}
			}
			b.result(bl.ToolUseID, v, bl.IsError)
		}
	}
}

// resultText is a tool result's text: a string, or its text blocks joined.
func resultText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, c := range t {
			if m, ok := c.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
