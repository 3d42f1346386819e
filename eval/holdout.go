package eval

import "hash/fnv"

// Held-out questions. The table's --misses lists each question lore did
// not answer first, and a ranking change is then designed by reading them:
// the questions read are the ones the change is made for, and a gain on
// them says little about the others (docs/decisions/not-kept-novelty-order.md:
// every question that design lifted was among the misses it was read from).
// A split by a seed sets half of each vault's questions aside before
// anything is read: --misses lists only the other half, and the table
// reports the held-out half's figures on their own, so a design is judged
// on questions nobody read for it, as well as on sets written after it.

// HeldOut says whether the question query is in the held-out half of the
// split seed names. The half depends on the seed and the question's text
// alone (FNV-1a, 64 bits), so it does not change as sets are added, and
// another seed gives another split.
func HeldOut(seed, query string) bool {
	h := fnv.New64a()
	h.Write([]byte(seed))
	h.Write([]byte{0})
	h.Write([]byte(query))
	return h.Sum64()&1 == 1
}

// Strict is q's figures in the strict reading for the ranking r: only the
// section q names, and its note, answer.
func Strict(q Question, r Ranked) JudgedFigures {
	f, _ := Judgments{}.Read(q, r)
	return f
}
