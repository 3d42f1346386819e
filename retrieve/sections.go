package retrieve

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
)

// Which sections of a note to deliver is decided by the sections' own text.
//
// Every unit of a note carries the note's path, title and description in
// its FTS row, so a query that matches those matches every section of the
// note alike, and BM25's length normalization then favours the shortest
// section: "what must I check before shipping a new version?" ranked "After
// the release" (16 tokens) above "Before the release", and the per-note cap
// kept whichever two came first. The note's evidence says where the note
// ranks; orderSections then gives the places its sections hold, best first,
// to the sections that match the query best by their own heading and body.

const (
	sectionHeadingWeight = 4    // a heading word counts as the heading column does
	sectionStopWeight    = 0.25 // an English stop word still tells "before" from "after"
	sectionK1, sectionB  = 1.2, 0.75
	// sectionLabelWeight is what the query's words in a section's own
	// heading add to its key, at most (a candidate's label, scoreSections).
	sectionLabelWeight = 1.0
	// overviewWeight is the share of its own score that a note's overview
	// keeps among the note's sections (isOverview, shortLeadWords).
	overviewWeight = 0.3
	// shortLeadWords is the most words a lead may have and still count as
	// its note's description, when another of the note's candidates is
	// not a template: a paragraph at most (see scoreSections).
	shortLeadWords = 120
)

// orderSections reorders, within each resource, the candidates of ranked
// among the places they hold, by a key made within the note: the own score
// over its largest, times one plus the final score over its largest, plus
// sectionLabelWeight times the heading's label over its largest (ties:
// vector similarity, then the order of the note). A template (markShared),
// which the assembly cuts, takes the note's last places: a footer's "This
// note in GitHub" holds the query's "notes" as a label, and took a plugin
// note's place from its own line, which fell to the footer's score. Each
// place keeps its final score, so the ranking stays sorted. SectionScore
// records each candidate's own score.
func orderSections(q string, ranked []*candidate) {
	places := map[int64][]int{}
	for i, c := range ranked {
		places[c.RID] = append(places[c.RID], i)
	}
	var qterms []sectionTerm
	var acronyms *acronymIndex
	for _, ps := range places {
		if len(ps) < 2 {
			continue
		}
		if qterms == nil {
			qterms = sectionQueryTerms(q)
			acronyms = queryAcronyms(q, qterms)
		}
		group := make([]*candidate, len(ps))
		finals := make([]float64, len(ps))
		for k, i := range ps {
			group[k], finals[k] = ranked[i], ranked[i].Final
		}
		scoreSections(qterms, acronyms, group)
		maxS, maxF, maxL := 0.0, 0.0, 0.0
		for _, c := range group {
			maxS, maxF, maxL = math.Max(maxS, c.SectionScore), math.Max(maxF, c.Final), math.Max(maxL, c.label)
		}
		key := func(c *candidate) float64 {
			if c.template {
				return -1 // never delivered: it holds its note's last place
			}
			if maxS == 0 || maxF == 0 {
				return 0
			}
			k := c.SectionScore / maxS * (1 + c.Final/maxF)
			if maxL > 0 {
				k += sectionLabelWeight * c.label / maxL
			}
			return k
		}
		sort.SliceStable(group, func(a, b int) bool {
			x, y := group[a], group[b]
			if kx, ky := key(x), key(y); kx != ky {
				return kx > ky
			}
			if x.VectorScore != y.VectorScore {
				return x.VectorScore > y.VectorScore
			}
			return x.Start < y.Start
		})
		for k, i := range ps {
			ranked[i] = group[k]
			ranked[i].Final = finals[k]
		}
	}
}

type sectionTerm struct {
	tok    string
	weight float64
}

// sectionQueryTerms returns the query's distinct tokens, stop words
// included at a lower weight.
func sectionQueryTerms(q string) []sectionTerm {
	var out []sectionTerm
	seen := map[string]bool{}
	tokenize.EachToken(tokenize.MaskPhrasing(q), func(t string, stop bool) {
		w := 1.0
		if stop {
			w = sectionStopWeight
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, sectionTerm{t, w})
		}
	})
	if len(out) > tokenize.MaxQueryTerms {
		out = out[:tokenize.MaxQueryTerms]
	}
	return out
}

