package eval

import (
	"fmt"
	"testing"
)

func TestScoreRanking(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	ndcg, recall, rr := scoreRanking([]string{"x", "a", "y", "b"}, rel)
	// DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
	if want := (0.6309297535714575 + 0.43067655807339306) / 1.6309297535714575; abs(ndcg-want) > 1e-12 {
		t.Errorf("ndcg = %v, want %v", ndcg, want)
	}
	if recall != 1 || rr != 0.5 {
		t.Errorf("recall, rr = %v, %v; want 1, 0.5", recall, rr)
	}
	if n, r, m := scoreRanking(nil, rel); n != 0 || r != 0 || m != 0 {
		t.Errorf("empty ranking scored %v %v %v", n, r, m)
	}
	// Graded judgments: gains are the grades; the ideal order puts grade 2 first.
	graded := map[string]int{"a": 2, "b": 1}
	ndcg, _, _ = scoreRanking([]string{"b", "a"}, graded)
	// DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3)
	if want := (1 + 2/1.584962500721156) / (2 + 1/1.584962500721156); abs(ndcg-want) > 1e-12 {
		t.Errorf("graded ndcg = %v, want %v", ndcg, want)
	}
	// A document ranked twice counts once, at its first place.
	ndcg, recall, rr = scoreRanking([]string{"x", "a", "a", "b"}, rel)
	if want := (0.6309297535714575 + 0.5) / 1.6309297535714575; abs(ndcg-want) > 1e-12 || recall != 1 || rr != 0.5 {
		t.Errorf("duplicates: ndcg %v (want %v), recall %v, rr %v", ndcg, want, recall, rr)
	}
	// More than ten relevant documents: the ideal DCG stops at ten, so a
	// perfect top ten scores 1 while recall counts all of them.
	many := map[string]int{}
	var ranking []string
	for i := 0; i < 15; i++ {
		id := fmt.Sprintf("d%02d", i)
		many[id] = 1
		if i < 10 {
			ranking = append(ranking, id)
		}
	}
	ndcg, recall, _ = scoreRanking(ranking, many)
	if abs(ndcg-1) > 1e-12 || abs(recall-10.0/15) > 1e-12 {
		t.Errorf(">10 relevant: ndcg %v, recall %v; want 1, 2/3", ndcg, recall)
	}
	// The cases' cut-offs: Recall@20 and the reciprocal rank anywhere.
	_, recall, rr = rankMetrics(append(make([]string, 0), "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "hit"), map[string]int{"hit": 1}, 10, 20, 0)
	if recall != 1 || abs(rr-1.0/12) > 1e-12 {
		t.Errorf("cases' cut-offs: recall %v, rr %v; want 1, 1/12", recall, rr)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
