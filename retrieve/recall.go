package retrieve

import (
	"context"

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
	seen := map[int64]bool{}
	for _, c := range cs {
		if seen[c.RID] || len(out) >= limit {
			continue
		}
		seen[c.RID] = true
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
