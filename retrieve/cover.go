package retrieve

import (
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// coverWeight is how much a note's coverage of the query adds to each of
// its candidates' scores, as a share of the top candidate's: a note whose
// candidate sections hold every one of the query's terms gains 0.4 of the
// top score. Fitted to the Hub's questions, and the same fitted to either
// half of them alone (docs/decisions/note-coverage.md: scripts/eval/fitceiling
// -depth 40 -features "lore score,terms held").
const coverWeight = 0.4

// coverNotes adds to each candidate's Final coverWeight × the top Final ×
// its note's coverage: the share of the query's terms (tokenize.QueryTerms,
// the terms BM25 was asked for) that any of the note's candidates holds in
// its path, title, headings or text. BM25 scores a section alone, so a
// note whose sections between them hold the whole question (a roundup
// whose one line names the three things asked for, a plugin's note whose
// title says one word and its text the other) lost to a note that repeats
// one rare word in its path and title. Every candidate of a note gains
// the same, so the order of a note's sections is left as it was; the list
// is sorted again (exact matches still first).
func coverNotes(q string, cs []*candidate) {
	if len(cs) < 2 {
		return
	}
	ts := tokenize.QueryTerms(q)
	if len(ts) < 2 {
		return // one term: every candidate holds it
	}
	want := make(map[string]int, len(ts))
	var prefixes []string // a lone CJK character matches the bigrams it starts, as BM25 asks for it
	for i, t := range ts {
		want[t] = i
		if r, n := utf8.DecodeRuneInString(t); n == len(t) && vault.IsCJK(r) {
			prefixes = append(prefixes, t)
		}
	}
	held := map[int64][]bool{}
	for _, c := range cs {
		h := held[c.RID]
		if h == nil {
			h = make([]bool, len(ts))
			held[c.RID] = h
		}
		mark := func(s string) {
			tokenize.EachToken(s, func(tok string, _ bool) {
				if i, ok := want[tok]; ok {
					h[i] = true
				}
				for _, p := range prefixes {
					if strings.HasPrefix(tok, p) {
						h[want[p]] = true
					}
				}
			})
		}
		mark(c.Path)
		mark(c.Title)
		for _, hd := range c.HeadingPath {
			mark(hd)
		}
		mark(markdown.ReadableText(c.Content))
	}
	top := 0.0
	for _, c := range cs {
		top = max(top, c.Final)
	}
	for _, c := range cs {
		n := 0
		for _, in := range held[c.RID] {
			if in {
				n++
			}
		}
		c.Final += coverWeight * top * float64(n) / float64(len(ts))
	}
	sortCandidates(cs)
}
