package mcp

import (
	"context"
)

// The now tool.

var toolNow = toolDef{
	name: "now", title: "Now", readOnly: true,
	desc: nowDesc, schema: noArgs,
	input: noInput{}, call: (*Server).jNow,
}

const nowDesc = `Current time, local and UTC (RFC 3339, to the second, with the local offset). Call it before answering about the current date or time, or before recording something relative ("next Monday"), unless the conversation already states the current time.`

type noInput struct{}

func (s *Server) jNow(ctx context.Context, raw []byte) (any, error) {
	if _, err := decode[noInput](raw); err != nil {
		return nil, err
	}
	return data{s.journal.Now()}, nil
}
