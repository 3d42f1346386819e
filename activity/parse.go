package activity

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lore-memory/lore/vault"
)

// loreServers are the MCP server names whose memory/activate calls count.
var loreServers = map[string]bool{"lore": true, "clumsies": true}

// builder turns log records into requests.
type builder struct {
	requests []Request
	problems []string
	pending  map[string]slot // calls waiting for a result, by call id
	// structured: the rollout has structured user messages (set by a first pass).
	structured bool
}

func (b *builder) problem(format string, args ...any) {
	if len(b.problems) < 50 {
		b.problems = append(b.problems, fmt.Sprintf(format, args...))
	}
}

// human starts a request.
func (b *builder) human(text string, at time.Time) {
	b.requests = append(b.requests, Request{Index: len(b.requests) + 1, Text: text, At: at, Activations: []Activation{}})
}

// activation adds an activation to the current request (or a request with
// no human message, when the log starts with a call).
func (b *builder) activation(a Activation) *Activation {
	if len(b.requests) == 0 {
		b.requests = append(b.requests, Request{Index: 1, Text: "", At: a.At, Activations: []Activation{}})
	}
	r := &b.requests[len(b.requests)-1]
	r.Activations = append(r.Activations, a)
	return &r.Activations[len(r.Activations)-1]
}

// slot is where an activation sits (pointers into the slices would move as
// they grow).
type slot struct{ request, activation int }

// call records a call waiting for its result (by id).
func (b *builder) call(id string, a Activation) {
	if b.pending == nil {
		b.pending = map[string]slot{}
	}
	a.CallID, a.Status = id, "pending"
	b.activation(a)
	r := len(b.requests) - 1
	b.pending[id] = slot{r, len(b.requests[r].Activations) - 1}
}

// result completes a pending call; a result without a call is dropped, and a
// call without a result stays "pending".
func (b *builder) result(id string, v any, isErr bool) {
	s, ok := b.pending[id]
	if !ok {
		return
	}
	delete(b.pending, id)
	applyResult(&b.requests[s.request].Activations[s.activation], v, isErr)
}

// activateArgs reads the query of a lore activate call: the memory tool's
// op.activate, or the legacy activate tool's top-level query. Arguments may
// be a JSON string. ok is false for any other call.
func activateArgs(tool string, args any) (query string, state bool, ok bool) {
	if s, isStr := args.(string); isStr {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return "", false, false
		}
		args = v
	}
	m, _ := args.(map[string]any)
	if m == nil {
		return "", false, false
	}
	switch tool {
	case "memory":
		op, _ := m["op"].(map[string]any)
		act, _ := op["activate"].(map[string]any)
		if act == nil || len(op) != 1 {
			return "", false, false
		}
		q, _ := act["query"].(string)
		_, st := act["state"]
		return q, st, true
	case "activate":
		q, isStr := m["query"].(string)
		_, st := m["state"]
		return q, st, isStr
	}
	return "", false, false
}

// splitToolName reads "mcp__<server>__<tool>".
func splitToolName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, "__")
	if i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i+2:], true
}

// applyResult reads an activation result: an MCP CallToolResult
// (structuredContent, or JSON text content; isError), Codex's {"Ok": …} /
// {"Err": …}, or a JSON string.
//
// It is one loop of 72 lines on purpose: each turn unwraps one layer a
// client may have put around the result (a JSON string, Ok/Err, isError,
// structuredContent, content blocks), in whatever order they come, and the
// cases share the loop's state (v, isErr).
func applyResult(a *Activation, v any, isErr bool) {
	a.Status = "ok"
	for {
		switch t := v.(type) {
		case string:
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				v = inner
				continue
			}
			if pa, ok := vault.ParseActivationText(t); ok && !isErr {
				readActivationText(a, pa)
				return
			}
			if isErr {
				a.Status, a.Error = "error", t
			} else {
				a.Status, a.Error = "error", "unreadable result: "+preview(t)
			}
			return
		case map[string]any:
			if ok, has := t["Ok"]; has {
				v = ok
				continue
			}
			if e, has := t["Err"]; has {
				a.Status, a.Error = "error", fmt.Sprint(e)
				return
			}
			if e, _ := t["isError"].(bool); e {
				isErr = true
			}
			if sc, has := t["structuredContent"]; has && sc != nil {
				v = sc
				delete(t, "structuredContent")
				if isErr {
					a.Status, a.Error = "error", errorText(sc)
					return
				}
				continue
			}
			if content, has := t["content"].([]any); has {
				for _, c := range content {
					cm, _ := c.(map[string]any)
					if text, ok := cm["text"].(string); ok {
						if isErr {
							a.Status, a.Error = "error", errorText(text)
							return
						}
						v = text
						break
					}
				}
				if _, still := v.(map[string]any); still {
					a.Status = "error"
					a.Error = "result without text"
					return
				}
				continue
			}
			if isErr {
				a.Status, a.Error = "error", errorText(t)
				return
			}
			readActivation(a, t)
			return
		default:
			a.Status, a.Error = "error", "unreadable result"
			return
		}
	}
}

