package fts

import (
	"context"
	"math"
	"testing"
)

// EvalCases scores the cases that name what they expect, and skips (never
// divides by zero for) a case that expects nothing.
func TestEvalCases_ScoresAndSkipsEmptyCases(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"a.md": "---\nid: mem_a\n---\n# Alpha\n\nsync retries back off\n",
		"b.md": "---\nid: mem_b\n---\n# Beta\n\ncache invalidation\n",
	})
	m, err := tv.ix.EvalCases(context.Background(), []Case{
		{Query: "sync retries", Expected: []string{"mem_a"}},
		{Query: "cache", Expected: nil},
	}, "lexical")
	if err != nil {
		t.Fatal(err)
	}
	if m.Cases != 1 || math.IsNaN(m.Recall20) || m.Recall20 != 1 || m.MRR != 1 || math.Abs(m.NDCG10-1) > 1e-9 {
		t.Fatalf("metrics %+v; want one case scored perfectly", m)
	}
}
