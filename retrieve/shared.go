package retrieve

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// Text that several notes hold is delivered once, and a short one not at
// all: the shared stage.
//
// Real vaults are written from templates: every note of the Obsidian Hub
// ends with the same footer ("This note in GitHub", three links whose
// destinations spell the note's own file name), starts with a row of badge
// images, and keeps empty headings ("## Features", "## Author of") until
// someone fills them in. Such a section matches a query only by the path
// and title every section of its note carries, so it ranks beside the
// note's real section and takes the place of another note's answer: for
// "encrypt secrets inside my notes" five footers of encryption plugins
// were delivered, 200 tokens each, and nothing in them is about
// encryption. Vaults keep copies too: the Hub holds "An Introduction to
// Dataview" and "An Introduction to Dataview Slides", the same talk in two
// layouts, section for section but for a separator and an emphasis; a
// sync client leaves "Note (conflicted copy).md" beside "Note.md";
// Obsidian names a duplicated note "Note 1.md". Activate delivered both
// copies, so for "give a YAML key more than one value" the slides' "YAML
// Lists" came first, the guide's second, and the same text cost its tokens
// twice.
//
// Both are found by one reading of the candidates' texts (sharedGroups):
// two candidates of different notes hold one text when their readable
// words (as the index reads them: no link destinations, comments or tags)
// share at least copyJaccard of their windows of copyShingle words; a text
// shorter than a window is compared whole. A group of texts that are the
// same word for word (punctuation kept) and at most templateWords words is
// a template: none of its notes' answer, each cut as cut:template (an
// exact match excepted: a name the query gave asks for that note), unless
// one published note and Drafts hold it, whose copies of it cannot take it
// from the published note. Of any other group one is kept (keptBefore), the original, which takes the
// group's best place once the sections are ordered (keepOriginals); the
// others are cut as cut:copy once it is delivered. A guide's short example
// and its slides' copy differ by their markup, and are a copy, not a
// template.
const (
	templateWords = 20
	copyShingle   = 5
	copyJaccard   = 0.8
	copyBytes     = 16 << 10 // a longer raw text is not compared (units are far shorter)
	copySketch    = 16       // hashes of each pair read before the whole sets (sketchesMeet)
)

// markShared marks the templates among ranked (for the section order,
// which gives them their notes' last places, and for the assembly's cut)
// and returns the groups of copies, each best place first, for
// keepOriginals once the sections are ordered.
func markShared(ranked []*candidate) [][]*candidate {
	groups, keys := sharedGroups(ranked)
	var copies [][]*candidate
	for _, places := range groups {
		template := true
		published := map[int64]bool{} // the published notes that hold it
		for _, i := range places {
			template = template && keys[i] != "" && keys[i] == keys[places[0]]
			if ranked[i].DraftID == "" {
				published[ranked[i].RID] = true
			}
		}
		// A Draft cannot make a published text a template: held by one
		// published note, the text is that note's, and a Draft's copy of
		// it is a copy (keptBefore keeps the published one).
		template = template && len(published) != 1
		if !template {
			g := make([]*candidate, len(places))
			for k, i := range places {
				g[k] = ranked[i]
			}
			copies = append(copies, g)
			continue
		}
		for _, i := range places {
			if ranked[i].ExactRank == 0 {
				ranked[i].template = true
			}
		}
	}
	return copies
}

// sharedGroups groups the candidates of ranked that hold one text with
// another note's candidate (see the top of this file). Each group lists
// its places best first; keys[i] is ranked[i]'s templateKey, or "" for a
// text too long to be a template. Pairs are read in full only when their
// sketches meet (sketchesMeet).
func sharedGroups(ranked []*candidate) (groups [][]int, keys []string) {
	texts := make([]copyText, len(ranked))
	var buf []uint64
	for i, c := range ranked {
		if len(c.Content) <= copyBytes {
			t := &texts[i]
			t.windows, buf = windows(c.readableText(), buf)
			t.sketch = bottom(t.windows, copySketch)
			t.read = true
		}
	}
	parent := make([]int, len(ranked))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	found := false
	for _, pr := range sketchPairs(texts) {
		i, j := pr[0], pr[1]
		x, y := &texts[i], &texts[j]
		if ranked[i].RID != ranked[j].RID && sketchesMeet(x.sketch, y.sketch) && nearCopies(x.set(), y.set()) {
			parent[root(j)] = root(i)
			found = true
		}
	}
	if !found {
		return nil, nil
	}
	byRoot := make([][]int, len(ranked))
	for i := range ranked {
		byRoot[root(i)] = append(byRoot[root(i)], i)
	}
	keys = make([]string, len(ranked))
	for i := range ranked {
		if g := byRoot[root(i)]; len(g) > 1 && g[0] == i { // each group once, by its best place
			groups = append(groups, g)
			for _, k := range g {
				if texts[k].read {
					keys[k], _ = templateKey(ranked[k])
				}
			}
		}
	}
	return groups, keys
}

