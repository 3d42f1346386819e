package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/lore-memory/lore/internal/termtext"
)

// Events lore answers, by the names the clients send.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	Stop             = "Stop"
	SessionEnd       = "SessionEnd"
)

// EventOf maps lore hook's argument (session-start, prompt, pre-tool, stop,
// session-end) to the client's event name.
func EventOf(arg string) (string, bool) {
	switch strings.ToLower(arg) {
	case "session-start", "sessionstart":
		return SessionStart, true
	case "prompt", "user-prompt-submit", "userpromptsubmit":
		return UserPromptSubmit, true
	case "pre-tool", "pre-tool-use", "pretooluse":
		return PreToolUse, true
	case "stop":
		return Stop, true
	case "session-end", "sessionend":
		return SessionEnd, true
	}
	return "", false
}

// Input is what a client sends a hook command (the fields lore reads).
type Input struct {
	SessionID      string    `json:"session_id"`
	TranscriptPath string    `json:"transcript_path"`
	Cwd            string    `json:"cwd"`
	Event          string    `json:"hook_event_name"`
	Source         string    `json:"source"` // SessionStart: startup, resume, clear, compact
	Prompt         string    `json:"prompt"` // UserPromptSubmit
	ToolName       string    `json:"tool_name"`
	ToolInput      ToolInput `json:"tool_input"`
	Model          string    `json:"model"`   // Codex sends it
	TurnID         string    `json:"turn_id"` // Codex's UserPromptSubmit
}

// ToolInput is a tool call's arguments; lore reads a shell command's.
type ToolInput struct {
	Command string `json:"command"`
}

// MaxInput bounds what lore reads of a hook's stdin.
const MaxInput = 4 << 20

// ReadInput decodes a hook's stdin, ignoring fields it does not know; a
// value of the wrong type or more than MaxInput bytes is an error.
func ReadInput(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return Input{}, err
	}
	if len(data) > MaxInput {
		return Input{}, fmt.Errorf("hook input is over %d MiB", MaxInput>>20)
	}
	var in Input
	if len(strings.TrimSpace(string(data))) == 0 {
		return in, fmt.Errorf("hook input is empty (a client sends JSON on stdin)")
	}
	// tool_input may be any object (another tool's arguments): read its
	// command only when it is one.
	var raw struct {
		Input
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Input{}, fmt.Errorf("hook input: %v", err)
	}
	in = raw.Input
	if len(raw.ToolInput) > 0 && raw.ToolInput[0] == '{' {
		json.Unmarshal(raw.ToolInput, &in.ToolInput)
	}
	return in, nil
}

// Context is the output that adds text to the model's context at event.
// Control, escape and bidirectional characters (a note's clear-screen,
// window-title or clipboard-write sequence, a right-to-left override) are
// shown visibly (termtext.Visible): the client may print the text to the
// person's terminal.
func Context(event, text string) []byte {
	return mustJSON(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": termtext.Visible(text)}})
}

// Deny is the output that refuses a tool call, with the reason the model
// and the person read (its rule's message shown visibly, as Context's).
func Deny(reason string) []byte {
	return mustJSON(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": PreToolUse, "permissionDecision": "deny", "permissionDecisionReason": termtext.Visible(reason)}})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return append(b, '\n')
}
