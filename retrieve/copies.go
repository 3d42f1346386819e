package retrieve

import (
	"context"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// A text that two notes hold is delivered once, from the note it was
// copied from.
//
// Vaults keep copies: the Obsidian Hub holds "An Introduction to Dataview"
// and "An Introduction to Dataview Slides", the same talk in two layouts,
// section for section but for a separator and an emphasis; a sync client
// leaves "Note (conflicted copy).md" beside "Note.md"; Obsidian names a
// duplicated note "Note 1.md". Activate delivered both copies, so for
// "give a YAML key more than one value" the slides' "YAML Lists" came
// first, the guide's second, and the same text cost its tokens twice. The
// assembly's duplicate cut (cut:overlap) only sees texts that are equal
// byte for byte.
//
// markCopies finds, among the candidates, sections of different notes
// under the same heading whose readable words share at least copyJaccard
// of their windows of copyShingle words (texts of at least copyMinTokens
// words; shorter shared texts are templates, templates.go). Of each group one is kept:
// published before a Draft's, an exact match before the rest, then the
// note more other notes link to, then the original by name — the note
// whose file name the others' extend ("X" before "X Slides", "X 1" and
// "X (conflicted copy)"), as copies are named after what they copy — then
// the better place. The one kept takes the group's best place; the others
// are cut as cut:copy once it is delivered.
const (
	copyShingle   = 5
	copyMinTokens = 12
	copyJaccard   = 0.8
	copyBytes     = 16 << 10 // a longer raw text is not compared (units are far shorter)
	copyLength    = 0.6      // the shorter's share of the longer's estimated tokens, at least
	copySketch    = 16       // hashes of each pair read before the whole sets (sketchesMeet)
)

// markCopies sets copyOf on every candidate of ranked that is a copy of
// another note's candidate kept in its stead, and moves the kept one to
// the best place of its copies (each place keeps its final score). Only
// pairs under one heading and of about one length are read, and of those
// only the pairs whose sketches meet in full.
func (p *Pipeline) markCopies(ctx context.Context, ranked []*candidate, project string) error {
	var texts []copyText
	var buf []uint64
	read := func(i int) *copyText {
		if texts == nil {
			texts = make([]copyText, len(ranked))
		}
		t := &texts[i]
		if !t.read {
			t.read = true
			if len(ranked[i].Content) <= copyBytes {
				t.windows, buf = windows(ranked[i].readableText(), buf)
				t.sketch = bottom(t.windows, copySketch)
			}
		}
		return t
	}
	// Group by union-find over the pairs of different notes that are copies.
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
	for i, a := range ranked {
		for j := i + 1; j < len(ranked); j++ {
			b := ranked[j]
			if a.RID == b.RID || !aboutAsLong(a.Tokens, b.Tokens) || !sameHeading(a.HeadingPath, b.HeadingPath) {
				continue
			}
			if x, y := read(i), read(j); sketchesMeet(x.sketch, y.sketch) && nearCopies(x.set(), y.set()) {
				parent[root(j)] = root(i)
				found = true
			}
		}
	}
	if !found {
		return nil
	}
	groups := make([][]int, len(ranked)) // by root: places, best first
	for i := range ranked {
		groups[root(i)] = append(groups[root(i)], i)
	}
	inLinks := map[int64]int{}
	for _, places := range groups {
		if len(places) < 2 {
			continue
		}
		for _, i := range places {
			if _, ok := inLinks[ranked[i].RID]; !ok {
				in, _, err := p.look.LinkCounts(ctx, ranked[i].RID, project)
				if err != nil {
					return err
				}
				inLinks[ranked[i].RID] = in
			}
		}
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
		}
		for _, i := range places[1:] {
			ranked[i].copyOf = ranked[best]
		}
	}
	return nil
}

// aboutAsLong reports whether two texts of a and b tokens (as the index
// estimates them) may be copies: near copies are of about one length, and
// markup (a separator, an emphasis, a link's destination) is counted too.
func aboutAsLong(a, b int) bool {
	return float64(min(a, b)) >= copyLength*float64(max(a, b))
}

// sameHeading reports whether two sections have the same own heading
// (the last of their heading paths, case folded; or none): a copied note
// keeps its headings, and only such pairs are read.
func sameHeading(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return strings.EqualFold(a[len(a)-1], b[len(b)-1])
}

// keptBefore reports whether copy a is kept rather than copy b (both of one
// group, a placed below b): see markCopies for the order.
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

// copyText is what markCopies reads of a candidate's text: its windows'
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
// the text's order, or nil when it has fewer than copyMinTokens
// words. Words are compared as written, case folded (a copy keeps its
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
	if len(toks) < copyMinTokens {
		return nil, toks
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
// copyJaccard of their union (markCopies asks it only of the pairs whose
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
