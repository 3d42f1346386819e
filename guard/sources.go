package guard

import (
	"context"

	"github.com/lore-memory/lore/fts"
)

// Sources reads the rule-bearing resources of project's Effective Memory
// from the index (a freshness check included).
func Sources(ctx context.Context, ix *fts.Index, project string) ([]Source, error) {
	rows, err := ix.RuleSources(ctx, project)
	if err != nil {
		return nil, err
	}
	out := make([]Source, len(rows))
	for i, r := range rows {
		out[i] = Source{ResourceID: r.ResourceID, Path: r.Path, Title: r.Title, Status: r.Status, DraftID: r.DraftID,
			Rules: r.Rules, Description: r.Description, Tier: r.Tier, Tags: r.Tags}
	}
	return out, nil
}
