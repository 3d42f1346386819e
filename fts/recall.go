package fts

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// RecallHit is one resource as recall_memory returns it: its best unit's
// score and a snippet, its tier and its link counts.
type RecallHit struct {
	ResourceID string  `json:"resource_id"`
	Path       string  `json:"path"`
	Title      string  `json:"title"`
	Tier       string  `json:"tier"`
	Score      float64 `json:"score"`
	LinksIn    int     `json:"links_in"`
	LinksOut   int     `json:"links_out"`
	Snippet    string  `json:"snippet"`
	DraftID    string  `json:"draft_id,omitempty"`
}

// Recall runs activate's ranking (mode hybrid, lexical or vector) and
// returns the best limit resources, each once, best first.
func (ix *Index) Recall(ctx context.Context, q, mode, project string, limit int) ([]RecallHit, error) {
	q = CutQuery(q)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty")
	}
	cs, err := ix.rank(ctx, q, mode, project, max(40, limit*4), map[string]int64{})
	if err != nil {
		return nil, err
	}
	words := snippetTerms(q)
	var out []RecallHit
	seen := map[int64]bool{}
	for _, c := range cs {
		if seen[c.RID] || len(out) >= limit {
			continue
		}
		seen[c.RID] = true
		h := RecallHit{ResourceID: c.ResourceID, Path: c.Path, Title: c.Title, Score: c.Final, Snippet: Snippet(c.Content, words, 160), DraftID: c.DraftID}
		if err := ix.db.QueryRowContext(ctx, `SELECT tier FROM resources WHERE rid = ?`, c.RID).Scan(&h.Tier); err != nil {
			return nil, translate(err)
		}
		var err error
		if h.LinksIn, h.LinksOut, err = ix.linkCounts(ctx, c.RID, project); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// Compact is the recall line of specs/003:
// !μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>
func (h RecallHit) Compact() string {
	tier := h.Tier
	if tier == "" {
		tier = "-"
	}
	snip := strings.ReplaceAll(h.Snippet, "|", "/")
	score := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(h.Score, 'f', 3, 64), "0"), ".")
	if score == "" || score == "-" || score == "-0" {
		score = "0"
	}
	return fmt.Sprintf("!μ:%s|%s|score:%s|links:%d/%d § %s", tier, h.Path, score, h.LinksIn, h.LinksOut, snip)
}