// sketchPairs returns the pairs (i < j) of read texts whose sketches hold a
// hash in common, in order: the only pairs whose sketches can meet (every
// text has a window, so an empty sketch is no text's). Found through the
// sorted hashes, not by reading every pair's sketches.
func sketchPairs(texts []copyText) [][2]int {
	type held struct {
		h uint64
		i int
	}
	all := make([]held, 0, len(texts)*copySketch)
	for i := range texts {
		if texts[i].read {
			for _, h := range texts[i].sketch {
				all = append(all, held{h, i})
			}
		}
	}
	slices.SortFunc(all, func(a, b held) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		return cmp.Compare(a.i, b.i)
	})
	var pairs [][2]int
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && all[hi].h == all[lo].h {
			hi++
		}
		for a := lo; a < hi; a++ {
			for b := a + 1; b < hi; b++ {
				pairs = append(pairs, [2]int{all[a].i, all[b].i})
			}
		}
		lo = hi
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	return slices.Compact(pairs)
}

// keepOriginals keeps one of each group of copies (keptBefore), which
// takes the group's best place in ranked (each place keeps its final
// score); the others are cut as cut:copy once it is delivered.
func (p *Pipeline) keepOriginals(ctx context.Context, ranked []*candidate, copies [][]*candidate, project string) error {
	if len(copies) == 0 {
		return nil
	}
	at := make(map[*candidate]int, len(ranked))
	for i, c := range ranked {
		at[c] = i
	}
	inLinks := map[int64]int{}
	for _, g := range copies {
		places := make([]int, len(g))
		for k, c := range g {
			places[k] = at[c]
			if _, ok := inLinks[c.RID]; !ok {
				in, _, err := p.look.LinkCounts(ctx, c.RID, project)
				if err != nil {
					return err
				}
				inLinks[c.RID] = in
			}
		}
		slices.Sort(places)
		keep := places[0]
		for _, i := range places[1:] {
			if keptBefore(ranked[i], ranked[keep], inLinks) {
				keep = i
			}
		}
		best := places[0]
		if keep != best {
			ranked[keep].Final, ranked[best].Final = ranked[best].Final, ranked[keep].Final
			ranked[keep], ranked[best] = ranked[best], ranked[keep]
			at[ranked[keep]], at[ranked[best]] = keep, best
		}
		for _, i := range places[1:] {
			ranked[i].copyOf = ranked[best]
		}
	}
	return nil
}

// keptBefore reports whether copy a is kept rather than copy b (both of one
// group, a placed below b): published before a Draft's, an exact match
// before the rest, then the note more other notes link to, then the
// original by name (namedAfter).
func keptBefore(a, b *candidate, inLinks map[int64]int) bool {
	if (a.DraftID == "") != (b.DraftID == "") {
		return a.DraftID == ""
	}
	if (a.ExactRank > 0) != (b.ExactRank > 0) {
		return a.ExactRank > 0
	}
	if inLinks[a.RID] != inLinks[b.RID] {
		return inLinks[a.RID] > inLinks[b.RID]
	}
	return namedAfter(b.Path, a.Path)
}

// namedAfter reports whether the note at copy is named after the note at
// original: its file name (no extension, case folded) extends the
// original's, as "An Introduction to Dataview Slides" extends "An
// Introduction to Dataview" and "Note 1" extends "Note".
func namedAfter(copy, original string) bool {
	c := strings.ToLower(strings.TrimSuffix(path.Base(copy), path.Ext(copy)))
	o := strings.ToLower(strings.TrimSuffix(path.Base(original), path.Ext(original)))
	return len(c) > len(o) && strings.HasPrefix(c, o)
}

// copyText is what sharedGroups reads of a candidate's text: its windows'
// hashes (sorted and made a set only when a pair's sketches meet) and
// their bottom-k sketch.
type copyText struct {
	read, sorted bool
	windows      []uint64
	sketch       []uint64
}

