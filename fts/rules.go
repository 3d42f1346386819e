package fts

import (
	"context"
	"encoding/json"

	"github.com/lore-memory/lore/vault"
)

// rulesJSON is what the index keeps of a resource's guard rules.
func rulesJSON(r *vault.Resource) string {
	if len(r.Rules) == 0 {
		return ""
	}
	b, _ := json.Marshal(r.Rules)
	return string(b)
}

// RuleSource is a resource of the Effective Memory that writes guard rules
// or carries a tier, with what the guard and the loadout need of it.
type RuleSource struct {
	ResourceID  string
	Path        string
	Title       string
	Description string
	Status      string
	Tier        string
	Tags        []string
	DraftID     string
	Rules       []vault.RuleSpec
}

// RuleSources refreshes the index and returns the resources of project's
// Effective Memory that write guard rules or have a tier, by path. Superseded
// and deprecated ones are included (with their status); the guard skips them.
func (ix *Index) RuleSources(ctx context.Context, project string) ([]RuleSource, error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	vis, vargs := visibleTo(project)
	rows, err := ix.db.QueryContext(ctx, `SELECT resource_id, path, title, description, status, tier, tags, draft, guard
		FROM resources r WHERE r.indexed = 1 AND (r.guard != '' OR r.tier != '') AND `+vis+` ORDER BY r.path`, vargs...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []RuleSource
	for rows.Next() {
		var s RuleSource
		var tags, guard string
		if err := rows.Scan(&s.ResourceID, &s.Path, &s.Title, &s.Description, &s.Status, &s.Tier, &tags, &s.DraftID, &guard); err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(tags), &s.Tags)
		if guard != "" {
			if err := json.Unmarshal([]byte(guard), &s.Rules); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, translate(rows.Err())
}
