package retrieve

import (
	"os"
	"strings"

	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Experiment (issue 62, LORE_EXP_NOVEL=1; not a feature): the notes
// delivered, in an order that covers the question. The fragments assemble
// picked stay the same; after the first note, each next place goes to the
// first note (in ranked order) that holds a word of the question no note
// placed before it holds, or, when none does, to the next note in ranked
// order. Result diversification by the query's words (as xQuAD covers a
// query's aspects): three sibling notes that hold the same two words do
// not take the first three places from a note that holds the others.
var expNovel = os.Getenv("LORE_EXP_NOVEL") == "1"

// novelOrder reorders frags (delivered from cands, in step) by note, each
// note's fragments kept together at its note's place, in their order.
func novelOrder(query string, cands []*candidate, frags []vault.Fragment) []vault.Fragment {
	qterms := tokenize.ContentTerms(query)
	if len(qterms) == 0 || len(frags) < 2 {
		return frags
	}
	type note struct {
		held  map[string]bool
		frags []vault.Fragment
	}
	var notes []*note
	byPath := map[string]*note{}
	for i, f := range frags {
		n := byPath[f.Path]
		if n == nil {
			n = &note{held: map[string]bool{}}
			byPath[f.Path] = n
			notes = append(notes, n)
		}
		n.frags = append(n.frags, f)
		c := cands[i]
		for _, s := range []string{c.Title, strings.Join(c.HeadingPath, " "), c.Content} {
			tokenize.EachToken(s, func(t string, _ bool) {
				if qterms[t] {
					n.held[t] = true
				}
			})
		}
	}
	covered := map[string]bool{}
	out := make([]vault.Fragment, 0, len(frags))
	place := func(n *note) {
		out = append(out, n.frags...)
		for t := range n.held {
			covered[t] = true
		}
	}
	place(notes[0])
	rest := notes[1:]
	for len(rest) > 0 {
		pick := 0
		for i, n := range rest {
			adds := false
			for t := range n.held {
				if !covered[t] {
					adds = true
					break
				}
			}
			if adds {
				pick = i
				break
			}
		}
		place(rest[pick])
		rest = append(rest[:pick:pick], rest[pick+1:]...)
	}
	return out
}
