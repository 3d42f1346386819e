package mcp

import (
	"context"
)

// The keywords_list tool.

var toolKeywordsList = toolDef{
	name: "keywords_list", title: "Keywords of a namespace", readOnly: true,
	desc: kwListDesc, schema: kwListSchema,
	input: nsInput{}, call: (*Server).jKeywords,
}

const kwListDesc = `List the keywords already used in a namespace ({userId}/{projectId}), shortest first. Call it before remember or recall when unsure which keywords exist, and reuse them; if it is empty, look at keywords_list_global.`

const kwListSchema = `{
  "type": "object",
  "properties": {"namespace": {"type": "string", "minLength": 3, "description": "{userId}/{projectId}, exactly two segments."}},
  "required": ["namespace"],
  "additionalProperties": false
}`

type nsInput struct {
	Namespace string `json:"namespace"`
}

func (s *Server) jKeywords(ctx context.Context, raw []byte) (any, error) {
	in, err := decode[nsInput](raw)
	if err != nil {
		return nil, err
	}
	out, err := s.journal.KeywordsList(ctx, in.Namespace)
	if err != nil {
		return nil, err
	}
	return data{out}, nil
}
