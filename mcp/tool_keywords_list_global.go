package mcp

import (
	"context"
)

// The keywords_list_global tool.

var toolKeywordsListGlobal = toolDef{
	name: "keywords_list_global", title: "Keywords of every namespace", readOnly: true,
	desc: kwGlobalDesc, schema: noArgs,
	input: noInput{}, call: (*Server).jKeywordsGlobal,
}

const kwGlobalDesc = `List keywords across every namespace, with how many namespaces and memories use each. Use it as a vocabulary when a namespace has none yet.`

func (s *Server) jKeywordsGlobal(ctx context.Context, raw []byte) (any, error) {
	if _, err := decode[noInput](raw); err != nil {
		return nil, err
	}
	out, err := s.journal.KeywordsListGlobal(ctx)
	if err != nil {
		return nil, err
	}
	return data{out}, nil
}
