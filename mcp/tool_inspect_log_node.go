package mcp

import (
	"context"
	"fmt"

	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/vault"
)

// The inspect_log_node tool.

var toolInspectLogNode = toolDef{
	name: "inspect_log_node", title: "Inspect a log node", readOnly: true,
	desc: inspectDesc, schema: inspectSchema,
	input: inspectInput{}, call: (*Server).inspectNode,
}

const inspectDesc = `Read back the raw text of an offloaded log by its node_id (from offload_context or gc_session_context), whole or a line range. Call it when you need the exact lines of an error.`

const inspectSchema = `{
  "type": "object",
  "properties": {
    "node_id": {"type": "string", "minLength": 1, "description": "The node id, e.g. node_1a2b3c4d."},
    "start_line": {"type": "integer", "minimum": 1, "description": "Optional first line (1-based)."},
    "end_line": {"type": "integer", "minimum": 1, "description": "Optional last line (inclusive)."}
  },
  "required": ["node_id"]
}`

type inspectInput struct {
	NodeID    string `json:"node_id"`
	StartLine *int   `json:"start_line,omitempty"`
	EndLine   *int   `json:"end_line,omitempty"`
}

type inspectResult struct{ offload.Inspected }

func (i inspectResult) AgentText() string {
	return fmt.Sprintf("%s: lines %d–%d of %d\n%s", i.NodeID, i.From, i.To, i.Lines, i.Text)
}

func (s *Server) inspectNode(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[inspectInput](raw)
	if err != nil {
		return nil, err
	}
	if in.NodeID == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "node_id is required")
	}
	r, err := s.off.Inspect(in.NodeID, derefInt(in.StartLine), derefInt(in.EndLine))
	if err != nil {
		return nil, err
	}
	return inspectResult{r}, nil
}
