package retrieve

import (
	"math/bits"
	"strings"

	"github.com/lore-memory/lore/tokenize"
)

// Coord: how much of the question one place of a note answers.
//
// BM25 adds up each word's evidence, so a note whose title says two of the
// question's words ("GPT-3 Notes", for "Readwise Reader's public beta with
// GPT-3 summaries") outranks a roundup's line that says all six, and a
// list outranks the item that answers. coordinate multiplies each
// candidate's fused score by the share of the query's content words
// (contentTerms: stop words and Chinese question phrasing left out) that
// its note's title and its heading path hold together with its best single
// block: a paragraph, one list item, one table row, a heading line, or one
// line of a fenced code block. A list counts what one of its items says,
// not what all of them say together; a candidate whose title and headings
// hold every word keeps its whole score. An exact match keeps its score.
//
// The share orders the places and nothing else. Section order (which of a
// note's sections take its places) and the weak cut read each candidate's
// score with what coord took given back (withoutCoord): applied to them,
// coord moved a note's lead below a subsection that shares its words, and
// cut the rest of a note behind its copy's answer (docs/decisions/coord.md
// has the measurements of each design).
func coordinate(q string, ranked []*candidate) {
	terms := coordTerms(q)
	if len(terms) == 0 {
		return
	}
	for _, c := range ranked {
		if c.ExactRank > 0 {
			continue
		}
		base := coordMask(terms, c.Title) | coordMask(terms, strings.Join(c.HeadingPath, " "))
		best := bits.OnesCount64(base)
		eachBlock(terms, c.Content, func(block uint64) {
			best = max(best, bits.OnesCount64(base|block))
		})
		share := float64(best) / float64(len(terms))
		c.Coord = share
		c.coordLoss = c.Fused * (1 - share)
		c.Fused -= c.coordLoss
		c.Final = c.Fused
	}
	sortCandidates(ranked)
}

// withoutCoord is a candidate's final score with what coord took given back:
// the score section order and the weak cut read.
func withoutCoord(c *candidate) float64 { return c.Final + c.coordLoss }

// coordTerms are the query's distinct content words in the order it says
// them, at most 64: each is a bit of a mask.
func coordTerms(q string) map[string]uint64 {
	out := map[string]uint64{}
	tokenize.EachToken(tokenize.MaskPhrasing(q), func(t string, stop bool) {
		if _, seen := out[t]; !stop && !seen && len(out) < 64 {
			out[t] = 1 << len(out)
		}
	})
	return out
}

// coordMask is the set of terms that s holds.
func coordMask(terms map[string]uint64, s string) uint64 {
	var m uint64
	tokenize.EachToken(s, func(t string, _ bool) { m |= terms[t] })
	return m
}

// eachBlock calls yield with the terms each block of text holds: lines up
// to a blank line make a paragraph; a list item starts a block of its own
// (its continuation lines belong to it); a table row, a heading line and
// each line of a fenced code block are blocks alone.
func eachBlock(terms map[string]uint64, text string, yield func(uint64)) {
	var cur uint64
	open, fence := false, false
	flush := func() {
		if open {
			yield(cur)
		}
		cur, open = 0, false
	}
	alone := func(l string) {
		flush()
		yield(coordMask(terms, l))
	}
	for len(text) > 0 {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			fence = !fence
		case t == "":
			flush()
		case fence, strings.HasPrefix(t, "|"), strings.HasPrefix(t, "#"):
			alone(t)
		case listItem(t):
			flush()
			cur, open = coordMask(terms, t), true
		default:
			cur |= coordMask(terms, t)
			open = true
		}
	}
	flush()
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
