package memindex

import (
	"container/heap"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// keyArena holds the docs' unit_keys, one after another: those known at the
// last freeze in one array, mapped from a file (spill.go) when it could be
// (a key is read only to order a vector match among equals), and those
// added since in a tail in the heap.
type keyArena struct {
	frozen []byte
	tail   []byte
	mapped *spilled
}

// add appends key and returns its offset.
func (k *keyArena) add(key string) uint32 {
	off := uint32(len(k.frozen) + len(k.tail))
	k.tail = append(k.tail, key...)
	return off
}

// get returns the key of n bytes at off.
func (k *keyArena) get(off, n uint32) string {
	if f := uint32(len(k.frozen)); off >= f {
		return string(k.tail[off-f : off-f+n])
	}
	return string(k.frozen[off : off+n])
}

// size returns the bytes of every key.
func (k *keyArena) size() uint32 { return uint32(len(k.frozen) + len(k.tail)) }

// freeze takes the tail into the frozen array, mapped from a file in dir
// ("": in the heap).
func (k *keyArena) freeze(dir string) {
	if len(k.tail) == 0 {
		return
	}
	all := append(append(make([]byte, 0, len(k.frozen)+len(k.tail)), k.frozen...), k.tail...)
	if m, parts, ok := spill(dir, all); ok {
		k.frozen, k.mapped = parts[0], m
	} else {
		k.frozen, k.mapped = all, nil // a copy: the old mapping may go
	}
	k.tail = nil
}

// doc is one unit of the copy. Its unit_key is in Index.keys (one
// arena, not a string each: fewer objects for the collector to mark).
type doc struct {
	uid     int64
	emb     uint64 // embedKey(embed_hash): which vector is this unit's
	res     *Res
	nextEmb int32  // the next doc with this doc's emb (byEmb); -1: none
	keyOff  uint32 // its unit_key starts here in keys and ends where the next doc's starts (keys are added in doc order)
}

// Res is a unit's resource as visibility reads it: its path, its project
// ("" for shared), and for a Draft's row the Draft and the Draft's project.
type Res struct {
	Path, Project, Draft, DProject string
}

// Index is the in-memory copy: docs (units), their tokens' postings, and
// the tables that find a doc by uid and by vector. Search and VectorUnits
// take its lock themselves; a caller that changes it (Add, Remove,
// SetShadows, Tidy, Shrink, Freeze) holds Lock, or owns it alone.
type Index struct {
	mu    sync.RWMutex
	terms vocab
	docs  []doc
	keys  keyArena // the docs' unit_keys
	// lens[d] is doc d's tokens in all five columns (FTS5's column size
	// -1), or -1 once it is deleted. Apart from docs: scoring reads it for
	// every posting, and 4 bytes a doc stay in cache where 40 did not.
	lens     []int32
	byUID    docTable // uid → its live doc
	byEmb    docTable // emb → a doc with it, the first of a chain through doc.nextEmb (dead docs too, until compact)
	nLive    int64
	nTokens  int64
	nDead    int64 // postings of deleted docs still in terms
	nPost    int64
	shadows  map[string]map[string]bool // project → working-tree paths its Drafts shadow
	spillDir string                     // where freezes map their frozen parts from (spill.go): the index's folder
	runs     *runBuilder                // while a build gathers the postings in runs (runbuild.go); nil: into terms
}

// New returns an empty copy with room for about n docs, whose freezes map
// their frozen parts from files in dir ("": they stay in the heap).
func New(n int, dir string) *Index {
	m := &Index{spillDir: dir}
	m.byUID = newDocTable(n, func(d int32) uint64 { return uint64(m.docs[d].uid) })
	m.byEmb = newDocTable(n, func(d int32) uint64 { return m.docs[d].emb })
	return m
}

// Lock and Unlock bracket a change of a copy that queries may be reading.
func (m *Index) Lock() { m.mu.Lock() }

// Unlock ends what Lock began.
func (m *Index) Unlock() { m.mu.Unlock() }

// Unit is one unit as the copy counts it: its five FTS columns' distinct
// tokens with their weighted frequencies, and its length in tokens.
type Unit struct {
	UID    int64
	Key    string // its unit_key
	Emb    uint64 // which vector is its (the caller's key of its embed_hash)
	Res    *Res
	Toks   []string // distinct tokens
	Freq   []uint16 // their weighted frequencies
	Length int32
}

// Add adds a unit, unless a live doc already has its uid.
func (m *Index) Add(u *Unit) { m.add(u) }

// Remove marks the unit with uid deleted; its postings stay until Tidy
// compacts them.
func (m *Index) Remove(uid int64) { m.remove(uid) }

// Has reports whether a live doc has uid.
func (m *Index) Has(uid int64) bool { _, ok := m.byUID.find(uint64(uid)); return ok }

// Live is how many units the copy holds.
func (m *Index) Live() int64 { return m.nLive }

// Length is the live units' tokens, all columns: BM25's average length is
// Length / Live.
func (m *Index) Length() int64 { return m.nTokens }

// SetShadows sets, for each project, the working-tree paths its Drafts
// shadow (its view reads the Draft's rows instead).
func (m *Index) SetShadows(sh map[string]map[string]bool) { m.shadows = sh }

// Tidy compacts the copy once deleted docs' postings are a third of all,
// or else freezes what was added since the last freeze once it is large.
func (m *Index) Tidy() {
	if m.nDead*3 > m.nPost {
		m.compact()
	} else if m.terms.tailsLarge() {
		m.terms.freeze(nil, m.spillDir)
		m.keys.freeze(m.spillDir)
	}
}

// Freeze takes everything added since the last freeze into the frozen
// arrays (mapped from a file when the copy has a folder), as Save needs.
func (m *Index) Freeze() {
	if len(m.terms.tails) > 0 || len(m.terms.added) > 0 || len(m.keys.tail) > 0 {
		m.terms.freeze(nil, m.spillDir)
		m.keys.freeze(m.spillDir)
	}
}

// StartRuns makes the units added from now on gather their postings in
// runs written to the copy's folder (runbuild.go), until EndRuns; the copy
// must hold no postings yet.
func (m *Index) StartRuns() error {
	rb, err := newRunBuilder(m.spillDir)
	if err != nil {
		return err
	}
	m.runs = rb
	return nil
}

// EndRuns merges the runs into the copy's vocab. It is a no-op without
// StartRuns.
func (m *Index) EndRuns() error { return m.endRuns() }

// CloseRuns lets go of the runs of a copy whose EndRuns will not come (an
// abandoned build). EndRuns lets go of them itself.
func (m *Index) CloseRuns() {
	if m.runs != nil {
		m.runs.close()
		m.runs = nil
	}
}

// Stats returns the live units, the distinct tokens and the postings.
func (m *Index) Stats() (units, tokens, postings int64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.nLive, int64(m.terms.count()), m.nPost
}

// Shrink gives every array its exact capacity and freezes the copy: a
// built copy mostly stays as it is.
func (m *Index) Shrink() { m.shrink() }

// add appends one unit (uids arrive in ascending order within a load, and
// every load's uids are newer than the ones before, except a uid SQLite
// reused after deleting the newest row: postings stay sorted by doc number,
// not uid, so that is harmless).
func (m *Index) add(u *Unit) {
	if old, ok := m.byUID.find(uint64(u.UID)); ok && m.lens[old] >= 0 {
		return
	}
	d := int32(len(m.docs))
	m.docs = append(m.docs, doc{uid: u.UID, res: u.Res, emb: u.Emb, keyOff: m.keys.add(u.Key)})
	m.lens = append(m.lens, u.Length)
	m.byUID.set(d)
	m.linkEmb(d)
	m.nLive++
	m.nTokens += int64(u.Length)
	for i, t := range u.Toks {
		if f := u.Freq[i]; m.runs != nil {
			m.runs.add(t, d, f)
		} else {
			m.terms.add(t, d, f)
		}
		m.nPost++
	}
}

// endRuns merges the postings gathered in runs (runbuild.go) into m's
// vocab, which held none.
func (m *Index) endRuns() error {
	rb := m.runs
	if rb == nil {
		return nil
	}
	m.runs = nil
	defer rb.close()
	v, err := rb.finish()
	if err != nil {
		return err
	}
	m.terms = v
	return nil
}

// key returns doc d's unit_key.
func (m *Index) key(d int32) string {
	end := m.keys.size()
	if int(d)+1 < len(m.docs) {
		end = m.docs[d+1].keyOff
	}
	off := m.docs[d].keyOff
	return m.keys.get(off, end-off)
}

// linkEmb puts doc d at the head of its emb's chain.
func (m *Index) linkEmb(d int32) {
	doc := &m.docs[d]
	doc.nextEmb = -1
	if head, ok := m.byEmb.find(doc.emb); ok {
		doc.nextEmb = head
	}
	m.byEmb.set(d)
}

func (m *Index) remove(uid int64) {
	d, ok := m.byUID.find(uint64(uid))
	if !ok || m.lens[d] < 0 {
		return
	}
	n := int64(m.lens[d])
	m.lens[d] = -1
	m.byUID.del(uint64(uid))
	m.nLive--
	m.nTokens -= n
	m.nDead += n // an upper bound of its postings; enough to decide compaction
}

// shrink gives every postings list its exact capacity: appending leaves up
// to a quarter of the memory unused, and a built copy mostly stays as it is.
func (m *Index) shrink() {
	m.terms.freeze(nil, m.spillDir)
	m.docs = exact(m.docs)
	m.keys.freeze(m.spillDir)
	m.lens = exact(m.lens)
}

// exact returns s in an array of its own length: appending grew it by up
// to a quarter, and slices.Clip would keep that memory.
func exact[S ~[]E, E any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return append(S(nil), s...)
}

// compact drops the postings of deleted docs and renumbers the live ones.
func (m *Index) compact() {
	renum := make([]int32, len(m.docs))
	var docs []doc
	var keys keyArena
	var lens []int32
	for i, d := range m.docs {
		renum[i] = -1
		if m.lens[i] >= 0 {
			lens = append(lens, m.lens[i])
			renum[i] = int32(len(docs))
			d.keyOff = keys.add(m.key(int32(i)))
			docs = append(docs, d)
		}
	}
	keys.freeze(m.spillDir)
	m.docs, m.keys, m.lens = docs, keys, lens
	m.byUID = newDocTable(len(docs), m.byUID.key)
	m.byEmb = newDocTable(len(docs), m.byEmb.key)
	for i := range docs {
		m.byUID.set(int32(i))
		m.linkEmb(int32(i))
	}
	m.terms.freeze(renum, m.spillDir) // drops the tokens left without postings
	m.nPost = m.terms.postings()
	m.nDead = 0
}

// View is which units a query may see, as package fts's visibleTo reads
// its project argument: with Project "", every published unit; with
// Published, the published units of Project and the shared ones (with
// Unshadowed, less the paths Project's Drafts shadow); else Project's
// Effective Memory (its Drafts' rows, and the published units of the
// project and the shared ones that no Draft of it shadows). Journal notes
// are never seen.
type View struct {
	Project    string
	Published  bool
	Unshadowed bool
}

// visible is visibleTo's condition, in Go.
func (m *Index) visible(r *Res, v View) bool {
	if vault.IsJournalPath(r.Path) {
		return false
	}
	if v.Published {
		return r.Draft == "" && (r.Project == "" || r.Project == v.Project) && !(v.Unshadowed && m.shadows[v.Project][r.Path])
	}
	if v.Project == "" {
		return r.Draft == ""
	}
	if r.DProject == v.Project {
		return true
	}
	return r.Draft == "" && (r.Project == "" || r.Project == v.Project) && !m.shadows[v.Project][r.Path]
}

// Hit is a unit a search found, with its BM25 score.

type Hit struct {
	UID   int64
	Score float64
}

// scratch is a query's per-doc accumulators, reused across queries.
type scratch struct {
	score   []float64
	freq    []float64
	touched []int32
	hit     []bool
	phrase  []int32 // the docs holding the phrase being scored
}

// scratches keeps the per-doc accumulators of finished queries for the next
// ones (at most maxScratches). Not a sync.Pool: a pool is emptied by every
// garbage collection, and on a large vault each query would then allocate
// its 17 bytes a unit again (10 MB on 600,000 units), making the garbage
// that brings the next collection sooner.
var scratches struct {
	sync.Mutex
	free []*scratch
}

const maxScratches = 4

func getScratch() *scratch {
	scratches.Lock()
	defer scratches.Unlock()
	if n := len(scratches.free); n > 0 {
		s := scratches.free[n-1]
		scratches.free = scratches.free[:n-1]
		return s
	}
	return &scratch{}
}

func putScratch(s *scratch) {
	scratches.Lock()
	defer scratches.Unlock()
	if len(scratches.free) < maxScratches {
		scratches.free = append(scratches.free, s)
	}
}

// Search scores the OR of ts (as package fts writes its MATCH: a lone CJK character
// is a prefix) and returns the best limit visible units, best first.
func (m *Index) Search(ts []string, v View, limit int) []Hit {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.nLive == 0 || limit <= 0 {
		return nil
	}
	n := len(m.docs)
	s := getScratch()
	if len(s.score) < n {
		s.score, s.freq, s.hit = make([]float64, n), make([]float64, n), make([]bool, n)
	}
	defer func() {
		for _, d := range s.touched {
			s.score[d], s.hit[d] = 0, false
		}
		s.touched = s.touched[:0]
		putScratch(s)
	}()
	const k1, b = 1.2, 0.75
	kk1, bb := k1, b // in float64 at run time, as C computes k1 + 1.0
	avgdl := float64(m.nTokens) / float64(m.nLive)
	// Kept with the scratch: a common token's docs are megabytes a query
	// on a large vault (1.6 MB a query on 100,000 notes, 2/3 of what a
	// warm server allocated).
	phraseDocs := s.phrase
	defer func() { s.phrase = phraseDocs[:0] }()
	for _, t := range ts {
		lists := m.phrase(t)
		// f per doc for this phrase; nHit live docs holding it.
		phraseDocs = phraseDocs[:0]
		var nHit int64
		for _, p := range lists {
			for it := m.terms.iter(p); it.next(); {
				d := it.d
				if m.lens[d] < 0 {
					continue
				}
				if s.freq[d] == 0 {
					phraseDocs = append(phraseDocs, d)
					nHit++
				}
				s.freq[d] += float64(it.f)
			}
		}
		if nHit == 0 {
			continue
		}
		idf := cLog((float64(m.nLive) - float64(nHit) + 0.5) / (float64(nHit) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for _, d := range phraseDocs {
			f := s.freq[d]
			s.freq[d] = 0
			D := float64(m.lens[d])
			// The conversions round each product, as C does: Go may
			// otherwise fuse a multiply and an add (on arm64, say).
			num := float64(f * (kk1 + 1.0))
			den := f + float64(kk1*(1-bb+float64(bb*D)/avgdl))
			s.score[d] += float64(idf * (num / den))
			if !s.hit[d] {
				s.hit[d] = true
				s.touched = append(s.touched, d)
			}
		}
	}
	return m.best(s, v, limit)
}

// best returns the limit best of the docs s scored that v may see,
// best first.
func (m *Index) best(s *scratch, v View, limit int) []Hit {
	h := make(hitHeap, 0, limit+1)
	for _, d := range s.touched {
		if len(h) == limit && s.score[d] < h[0].Score {
			continue // not better than the worst kept, without reading its doc
		}
		doc := &m.docs[d]
		c := Hit{UID: doc.uid, Score: s.score[d]}
		// Visibility is asked only of a doc that would enter the heap: most
		// touched docs of a large vault do not, and asking every one was
		// a fifth of a 100,000-note activate.
		if len(h) == limit && !better(c, h[0]) || !m.visible(doc.res, v) {
			continue
		}
		if len(h) == limit {
			h[0] = c
			heap.Fix(&h, 0)
			continue
		}
		heap.Push(&h, c)
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// phrase returns the postings a phrase of the query reads: its token's, or
// for a lone CJK character every token that starts with it.
func (m *Index) phrase(t string) []*plist {
	if r, n := utf8.DecodeRuneInString(t); n == len(t) && vault.IsCJK(r) {
		return m.terms.withPrefix(t)
	}
	if p := m.terms.find(t); p != nil && p.n > 0 {
		return []*plist{p}
	}
	return nil
}

// better orders hits as `ORDER BY -score, rowid` does.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.UID < b.UID
}

// hitHeap is a min-heap of the best hits so far (worst on top).
type hitHeap []Hit

func (h hitHeap) Len() int { return len(h) }

func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }

func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *hitHeap) Push(x any) { *h = append(*h, x.(Hit)) }

func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Neighbour is a vector a vector search found: the key of its embed_hash
// (Unit.Emb) and its cosine distance to the query.
type Neighbour struct {
	Emb  uint64
	Dist float64
}

// VectorHit is a unit that carries a vector found, with its distance.
type VectorHit struct {
	UID  int64
	Dist float64
}

// VectorUnits turns the rescored neighbours into the visible units that
// carry them, ordered by distance then unit_key, at most limit: what
// package fts's vector search does in SQL with a join. seen is how many of
// the neighbours a visible unit carries.
func (m *Index) VectorUnits(ns []Neighbour, v View, limit int) (_ []VectorHit, seen int) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	type pair struct {
		dist float64
		key  string
		uid  int64
	}
	var ps []pair
	for _, n := range ns {
		d, ok := m.byEmb.find(n.Emb)
		any := false
		for ; ok && d >= 0; d = m.docs[d].nextEmb {
			doc := &m.docs[d]
			if m.lens[d] >= 0 && m.visible(doc.res, v) {
				ps = append(ps, pair{n.Dist, m.key(d), doc.uid})
				any = true
			}
		}
		if any {
			seen++
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].dist != ps[j].dist {
			return ps[i].dist < ps[j].dist
		}
		return ps[i].key < ps[j].key
	})
	if len(ps) > limit {
		ps = ps[:limit]
	}
	out := make([]VectorHit, len(ps))
	for i, p := range ps {
		out[i] = VectorHit{UID: p.uid, Dist: p.dist}
	}
	return out, seen
}
