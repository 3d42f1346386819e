package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// The recall_memory tool.

var toolRecallMemory = toolDef{
	name: "recall_memory", title: "Recall memory", readOnly: true,
	desc: recallDesc, schema: recallSchema,
	input: recallInput{}, call: (*Server).recallMemory,
}

const recallDesc = `Search the project's vault — past decisions, designs, how-tos, incidents, notes — with the same hybrid retrieval as lore's activate (BM25 + vectors + one-hop links). Call it first whenever the task needs domain knowledge or a past decision. Default output is one compact line per note: !μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>; full: true returns the whole Markdown of each note.`

const recallSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Search query keywords or technical question."},
    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of notes to return (default: 5; at most 100 are ranked and returned)."},
    "full": {"type": "boolean", "description": "When true, returns whole Markdown notes; when false (default), compact lines."},
    "mode": {"type": "string", "enum": ["hybrid", "bm25", "vector"], "description": "Search mode (default: hybrid, or bm25 when the vault has no embedding model)."}
  },
  "required": ["query"]
}`

// maxRecall is the most notes recall_memory ranks and returns.
const maxRecall = 100

type recallInput struct {
	Query string  `json:"query"`
	Limit *int    `json:"limit,omitempty"`
	Full  *bool   `json:"full,omitempty"`
	Mode  *string `json:"mode,omitempty"`
}

func (s *Server) recallMemory(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[recallInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is required")
	}
	limit, mode, err := recallOptions(in)
	if err != nil {
		return nil, err
	}
	if mode == "" {
		mode = s.ix.DefaultMode()
	}
	hits, err := s.ix.Recall(ctx, in.Query, mode, s.project, limit)
	if err != nil {
		return nil, err
	}
	// While some sections have no vector yet (just edited or stored, or
	// the server just started), the answer says so; a vector search that
	// found nothing then shows the lexical matches instead of nothing.
	pending := 0
	note := ""
	if mode != "lexical" && s.ix.VectorsBehind() {
		if pending, err = s.ix.PendingEmbeddings(ctx); err != nil {
			return nil, err
		}
	}
	if pending > 0 {
		note = fmt.Sprintf("(%d sections have no vector yet — they are being embedded now; vector results are incomplete until then)\n", pending)
		if mode == "vector" && len(hits) == 0 {
			if hits, err = s.ix.Recall(ctx, in.Query, "lexical", s.project, limit); err != nil {
				return nil, err
			}
			note = fmt.Sprintf("(%d sections have no vector yet — they are being embedded now; these are lexical matches meanwhile)\n", pending)
		}
	}
	if hits == nil {
		hits = []vault.RecallHit{}
	}
	var b strings.Builder
	if in.Full != nil && *in.Full {
		if err := s.writeWhole(ctx, &b, hits); err != nil {
			return nil, err
		}
	} else {
		for _, h := range hits {
			b.WriteString(h.Compact() + "\n")
		}
	}
	if len(hits) == 0 {
		b.WriteString("(no matching notes)\n")
	}
	b.WriteString(note)
	return textResult{Text: b.String(), Data: map[string]any{"hits": hits, "mode": mode, "vectors_pending": pending}}, nil
}

// recallOptions are recall_memory's limit (5 unless given; at most
// maxRecall) and retrieval mode ("" when not given: the memory's default).
func recallOptions(in recallInput) (int, string, error) {
	limit := 5
	if in.Limit != nil {
		if *in.Limit < 1 {
			return 0, "", vault.Errorf(vault.CodeInvalid, "limit %d is not a positive number of notes", *in.Limit)
		}
		// The spec sets no maximum; the work is capped, not the contract:
		// at most maxRecall notes are ranked and returned.
		limit = min(*in.Limit, maxRecall)
	}
	mode := ""
	if in.Mode != nil {
		switch *in.Mode {
		case "hybrid":
			mode = "hybrid"
		case "bm25":
			mode = "lexical"
		case "vector":
			mode = "vector"
		default:
			return 0, "", vault.Errorf(vault.CodeInvalid, "mode %q is not hybrid, bm25 or vector", *in.Mode)
		}
	}
	return limit, mode, nil
}

// writeWhole writes the whole notes of hits, each under a comment naming
// it and its score (full: true).
func (s *Server) writeWhole(ctx context.Context, b *strings.Builder, hits []vault.RecallHit) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ResourceID
	}
	if len(ids) > 0 {
		rs, err := s.ix.Load(ctx, ids, s.project)
		if err != nil {
			return err
		}
		for i, r := range rs {
			if i > 0 {
				b.WriteString("\n\n---\n\n")
			}
			fmt.Fprintf(b, "<!-- %s (%s) score:%.3f -->\n%s", r.Path, r.ResourceID, hits[i].Score, r.Content)
		}
	}
	return nil
}
