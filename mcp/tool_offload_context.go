package mcp

import (
	"context"

	"github.com/lore-memory/lore/offload"
)

// The offload_context tool.

var toolOffloadContext = toolDef{
	name: "offload_context", title: "Offload context", readOnly: false,
	desc: offloadDesc, schema: offloadSchema,
	input: offloadInput{}, call: (*Server).offloadContext,
}

const offloadDesc = `Move verbose terminal output — build logs, test traces, error dumps over 30 lines — out of your context: it is stored locally (never committed) and you get a Mermaid state diagram of at most 15 lines naming the phases and first errors, plus a node_id for inspect_log_node. Call it instead of pasting long output into the conversation.`

const offloadSchema = `{
  "type": "object",
  "properties": {
    "content": {"type": "string", "minLength": 1, "description": "The raw terminal output or stack trace to store."},
    "task_id": {"type": "string", "description": "Optional task identifier shown with the summary."}
  },
  "required": ["content"]
}`

type offloadInput struct {
	Content string  `json:"content"`
	TaskID  *string `json:"task_id,omitempty"`
}

type offloadResult struct{ offload.Offloaded }

func (o offloadResult) AgentText() string { return o.Text }

func (s *Server) offloadContext(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[offloadInput](raw)
	if err != nil {
		return nil, err
	}
	o, err := s.off.Offload(in.Content, deref(in.TaskID))
	if err != nil {
		return nil, err
	}
	return offloadResult{o}, nil
}
