package retrieve

import (
	"os"
	"strings"

	"github.com/lore-memory/lore/tokenize"
)

// EXPERIMENT (not kept unless it passes; reverted otherwise): coord over
// one block. Designed before any run, from not-kept-coord.md's losses: the
// plain share rewarded a list for holding every word of the query across
// its items. Here the share is of the query's content words that the
// candidate's title and heading path hold together with its best single
// block — a paragraph (lines up to a blank line), one list item, one table
// row or one line of a code block — so that a list counts what one of its
// items says, and a roundup's line that names five of the question's words
// counts five. An exact match keeps its score. No parameter.
var xcoord = os.Getenv("LORE_COORD") == "block" || os.Getenv("LORE_COORD") == "places"

// xcoordPlaces: coord over one block picks the places, and the order of a
// note's sections among its places is the one without coord (orderSections
// reads each candidate's final score with what coord took from it given
// back).
var xcoordPlaces = os.Getenv("LORE_COORD") == "places"

func coordBlock(q string, ranked []*candidate) {
	qterms := contentTerms(q)
	if len(qterms) == 0 {
		return
	}
	for _, c := range ranked {
		if c.ExactRank > 0 {
			continue
		}
		base := map[string]bool{}
		add := func(m map[string]bool, s string) {
			tokenize.EachToken(s, func(t string, _ bool) {
				if qterms[t] {
					m[t] = true
				}
			})
		}
		add(base, c.Title)
		add(base, strings.Join(c.HeadingPath, " "))
		best := len(base)
		for _, b := range blocks(c.Content) {
			m := map[string]bool{}
			for t := range base {
				m[t] = true
			}
			add(m, b)
			best = max(best, len(m))
		}
		before := c.Fused
		c.Fused *= float64(best) / float64(len(qterms))
		c.coordLoss = before - c.Fused
		c.Final = c.Fused
	}
	sortCandidates(ranked)
}

// blocks splits text into paragraphs (lines up to a blank line), list
// items, table rows and headings, each its own block; inside a fenced code
// block each line is a block.
func blocks(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			flush()
			fence = !fence
			continue
		}
		switch {
		case t == "":
			flush()
		case fence, strings.HasPrefix(t, "|"), strings.HasPrefix(t, "#"):
			flush()
			out = append(out, t)
		case listItem(t):
			flush()
			cur = append(cur, t)
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// listItem reports whether a trimmed line starts a list item: "- ", "* ",
// "+ ", or digits and ". " or ") ".
func listItem(t string) bool {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
