package retrieve

import (
	"strings"
	"unicode/utf8"

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

// coverage is each candidate note's coverage of the query, the term of the
// note stage that scoreNotes weighs by coverWeight × the top fused score
// (published memory's, when any is a candidate): the share of the query's
// terms (tokenize.QueryTerms, the terms BM25 was asked for) that any of
// the note's candidates holds in its path, title, headings or text. BM25
// scores a section alone, so a note whose sections between them hold the
// whole question (a roundup whose one line names the three things asked
// for, a plugin's note whose title says one word and its text the other)
// lost to a note that repeats one rare word in its path and title. Every
// candidate of a note gains the same, so the order of a note's sections is
// left as it was. It is nil when the share would not tell notes apart:
// fewer than two candidates, or fewer than two terms.
func coverage(q string, cs []*candidate) map[int64]float64 {
	if len(cs) < 2 {
		return nil
	}
	ts := tokenize.QueryTerms(q)
	if len(ts) < 2 {
		return nil // one term: every candidate BM25 found holds it; it would only push the vector stage's finds down
	}
	want := make(map[string]int, len(ts))
	var prefixes []string // a lone CJK character matches the bigrams it starts, as BM25 asks for it
	// shortest[b] is the length of the shortest ASCII query term that
	// starts with byte b (0: none): an ASCII word's token starts with its
	// first byte and is no longer than it, so only a word that starts so
	// and is that long is worth stemming (tokenize.EachTokenIf).
	var shortest [128]int
	for i, t := range ts {
		want[t] = i
		if r, n := utf8.DecodeRuneInString(t); n == len(t) && vault.IsCJK(r) {
			prefixes = append(prefixes, t)
		}
		if b := t[0]; b < utf8.RuneSelf && (shortest[b] == 0 || len(t) < shortest[b]) {
			shortest[b] = len(t)
		}
	}
	maybe := func(term string) bool {
		b := term[0]
		return b >= utf8.RuneSelf || shortest[b] > 0 && len(term) >= shortest[b]
	}
	// Each note's terms held, and how many; a note's path and title are
	// read once, and no more of its text once it holds every term.
	type holding struct {
		held []bool
		n    int
	}
	notes := map[int64]*holding{}
	for _, c := range cs {
		h := notes[c.RID]
		mark := func(s string) {
			tokenize.EachTokenIf(s, maybe, func(tok string) {
				if i, ok := want[tok]; ok && !h.held[i] {
					h.held[i], h.n = true, h.n+1
				}
				for _, p := range prefixes {
					if i := want[p]; !h.held[i] && strings.HasPrefix(tok, p) {
						h.held[i], h.n = true, h.n+1
					}
				}
			})
		}
		if h == nil {
			h = &holding{held: make([]bool, len(ts))}
			notes[c.RID] = h
			mark(c.Path)
			mark(c.Title)
		}
		if h.n == len(ts) {
			continue
		}
		for _, hd := range c.HeadingPath {
			mark(hd)
		}
		mark(c.readableText())
	}
	held := make(map[int64]float64, len(notes))
	for rid, h := range notes {
		held[rid] = float64(h.n) / float64(len(ts))
	}
	return held
}
