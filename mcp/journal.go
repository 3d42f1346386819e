package mcp

import (
	"context"

	"github.com/lore-memory/lore/journal"
)

// The journal profile: the five tools of specs/002 on journal notes in the
// vault (package journal). Results are {"data": …} as the spec shows them.

func (s *Server) journalTools() []tool {
	return []tool{
		{newTool("now", "Now", nowDesc, `{"type":"object","properties":{},"additionalProperties":false}`, true), s.jNow},
		{newTool("keywords_list", "Keywords of a namespace", kwListDesc, kwListSchema, true), s.jKeywords},
		{newTool("keywords_list_global", "Keywords of every namespace", kwGlobalDesc, `{"type":"object","properties":{},"additionalProperties":false}`, true), s.jKeywordsGlobal},
		{newTool("remember", "Remember", rememberDesc, rememberSchema, false), s.jRemember},
		{newTool("recall", "Recall", recallJDesc, recallJSchema, true), s.jRecall},
	}
}

type data struct {
	Data any `json:"data"`
}

type noInput struct{}

func (s *Server) jNow(ctx context.Context, raw []byte) (any, error) {
	if _, err := decode[noInput](raw); err != nil {
		return nil, err
	}
	return data{s.journal.Now()}, nil
}

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