// set is the sorted set of the text's window hashes.
func (t *copyText) set() []uint64 {
	if !t.sorted {
		t.sorted = true
		slices.Sort(t.windows)
		t.windows = slices.Compact(t.windows)
	}
	return t.windows
}

// windows returns the hashes of readable's windows of copyShingle words
// (readable is a text as a reader reads it, candidate.readableText), in
// the text's order; a text of fewer words is one window, the hash of all
// of them (none, for an empty text), so that it is compared whole. Words are compared as written, case folded (a copy keeps its
// words; neither stems nor the tokenizer's compound parts are needed to see
// it): runs of letters and digits, and each Han, Hiragana or Katakana
// character alone (vault.IsCJK). buf is scratch for the words' hashes,
// returned for the next call.
func windows(readable string, buf []uint64) ([]uint64, []uint64) {
	const offset, prime = 14695981039346656037, 1099511628211 // FNV-1a
	toks := buf[:0]
	h, in := uint64(offset), false
	for _, r := range readable {
		switch {
		case r < utf8.RuneSelf:
			switch c := byte(r); {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				h, in = (h^uint64(c))*prime, true
			case 'A' <= c && c <= 'Z':
				h, in = (h^uint64(c|0x20))*prime, true
			case in:
				toks = append(toks, h)
				h, in = offset, false
			}
		case r >= 0x2E80 && vault.IsCJK(r):
			if in {
				toks = append(toks, h)
			}
			toks = append(toks, (offset^uint64(r))*prime)
			h, in = offset, false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			h, in = (h^uint64(unicode.ToLower(r)))*prime, true
		case in:
			toks = append(toks, h)
			h, in = offset, false
		}
	}
	if in {
		toks = append(toks, h)
	}
	if len(toks) < copyShingle {
		return []uint64{shingle(toks) ^ uint64(len(toks))<<56}, toks
	}
	out := make([]uint64, 0, len(toks)-copyShingle+1)
	for i := 0; i+copyShingle <= len(toks); i++ {
		out = append(out, shingle(toks[i:i+copyShingle]))
	}
	return out, toks
}

// shingle is the hash of a window of words' hashes.
func shingle(toks []uint64) uint64 {
	const prime = 1099511628211
	w := uint64(0)
	for _, t := range toks {
		w = w*prime ^ t
	}
	return w
}

// bottom returns the k smallest distinct values of hs, sorted: a bottom-k
// sketch of the set hs holds, read without sorting all of it.
func bottom(hs []uint64, k int) []uint64 {
	sk := make([]uint64, 0, k)
	for _, h := range hs {
		if len(sk) == k && h >= sk[k-1] {
			continue
		}
		at, found := slices.BinarySearch(sk, h)
		if found {
			continue
		}
		if len(sk) == k {
			sk = sk[:k-1]
		}
		sk = slices.Insert(sk, at, h)
	}
	return sk
}

// nearCopies reports whether two sorted shingle sets share at least
// copyJaccard of their union (sharedGroups asks it only of the pairs whose
// sketches meet).
func nearCopies(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	if float64(min(len(a), len(b))) < copyJaccard*float64(max(len(a), len(b))) {
		return false // the union is at least the larger set
	}
	common, _ := union(a, b, len(a)+len(b))
	return float64(common) >= copyJaccard*float64(len(a)+len(b)-common)
}

// sketchesMeet reports whether two sorted shingle sets may be near copies,
// from the copySketch smallest hashes of their union alone (a bottom-k
// sketch): the share of those the two sets have in common estimates their
// Jaccard index. Of sets that are copies (at least copyJaccard) fewer than
// a quarter are in common about once in four million pairs (binomial, 16
// drawn); unrelated texts, most pairs of candidates, have none in common
// and are not merged in full.
func sketchesMeet(a, b []uint64) bool {
	common, seen := union(a, b, copySketch)
	return 4*common >= seen
}

// union walks the first n hashes of the union of two sorted sets, in
// order, and returns how many of them both sets hold and how many it saw
// (fewer than n when either set ends first).
func union(a, b []uint64, n int) (common, seen int) {
	for i, j := 0, 0; seen < n && i < len(a) && j < len(b); seen++ {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return common, seen
}

// templateKey is the text a template is compared by: c's readable words,
// lower-cased, one space apart, punctuation kept (prefixed so that an
// empty text has a key too), and whether the text is short enough to be
// one.
func templateKey(c *candidate) (string, bool) {
	words := strings.Fields(strings.ToLower(c.readableText()))
	if len(words) > templateWords {
		return "", false
	}
	return "t:" + strings.Join(words, " "), true
}
