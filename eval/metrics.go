package eval

import (
	"math"
	"sort"
)

// scoreRanking returns nDCG@10 (linear gain, log2 discount), Recall@100 and
// the reciprocal rank of the first relevant document within 10: BEIR's.
func scoreRanking(ranked []string, rel map[string]int) (ndcg, recall, rr float64) {
	return rankMetrics(ranked, rel, 10, 100, 10)
}

// rankMetrics is the one implementation of the ranking metrics (BEIR's and
// the saved cases'): nDCG@n with graded gains (linear gain, log2 discount,
// the ideal order of every judged grade, capped at n), Recall@r, and the
// reciprocal rank of the first relevant document within m (m <= 0:
// anywhere). A document ranked twice counts once, at its first place.
func rankMetrics(ranked []string, rel map[string]int, n, r, m int) (ndcg, recall, rr float64) {
	var dcg float64
	found := 0
	seen := map[string]bool{}
	pos := 0
	for _, id := range ranked {
		if seen[id] {
			continue
		}
		seen[id] = true
		g := rel[id]
		if g > 0 {
			if pos < n {
				dcg += float64(g) / math.Log2(float64(pos+2))
			}
			if rr == 0 && (m <= 0 || pos < m) {
				rr = 1 / float64(pos+1)
			}
			if pos < r {
				found++
			}
		}
		pos++
	}
	var grades []int
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	var idcg float64
	for i, g := range grades {
		if i >= n {
			break
		}
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		ndcg = dcg / idcg
	}
	if len(grades) > 0 {
		recall = float64(found) / float64(len(grades))
	}
	return ndcg, recall, rr
}
