package memindex

import (
	"sort"
	"strings"
)

// A vocab is the in-memory copy's tokens and their postings (postings.go).
//
// A generated vault of 100,000 notes has 1.1 million distinct tokens; a map
// from each token (a string of its own) to a list allocated apart took 125
// MB of the copy's heap, more than the postings themselves. Here the tokens
// known when the copy was built (or last compacted) are frozen: their bytes
// sorted and concatenated in one string, with their ends in one array,
// their lists in one slice and their postings in one arena, found by binary
// search (about a microsecond for a query's token). Tokens first seen after
// that go to a map, and postings added after it to tails, until the next
// freeze takes them in. A *plist from find or get is valid until the next
// get, which may grow the slice.
type vocab struct {
	text      string           // the frozen tokens' bytes, in sorted order
	ends      []uint32         // the end of frozen token i in text
	lists     []plist          // the postings of token i: frozen ones, then added ones
	arena     []byte           // the frozen postings
	tails     [][]byte         // postings appended since the freeze
	added     map[string]int32 // a token added since the freeze → its index in lists
	tailBytes int              // the size of the tails

	// mapped holds the mapping text, ends and arena are read from
	// (spill.go), or nil: they are in the heap.
	mapped *spilled
}

// token returns frozen token i.
func (v *vocab) token(i int) string {
	start := uint32(0)
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.text[start:v.ends[i]]
}

// search returns the index of the first frozen token ≥ t.
func (v *vocab) search(t string) int {
	return sort.Search(len(v.ends), func(i int) bool { return v.token(i) >= t })
}

// index returns t's index in lists, and whether t is known.
func (v *vocab) index(t string) (int32, bool) {
	if i := v.search(t); i < len(v.ends) && v.token(i) == t {
		return int32(i), true
	}
	i, ok := v.added[t]
	return i, ok
}

// find returns t's postings, or nil when t has none.
func (v *vocab) find(t string) *plist {
	if i, ok := v.index(t); ok && v.lists[i].n > 0 {
		return &v.lists[i]
	}
	return nil
}

// add appends doc d (greater than every doc of t's before it) with
// frequency f to t's postings, adding t when it is new.
func (v *vocab) add(t string, d int32, f uint16) {
	p := v.list(t)
	if p.tail == 0 {
		v.tails = append(v.tails, nil)
		p.tail = int32(len(v.tails))
	}
	n := len(v.tails[p.tail-1])
	v.tails[p.tail-1] = appendPosting(v.tails[p.tail-1], p.last, d, f)
	v.tailBytes += len(v.tails[p.tail-1]) - n
	p.last = d
	p.n++
}

// list returns t's list, adding an empty one for a new token.
func (v *vocab) list(t string) *plist {
	if i, ok := v.index(t); ok {
		return &v.lists[i]
	}
	if v.added == nil {
		v.added = map[string]int32{}
	}
	// A copy: t may be a slice of a unit's whole text, which the map would
	// otherwise keep alive.
	v.added[strings.Clone(t)] = int32(len(v.lists))
	v.lists = append(v.lists, plist{})
	return &v.lists[len(v.lists)-1]
}

// iter walks p's postings.
func (v *vocab) iter(p *plist) postingIter {
	it := postingIter{data: v.arena[p.off:p.end]}
	if p.tail > 0 {
		it.rest = v.tails[p.tail-1]
	}
	return it
}

// withPrefix returns the lists of every token with postings that starts
// with prefix.
func (v *vocab) withPrefix(prefix string) []*plist {
	var out []*plist
	for i := v.search(prefix); i < len(v.ends) && strings.HasPrefix(v.token(i), prefix); i++ {
		if v.lists[i].n > 0 {
			out = append(out, &v.lists[i])
		}
	}
	for t, i := range v.added {
		if strings.HasPrefix(t, prefix) && v.lists[i].n > 0 {
			out = append(out, &v.lists[i])
		}
	}
	return out
}

