package mcp

import (
	"context"

	"github.com/lore-memory/lore/journal"
)

// The recall tool.

var toolRecall = toolDef{
	name: "recall", title: "Recall", readOnly: true,
	desc: recallJDesc, schema: recallJSchema,
	input: journal.RecallInput{}, call: (*Server).jRecall,
}

const recallJDesc = `Recall memories of a namespace by keywords and time range, best first (matched keywords, importance, recency); matched_keywords says why each matched. Call it before answering about past events, preferences, project history or earlier agreements.`

const recallJSchema = `{
  "type": "object",
  "properties": {
    "namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."},
    "keywords": {"type": "array", "items": {"type": "string"}},
    "start": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD."},
    "end": {"type": "string", "description": "RFC 3339 or YYYY-MM-DD (a date covers the whole day)."},
    "query": {"type": "string", "description": "Text to find in slice, diary or source; may hold time>=…, time<=…, time=a..b."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Default 20, at most 100."},
    "include_diary": {"type": "boolean", "description": "Return diaries too (default false)."}
  },
  "required": ["namespace"],
  "additionalProperties": false
}`

func (s *Server) jRecall(ctx context.Context, raw []byte) (any, error) {
	in, err := decode[journal.RecallInput](raw)
	if err != nil {
		return nil, err
	}
	out, err := s.journal.Recall(ctx, in)
	if err != nil {
		return nil, err
	}
	return data{out}, nil
}
