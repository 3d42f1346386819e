package activity

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/vault"
)

// loreServers are the MCP server names whose memory/activate calls count.
var loreServers = map[string]bool{"lore": true, "clumsies": true}

// builder turns log records into requests.
type builder struct {
	requests []Request
	problems []string
	pending  map[string]slot      // calls waiting for a result, by call id
	shells   map[string]shellCall // shell commands waiting for a result, by call id
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
		fr.DraftID, _ = fm["draft_id"].(string)
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
			HeadingPath: append([]string{}, f.HeadingPath...), Content: f.Content, DraftID: f.DraftID}
		if fr.Content == "" {
			fr.From = "none"
		}
		a.Fragments = append(a.Fragments, fr)
	}
	a.Removed = append(a.Removed, pa.Removed...)
}

// shellCall is a shell command the agent ran, waiting for its result.
type shellCall struct {
	request int
	command string
	at      time.Time
}

// shell records a shell command the agent asked to run.
func (b *builder) shell(id, command string, at time.Time) {
	if id == "" || command == "" {
		return
	}
	if b.shells == nil {
		b.shells = map[string]shellCall{}
	}
	if len(b.requests) == 0 {
		b.requests = append(b.requests, Request{Index: 1, Activations: []Activation{}, At: at})
	}
	b.shells[id] = shellCall{len(b.requests) - 1, command, at}
}

// shellResult reads a shell command's result: when lore's guard refused
// it (the client put the pre-tool hook's reason in the result), the
// refusal is an event of the request the command was run in.
func (b *builder) shellResult(id, text string) {
	c, ok := b.shells[id]
	if !ok {
		return
	}
	delete(b.shells, id)
	i := strings.Index(text, hook.GuardLead)
	if i < 0 {
		return
	}
	r := &b.requests[c.request]
	r.Refusals = append(r.Refusals, Refusal{Command: c.command, Reason: strings.TrimSpace(text[i:]), At: c.at})
}
