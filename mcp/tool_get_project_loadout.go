package mcp

import (
	"context"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/vault"
)

// The get_project_loadout tool.

var toolGetProjectLoadout = toolDef{
	name: "get_project_loadout", title: "Project loadout", readOnly: true,
	desc: loadoutDesc, schema: loadoutSchema,
	input: loadoutInput{}, call: (*Server).loadout,
}

const loadoutDesc = `Fetch the project's architectural blueprint from the vault in under 300 tokens: vision (tier L1 notes), stack, core invariants (tier L3 notes and the decisions that carry guard rules). Call this at the start of any new coding session or before planning major changes. With diff: true (the working tree's changes) or branch (changes since that base), the decisions whose rules cover the changed files come first.`

const loadoutSchema = `{
  "type": "object",
  "properties": {
    "project_name": {"type": "string", "description": "Optional; the server is bound to one project from its working directory, and another name is refused."},
    "diff": {"type": "boolean", "description": "Inspect the working tree's git changes and put the module-relevant decisions first."},
    "branch": {"type": "string", "description": "Optional base branch for comparison (e.g. 'main')."}
  }
}`

type loadoutInput struct {
	ProjectName *string `json:"project_name,omitempty"`
	Diff        *bool   `json:"diff,omitempty"`
	Branch      *string `json:"branch,omitempty"`
}

func (s *Server) loadout(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[loadoutInput](raw)
	if err != nil {
		return nil, err
	}
	if err := s.checkProjectName(in.ProjectName); err != nil {
		return nil, err
	}
	var changed []string
	if (in.Diff != nil && *in.Diff) || deref(in.Branch) != "" {
		if changed, err = guard.ChangedPaths(ctx, s.opt.WorkDir, deref(in.Branch)); err != nil {
			return nil, err
		}
	}
	text, err := guard.LoadoutFrom(ctx, s.ix, s.project, changed)
	if err != nil {
		return nil, err
	}
	return textResult{Text: text, Data: map[string]any{"project": s.project, "changed_paths": orNone(changed), "tokens": vault.EstimateTokens(text)}}, nil
}
