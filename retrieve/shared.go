package retrieve

import (
	"context"
	"slices"
)

// sharedText is what markShared reads of one candidate's text: its
// windows (copyText) and how many words it has.
type sharedText struct {
	copyText
	words int
	key   string // templateKey's, for a short text
}

// sharedGroups groups the candidates of ranked that hold one text with
// another note's candidate: their readable words share at least
// copyJaccard of their windows of copyShingle words (a text shorter than a
// window is one window, so such texts, and empty ones, are compared
// whole). Each group lists its places best first; words[i] is ranked[i]'s
// number of words, for the groups' members. Pairs are read only when
// their sketches meet (sketchesMeet).
func sharedGroups(ranked []*candidate) (groups [][]int, keys []string) {
	texts := make([]sharedText, len(ranked))
	var buf []uint64
	for i, c := range ranked {
		if len(c.Content) > copyBytes {
			continue
		}
		var toks []uint64
		texts[i].windows, toks = sharedWindows(c.readableText(), buf)
		buf = toks
		if k, ok := templateKey(c); ok {
			texts[i].words, texts[i].key = len(toks), k
		} else {
			texts[i].words = templateWords + 1
		}
		texts[i].read = true
		texts[i].sketch = bottom(texts[i].windows, copySketch)
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
	for i, a := range ranked {
		if !texts[i].read {
			continue
		}
		for j := i + 1; j < len(ranked); j++ {
			if b := ranked[j]; a.RID == b.RID || !texts[j].read {
				continue
			}
			x, y := &texts[i], &texts[j]
			if sketchesMeet(x.sketch, y.sketch) && nearCopies(x.set(), y.set()) {
				parent[root(j)] = root(i)
				found = true
			}
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
	for i := range texts {
		keys[i] = texts[i].key
	}
	for _, g := range byRoot {
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups, keys
}

// sharedWindows is windows without a least length: a text of fewer words
// than a window is one window, the hash of all its words (none, for an
// empty text).
func sharedWindows(readable string, buf []uint64) ([]uint64, []uint64) {
	ws, toks := windows(readable, buf)
	if ws != nil {
		return ws, toks
	}
	if len(toks) >= copyShingle {
		out := make([]uint64, 0, len(toks)-copyShingle+1)
		for i := 0; i+copyShingle <= len(toks); i++ {
			out = append(out, shingle(toks[i:i+copyShingle]))
		}
		return out, toks
	}
	return []uint64{shingle(toks) ^ uint64(len(toks))<<56}, toks
}

// markShared marks the text that several notes hold. A group of short
// texts (every one at most templateWords words) is a template: none of
// its notes' answer, each cut as cut:template (an exact match excepted: a
// name the query gave asks for that note). It returns the other groups,
// copies of a longer text, for keepOriginals once the sections are
// ordered.
func markShared(ranked []*candidate) [][]*candidate {
	groups, keys := sharedGroups(ranked)
	var copies [][]*candidate
	for _, places := range groups {
		short := true // and word for word the same
		for _, i := range places {
			short = short && keys[i] != "" && keys[i] == keys[places[0]]
		}
		if !short {
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

// keepOriginals keeps one of each group of copies (keptBefore), which
// takes the group's best place in ranked; the others are cut as cut:copy
// once it is delivered.
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
