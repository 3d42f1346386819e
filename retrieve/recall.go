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
// most, Drafts within their half (halfDrafts).
func recallPicks(cs []*candidate, limit int) []*candidate {
	var best []*candidate
	seen := map[int64]bool{}
	for _, c := range cs {
		if !seen[c.RID] {
			seen[c.RID] = true
			best = append(best, c)
		}
	}
	return halfDrafts(best, limit, func(c *candidate) bool { return c.DraftID != "" })
}

// halfDrafts is the first limit of items, in their order, Drafts taking at
// most half of the places (rounded down) while a published item is left
// to take one, and filling what is left after. Twenty Draft notes stuffed
// with a question's words took every place of recall and of search in
// their project (TestAttack_DraftsCannotCrowdOutPublishedMemoryFromRecall,
// …FromSearch), as they did of activate's (assembly's cut:drafts).
func halfDrafts[T any](items []T, limit int, draft func(T) bool) []T {
	if n := min(limit, len(items)); countFunc(items[:n], draft) <= limit/2 {
		return items[:n] // the first limit, as they are
	}
	var picked, spare []int
	drafts := 0
	for i, it := range items {
		if len(picked) >= limit {
			break
		}
		if draft(it) {
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
	out := make([]T, len(picked))
	for k, i := range picked {
		out[k] = items[i]
	}
	return out
}

func countFunc[T any](items []T, f func(T) bool) int {
	n := 0
	for _, it := range items {
		if f(it) {
			n++
		}
	}
	return n
}