// scoreSections sets SectionScore of each candidate of one resource: BM25
// over the sections of the group as a collection of their own (a term in
// every section tells nothing about which to deliver), the heading counted
// at sectionHeadingWeight unless it is the note's title (isTitle), a lead
// that is the note's overview at overviewWeight (isOverview, or a lead of
// at most shortLeadWords words when the note has a candidate of its own
// beside it: a category's "Plugins that add an item to the status bar.",
// a template's or a talk's introduction, which a question restating the
// title matches by the title's words, while the list or the part it asks
// for is in the next section; templates must be marked before); and each
// one's label: the idf, within the group, of the query's words in the
// section's own heading, the note's title words left out (they say which
// note, not which section). A heading names what its section is about,
// but in the BM25 above it shares one saturating count with the body: "The
// following CSS classes are supported:" gained little from "classes" over
// a two-line introduction that says "customize" twice. An acronym of the
// query's words (acronyms, from queryAcronyms) counts, in heading and body,
// as each of the words it stands for.
func scoreSections(qterms []sectionTerm, acronyms *acronymIndex, group []*candidate) {
	want := make(map[string]int, len(qterms))
	for i, t := range qterms {
		want[t.tok] = i
	}
	// Every candidate of the group is of one note, with one title.
	inTitle := map[string]bool{}
	tokenize.EachToken(group[0].Title, func(t string, _ bool) { inTitle[t] = true })
	tfs := make([][]float64, len(group))
	inHeading := make([][]bool, len(group))
	lens := make([]float64, len(group))
	overview := make([]bool, len(group))
	df := make([]int, len(qterms))
	avg := 0.0
	for k, c := range group {
		tf := make([]float64, len(qterms))
		count := func(s string, w float64) {
			tokenize.EachToken(s, func(t string, _ bool) {
				lens[k] += w
				if i, ok := want[t]; ok {
					tf[i] += w
				}
			})
			if acronyms != nil {
				eachAcronym(s, func(a string) {
					for _, i := range acronyms.stand(a) {
						tf[i] += w
					}
				})
			}
		}
		body := c.Content
		n := len(c.HeadingPath)
		lead := n == 0 || isTitle(c.HeadingPath[n-1], c.Title) // the note's lead section
		if n > 0 {
			body = withoutHeadingLine(body)
			if !lead {
				count(c.HeadingPath[n-1], sectionHeadingWeight)
				inHeading[k] = labelTerms(want, acronyms, c.HeadingPath[n-1], inTitle)
			}
		}
		readable := markdown.ReadableText(body) // as the index reads it: no URLs, comments or tags
		count(readable, 1)
		overview[k] = lead && (isOverview(readable) || fewWords(readable, shortLeadWords) && hasOther(group, c))
		for i, f := range tf {
			if f > 0 {
				df[i]++
			}
		}
		tfs[k] = tf
		avg += lens[k]
	}
	avg /= float64(len(group))
	n := float64(len(group))
	idf := make([]float64, len(qterms))
	for i := range qterms {
		idf[i] = math.Log(1 + (n-float64(df[i])+0.5)/(float64(df[i])+0.5))
	}
	for k, c := range group {
		s := 0.0
		for i, f := range tfs[k] {
			if f == 0 {
				continue
			}
			norm := 1 - sectionB + sectionB*lens[k]/math.Max(avg, 1)
			s += qterms[i].weight * idf[i] * f * (sectionK1 + 1) / (f + sectionK1*norm)
		}
		if overview[k] {
			s *= overviewWeight
		}
		c.SectionScore, c.label = s, 0
		for i, in := range inHeading[k] {
			if in {
				c.label += qterms[i].weight * idf[i]
			}
		}
	}
}

// fewWords reports whether s has at most n words (as strings.Fields counts
// them), without splitting it: a lead is read on every activate.
func fewWords(s string, n int) bool {
	words, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			if words++; words > n {
				return false
			}
		}
		in = !space
	}
	return true
}

// hasOther reports whether group has a candidate other than c that is not
// a template (markShared): a section of the note's own.
func hasOther(group []*candidate, c *candidate) bool {
	for _, o := range group {
		if o != c && !o.template {
			return true
		}
	}
	return false
}

// labelTerms marks which of the query's terms (want: term → index) are in
// heading, themselves or by an acronym of theirs (acronyms), and not among
// the note's title terms (inTitle).
func labelTerms(want map[string]int, acronyms *acronymIndex, heading string, inTitle map[string]bool) []bool {
	out := make([]bool, len(want))
	tokenize.EachToken(heading, func(t string, _ bool) {
		if i, ok := want[t]; ok && !inTitle[t] {
			out[i] = true
		}
	})
	if acronyms != nil {
		eachAcronym(heading, func(a string) {
			if inTitle[strings.ToLower(a)] {
				return
			}
			for _, i := range acronyms.stand(a) {
				out[i] = true
			}
		})
	}
	return out
}

// aboutTheDocument matches a sentence about the text it is in: "This note
// describes…", "In this guide…", "This was originally posted in the
// forum…", "本文介绍…" (本 not after another Han character but 在, so
// that 日本文化 is not "this article").
var aboutTheDocument = regexp.MustCompile(`(?i)\b(?:this|the present) (?:note|article|page|guide|document|post|tutorial|write-?up)\b|\b(?:originally|first) (?:posted|published|written)\b|(?:^|[^\p{Han}]|在)本(?:文|篇|页|笔记)|这篇`)

// isOverview reports whether a note's lead section (no heading, or the
// note's title) is an overview of the note: it says what the note is
// about ("This note describes the motivation for writing automated tests…")
// rather than saying it. A question that restates the title matches such a
// lead by the title's words, and the lead took its note's first place from
// the section that answers; among its note's sections it keeps
// overviewWeight of its own score. A lead that only speaks of the subject
// (a definition, the answer itself) keeps all of it.
func isOverview(readable string) bool { return aboutTheDocument.MatchString(readable) }

// isTitle reports whether a heading is the note's title, as the heading of
// a note's lead section usually is. Every section of the note carries the
// title in its row, so the title's words say which note, not which of its
// sections: the lead section's heading is not counted as its own words. A
// title taken from the heading reads its links as shown (markdown.LinkText).
func isTitle(heading, title string) bool {
	return strings.EqualFold(strings.TrimSpace(markdown.LinkText(heading)), strings.TrimSpace(title))
}

// withoutHeadingLine is a section's text after its first line when that
// line is an ATX heading (the section's own, counted from HeadingPath); a
// later part of a long section, or a line that starts with a tag, is kept.
func withoutHeadingLine(s string) string {
	line, rest, _ := strings.Cut(s, "\n")
	marks := len(line) - len(strings.TrimLeft(line, "#"))
	if marks < 1 || marks > 6 || (len(line) > marks && line[marks] != ' ' && line[marks] != '\t') {
		return s
	}
	return rest
}
