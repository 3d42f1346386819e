package mcp

import (
	"context"

	"github.com/lore-memory/lore/journal"
)

// The remember tool.

var toolRemember = toolDef{
	name: "remember", title: "Remember", readOnly: false,
	desc: rememberDesc, schema: rememberSchema,
	input: journal.RememberInput{}, call: (*Server).jRemember,
}

const rememberDesc = `Record a memory: 3–8 short keywords, a slice (1–3 objective sentences) and a diary (context, reasons, what follows), optionally occurred_at, importance 1–5 and source. Call it when the user shares lasting preferences, decisions, milestones or plans ("remind me on …"), and at each key point of a task. Memories become notes under journal/<userId>/<projectId>/ in the vault, readable by people. Avoid secrets.`

const rememberSchema = `{
  "type": "object",
  "properties": {
    "namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."},
    "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Short keywords; trimmed, lower-cased, de-duplicated; time-like ones are ignored, a full date adds its year/month/day keywords."},
    "slice": {"type": "string", "minLength": 1, "description": "The important content."},
    "diary": {"type": "string", "minLength": 1, "description": "Context, reasons, consequences."},
    "occurred_at": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD."},
    "importance": {"type": "integer", "minimum": 1, "maximum": 5},
    "source": {"type": "string"}
  },
  "required": ["namespace", "keywords", "slice", "diary"],
  "additionalProperties": false
}`

func (s *Server) jRemember(ctx context.Context, raw []byte) (any, error) {
	in, err := decode[journal.RememberInput](raw)
	if err != nil {
		return nil, err
	}
	out, err := s.journal.Remember(ctx, in)
	if err != nil {
		return nil, err
	}
	return data{out}, nil
}
