package retrieve

import (
	"context"
	"slices"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Recall runs activate's ranking (mode hybrid, lexical or vector) and
// returns the best limit resources, each once, best first.
func (p *Pipeline) Recall(ctx context.Context, q, mode, project string, limit int) ([]vault.RecallHit, error) {
	q = tokenize.CutQuery(q)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty")
	}
	cs, err := p.rank(ctx, q, mode, project, max(40, limit*4), map[string]int64{})
	if err != nil {
		return nil, err
	}
	words := tokenize.SnippetTerms(q)
	var out []vault.RecallHit
	for _, c := range recallPicks(cs, limit) {
		h := vault.RecallHit{ResourceID: c.ResourceID, Path: c.Path, Title: c.Title, Score: c.Final, Snippet: Snippet(markdown.ReadableText(c.Content), words, 160), DraftID: c.DraftID}
		var err error
		if h.Tier, err = p.look.Tier(ctx, c.RID); err != nil {
			return nil, err
		}
		if h.LinksIn, h.LinksOut, err = p.look.LinkCounts(ctx, c.RID, project); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// recallPicks is each note's best candidate, best first, limit notes at
// most; Drafts take at most half of the places (rounded down) while a
// published note is left to take one, and fill what is left after. Twenty
// Draft notes stuffed with a question's words took every place of recall
// in their project (TestAttack_DraftsCannotCrowdOutPublishedMemoryFromRecall),
// as they did of activate's (assembly's cut:drafts).
func recallPicks(cs []*candidate, limit int) []*candidate {
	var picked, spare []int
	seen := map[int64]bool{}
	drafts := 0
	for i, c := range cs {
		if seen[c.RID] || len(picked) >= limit {
			continue
		}
		seen[c.RID] = true
		if c.DraftID != "" {
			if drafts >= limit/2 {
				spare = append(spare, i)
				continue
			}
			drafts++
		}
		picked = append(picked, i)
	}
	picked = append(picked, spare[:min(len(spare), limit-len(picked))]...)
	slices.Sort(picked)
	out := make([]*candidate, len(picked))
	for k, i := range picked {
		out[k] = cs[i]
	}
	return out
}