func errorText(v any) string {
	switch t := v.(type) {
	case string:
		var inner any
		if json.Unmarshal([]byte(t), &inner) == nil {
			return errorText(inner)
		}
		return t
	case map[string]any:
		if e, ok := t["error"].(map[string]any); ok {
			return fmt.Sprintf("%v: %v", e["code"], e["message"])
		}
		if m, ok := t["message"].(string); ok {
			return m
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// readActivation reads lore's activation object.
func readActivation(a *Activation, m map[string]any) {
	if id, ok := m["run_id"].(string); ok {
		a.RunID = id
	}
	if rev, ok := m["index_revision"].(string); ok {
		a.IndexRevision = rev
	}
	frs, _ := m["fragments"].([]any)
	a.Fragments = []Fragment{}
	for _, f := range frs {
		fm, _ := f.(map[string]any)
		if fm == nil {
			continue
		}
		fr := Fragment{From: "result", HeadingPath: []string{}}
		fr.Action, _ = fm["action"].(string)
		fr.UnitKey, _ = fm["unit_key"].(string)
		fr.ResourceID, _ = fm["resource_id"].(string)
		fr.Path, _ = fm["path"].(string)
		fr.Content, _ = fm["content"].(string)
		if hp, ok := fm["heading_path"].([]any); ok {
			for _, h := range hp {
				if s, ok := h.(string); ok {
					fr.HeadingPath = append(fr.HeadingPath, s)
				}
			}
		}
		if fr.Content == "" {
			fr.From = "none"
		}
		a.Fragments = append(a.Fragments, fr)
	}
	if rm, ok := m["removed"].([]any); ok {
		for _, r := range rm {
			if s, ok := r.(string); ok {
				a.Removed = append(a.Removed, s)
			}
		}
	}
}

// readActivationText reads an activation from lore's text rendering (what
// the memory tool's text content is; a log may hold only that).
func readActivationText(a *Activation, pa *vault.Activation) {
	a.RunID, a.IndexRevision = pa.RunID, pa.IndexRevision
	a.Fragments = []Fragment{}
	for _, f := range pa.Fragments {
		fr := Fragment{From: "result", Action: f.Action, UnitKey: f.UnitKey, ResourceID: f.ResourceID, Path: f.Path,
			HeadingPath: append([]string{}, f.HeadingPath...), Content: f.Content}
		if fr.Content == "" {
			fr.From = "none"
		}
		a.Fragments = append(a.Fragments, fr)
	}
	a.Removed = append(a.Removed, pa.Removed...)
}

// ---- Codex ----

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
	var p struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(l.Payload, &p) != nil || p.Type != "message" || p.Role != "user" {
		return "", false
	}
	var parts []string
	for _, c := range p.Content {
		if c.Type == "input_text" || c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	for _, tag := range []string{"<environment_context>", "<user_instructions>", "<user_shell_command>", "<turn_aborted>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(text, tag) {
			return "", false
		}
	}
	return text, text != ""
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

// ---- Claude Code ----

type claudeRecord struct {
	Type        string `json:"type"`
	Summary     string `json:"summary"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	SessionID   string `json:"sessionId"`
	Cwd         string `json:"cwd"`
	Timestamp   string `json:"timestamp"`
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
			// Claude keeps a tool's content blocks: [{"type":"text","text":…}].
			if list, ok := v.([]any); ok {
				v = map[string]any{"content": list, "isError": bl.IsError}
			}
			b.result(bl.ToolUseID, v, bl.IsError)
		}
	}
}

// ---- DSH ----

func (b *builder) dsh(r dshRecord) {
	at := parseTime(r.str("timestamp", "at", "createdAt"))
	switch r.Type {
	case "user/message":
		src, _ := r.m["source"].(map[string]any)
		if kind, _ := src["kind"].(string); kind != "user" {
			return
		}
		if text := r.str("text", "content", "message"); text != "" {
			b.human(text, at)
		}
	case "tool/call":
		name := r.str("name", "tool")
		server, tool, ok := splitToolName(name)
		if !ok || !loreServers[server] {
			return
		}
		args := r.m["arguments"]
		if args == nil {
			args = r.m["input"]
		}
		q, st, ok := activateArgs(tool, args)
		if !ok {
			return
		}
		b.call(r.str("callId"), Activation{Query: q, HadState: st, At: at})
	case "tool/result":
		isErr, _ := r.m["isError"].(bool)
		res := r.m["result"]
		if res == nil {
			res = r.m["output"]
		}
		if e, ok := r.m["error"]; ok && e != nil {
			res, isErr = e, true
		}
		b.result(r.str("callId"), res, isErr)
	}
}