// tailsLarge reports whether the postings added since the freeze are worth
// a freeze of their own: a vault that only grows never compacts, and its
// tails (a slice each, grown by doubling) and added tokens would otherwise
// grow for as long as the server runs. The added tokens are held to fewer
// (a lone CJK character's query, withPrefix, reads every one of them), but
// not so few that a large vault re-sorts its million tokens every few
// edits.
func (v *vocab) tailsLarge() bool {
	return v.tailBytes > len(v.arena)/4+tailSlack || len(v.added) > max(addedSlack, len(v.ends)/64)
}

const (
	tailSlack  = 1 << 20 // bytes the tails may hold beyond a quarter of the arena
	addedSlack = 4096    // tokens that may wait outside the sorted part (or 1/64 of it)
)

// count returns the number of tokens with postings.
func (v *vocab) count() int {
	n := 0
	for i := range v.lists {
		if v.lists[i].n > 0 {
			n++
		}
	}
	return n
}

// postings returns the number of postings.
func (v *vocab) postings() int64 {
	var n int64
	for i := range v.lists {
		n += int64(v.lists[i].n)
	}
	return n
}

// freeze takes every token into the frozen part, in sorted order, with its
// postings (arena and tail) packed anew into one arena of exact size. With
// renum (compaction), only the postings of docs renum maps to a number ≥ 0
// are kept, under that number (renum keeps the docs' order). Tokens left
// without postings are dropped.
//
// The frozen part is mapped from a file in dir (spill.go); "" keeps it in
// the heap.
func (v *vocab) freeze(renum []int32, dir string) {
	if renum == nil && len(v.tails) == 0 && len(v.added) == 0 && v.mapped != nil && dir != "" {
		return // frozen and mapped already (a build in runs leaves it so)
	}
	type entry struct {
		t string
		i int32
	}
	es := make([]entry, 0, len(v.lists))
	size := 0
	for i := range v.ends {
		if v.lists[i].n > 0 {
			es = append(es, entry{v.token(i), int32(i)})
			size += len(es[len(es)-1].t)
		}
	}
	for t, i := range v.added {
		if v.lists[i].n > 0 {
			es = append(es, entry{t, i})
			size += len(t)
		}
	}
	sort.Slice(es, func(a, b int) bool { return es[a].t < es[b].t })
	arenaSize := len(v.arena)
	for _, tail := range v.tails {
		arenaSize += len(tail)
	}
	arena := make([]byte, 0, arenaSize)
	var text strings.Builder
	text.Grow(size)
	ends := make([]uint32, 0, len(es))
	lists := make([]plist, 0, len(es))
	for _, e := range es {
		old := &v.lists[e.i]
		p := plist{off: uint32(len(arena))}
		if renum == nil {
			arena = append(arena, v.arena[old.off:old.end]...)
			if old.tail > 0 {
				arena = append(arena, v.tails[old.tail-1]...)
				v.tails[old.tail-1] = nil // collectable as the new arena fills
			}
			p.n, p.last = old.n, old.last
		} else {
			for it := v.iter(old); it.next(); {
				if nd := renum[it.d]; nd >= 0 {
					arena = appendPosting(arena, p.last, nd, it.f)
					p.last = nd
					p.n++
				}
			}
			if p.n == 0 {
				continue
			}
		}
		p.end = uint32(len(arena))
		text.WriteString(e.t)
		ends = append(ends, uint32(text.Len()))
		lists = append(lists, p)
	}
	frozen := text.String()
	var ok bool
	if v.mapped, ends, frozen, arena, ok = spillFrozen(dir, ends, frozen, arena); !ok && cap(arena) > 2*len(arena) {
		arena = append([]byte(nil), arena...) // compaction dropped much
	}
	v.text, v.ends, v.lists, v.arena, v.tails, v.added, v.tailBytes = frozen, ends, lists, arena, nil, nil, 0
}
