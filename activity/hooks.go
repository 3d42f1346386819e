package activity

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/lore-memory/lore/hook"
)

// That a hook of lore's ran, and into which request, is read from where
// each client records a hook's output in its session log; what it
// delivered is then read from the run record the text names (join), and
// from the text only when that record is missing:
//
//   - Claude Code writes an "attachment" record: hook_additional_context
//     with the text in content (a list of strings), and hook_success with
//     the command's stdout (the JSON lore printed); hookEvent names the
//     event.
//   - Codex records the text as a developer message of the conversation (a
//     response_item; some builds wrap it in <hook_context>).
//
// A text counts when it begins with one of lore's leads (hook.PromptLead,
// hook.StartLead): echoes of it inside tool results or prose are other
// records and are not read. A prompt's delivery becomes an activation of
// the request it follows, Via "hook", joined to its retrieval run by the run
// id its first line carries; a session start's is the loadout as one
// fragment. The same text recorded twice for one request (Claude's two
// records of one hook run) counts once.

// hookText reads one text a hook added to the context.
func (b *builder) hookText(event, text string, at time.Time) {
	text = strings.TrimSpace(text)
	for _, w := range [][2]string{{"<hook_context>", "</hook_context>"}, {"<hook_context_sticky>", "</hook_context_sticky>"}} {
		if inner, ok := strings.CutPrefix(text, w[0]); ok {
			text = strings.TrimSpace(strings.TrimSuffix(inner, w[1]))
		}
	}
	var a Activation
	switch {
	case strings.HasPrefix(text, hook.PromptLead):
		pa, ok := hook.ParseMemory(text)
		if !ok {
			return
		}
		a = Activation{Via: "hook", Event: hook.UserPromptSubmit, Status: "ok", RunID: pa.RunID, Fragments: []Fragment{}, Removed: pa.Removed, At: at}
		for _, f := range pa.Fragments {
			a.Fragments = append(a.Fragments, Fragment{Action: f.Action, Path: f.Path, HeadingPath: f.HeadingPath, Content: f.Content, From: "result"})
		}
		if len(b.requests) > 0 {
			a.Query = strings.TrimSpace(b.requests[len(b.requests)-1].Text)
		}
	case strings.HasPrefix(text, hook.StartLead):
		a = Activation{Via: "hook", Event: hook.SessionStart, Status: "ok", At: at,
			Fragments: []Fragment{{Action: "add", Path: "(loadout)", HeadingPath: []string{}, Content: text, From: "result"}}}
	default:
		return
	}
	if event != "" {
		a.Event = event
	}
	if len(b.requests) > 0 {
		for _, seen := range b.requests[len(b.requests)-1].Activations {
			if seen.Via == "hook" && seen.hookText == text {
				return
			}
		}
	}
	if a.Event == hook.SessionStart && len(b.requests) > 0 {
		// A session start after the session's first (a resume, a clear, a
		// compaction) opens an entry of its own: filed under the previous
		// prompt, it read as that prompt's memory.
		if last := b.requests[len(b.requests)-1]; last.Text != "" || len(last.Activations) > 0 {
			b.requests = append(b.requests, Request{Index: len(b.requests) + 1, At: at, Activations: []Activation{}})
		}
	}
	a.hookText = text
	b.activation(a)
}

// claudeAttachment is the part of a Claude Code attachment record lore reads.
type claudeAttachment struct {
	Type      string          `json:"type"`
	HookEvent string          `json:"hookEvent"`
	Content   json.RawMessage `json:"content"`
	Stdout    string          `json:"stdout"`
}

// claudeHook reads an attachment record: what a hook added.
func (b *builder) claudeHook(raw json.RawMessage, at time.Time) {
	var att claudeAttachment
	if json.Unmarshal(raw, &att) != nil {
		return
	}
	switch att.Type {
	case "hook_additional_context":
		var list []string
		if json.Unmarshal(att.Content, &list) != nil {
			var one string
			if json.Unmarshal(att.Content, &one) != nil {
				return
			}
			list = []string{one}
		}
		for _, t := range list {
			b.hookText(att.HookEvent, t, at)
		}
	case "hook_success":
		var out struct {
			Specific struct {
				Event   string `json:"hookEventName"`
				Context string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if json.Unmarshal([]byte(att.Stdout), &out) == nil && out.Specific.Context != "" {
			b.hookText(att.HookEvent, out.Specific.Context, at)
		}
	}
}
