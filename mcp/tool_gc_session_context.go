package mcp

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/vault"
)

// The gc_session_context tool.

var toolGcSessionContext = toolDef{
	name: "gc_session_context", title: "Session context GC", readOnly: false,
	desc: gcDesc, schema: gcSchema,
	input: gcInput{}, call: (*Server).gcContext,
}

const gcDesc = `Garbage-collect a long agent trajectory: tool outputs longer than threshold lines outside the last hot_window turns are offloaded and replaced by one-line references, repeated error dumps collapse into references to the first. Returns the folded trajectory, tokens before and after, the reduction (TRR), and where it sits in context_window against the 15–60% smart zone.`

const gcSchema = `{
  "type": "object",
  "properties": {
    "trajectory_json": {"type": "string", "minLength": 1, "description": "JSON: {\"session_id\": \"…\", \"turns\": [{\"role\": \"…\", \"content\": \"…\"}, …]}."},
    "threshold": {"type": "integer", "minimum": 1, "description": "Line threshold before a tool output is folded (default: 20)."},
    "hot_window": {"type": "integer", "minimum": 0, "description": "Recent turns kept untouched (default: 5)."},
    "context_window": {"type": "integer", "minimum": 1000, "description": "Context window in tokens for the smart-zone figure (default: 128000)."}
  },
  "required": ["trajectory_json"]
}`

type gcInput struct {
	TrajectoryJSON string `json:"trajectory_json"`
	Threshold      *int   `json:"threshold,omitempty"`
	HotWindow      *int   `json:"hot_window,omitempty"`
	ContextWindow  *int   `json:"context_window,omitempty"`
}

func (s *Server) gcContext(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[gcInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.TrajectoryJSON) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "trajectory_json is required")
	}
	o := offload.GCOptions{Threshold: derefInt(in.Threshold), HotWindow: 5, ContextWindow: derefInt(in.ContextWindow)}
	if in.HotWindow != nil {
		o.HotWindow = *in.HotWindow
	}
	if (in.Threshold != nil && *in.Threshold < 1) || (in.ContextWindow != nil && *in.ContextWindow < 1000) {
		return nil, vault.Errorf(vault.CodeInvalid, "threshold must be ≥ 1 and context_window ≥ 1000")
	}
	return s.off.GC(in.TrajectoryJSON, o)
}
