package tokenize

import (
	"strings"

	"github.com/lore-memory/lore/vault"
)

// Chinese question phrasing: the words that make a sentence a question
// ("怎么", "如何", "哪些", "由哪几部分组成", "是什么", "为什么", "区别")
// say what kind of answer is wanted, not what it is about. Cut into
// character pairs they were content like any other: "由哪几部分组成"
// matched a heading of that shape in another note, above the note the
// question named. A query's phrasing is left out of its terms
// (MaskPhrasing), as English stop words are; a query of nothing else
// keeps it.

// phrasing is the question phrasing MaskPhrasing cuts, longest first.
var phrasing = []string{
	"由哪几部分组成", "由哪些部分组成", "有哪几种", "有哪几个", "有哪些", "有什么", "是什么", "什么是",
	"为什么", "怎么办", "怎么样", "怎么做", "怎么用", "怎样", "怎么", "如何", "哪些", "哪几", "哪个",
	"哪种", "什么", "区别", "有何", "请问", "一下", "吗", "呢",
}

// MaskPhrasing returns q with its Chinese question phrasing replaced by
// spaces; q itself when it has none (or holds nothing else).
func MaskPhrasing(q string) string {
	if !hasCJK(q) {
		return q
	}
	out := q
	for _, p := range phrasing {
		out = strings.ReplaceAll(out, p, " ")
	}
	if strings.TrimSpace(out) == "" {
		return q
	}
	return out
}

func hasCJK(s string) bool { return strings.IndexFunc(s, vault.IsCJK) >= 0 }

// ContentTerms are a query's distinct tokens that are neither stop words
// nor Chinese question phrasing (MaskPhrasing): the words the prompt
// hook's relevance bar counts, and those lore eval --misses compares.
func ContentTerms(q string) map[string]bool {
	out := map[string]bool{}
	EachToken(MaskPhrasing(q), func(t string, stop bool) {
		if !stop {
			out[t] = true
		}
	})
	return out
}
