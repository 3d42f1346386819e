package fts

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// The in-memory postings: a copy of the FTS table's tokens that a
// long-running process (lore mcp, lore serve) keeps to score BM25 in Go.
//
// FTS5's bm25() costs about a microsecond for every row an OR query matches
// (it reads each row's size and position lists), and agents' task
// descriptions match tens of thousands of units in a large vault: 20–50 ms a
// query. Here a query walks the postings of its few tokens and adds up scores
// in an array, well under a millisecond for the same work.
//
// The ranking is FTS5's, exactly: the same tokens (made in Go and given to
// FTS5's ascii tokenizer, which keeps them as they are), the same statistics
// (rows, tokens, rows holding a phrase, every row's length, Draft rows
// included), bm25's formula with its k1 = 1.2 and b = 0.75 evaluated in the
// same order in float64 (the logarithm is C's, as SQLite's), and ties by
// rowid. TestMemIndexMatchesFTS5 compares both on 165 queries in 3 project
// views and 4 states of the vault (edits, Drafts, another process). One-shot
// commands (lore search, lore activate) query FTS5 directly: building the
// copy costs more than the query it would speed up.
//
// The copy follows the index through unit_log, where every unit inserted or
// deleted is recorded in order (inserts by the writer, deletes by a trigger),
// so changes made by other processes are seen too; a process that fell
// behind the log's trimmed end builds its copy again. Deleted units leave
// their postings behind, skipped by a liveness bit, until they are a third
// of the total and the copy is compacted.

// maxMemUnits bounds the vaults whose postings are kept in memory (about two
// bytes a posting packed (postings.go), ~100 distinct tokens a unit; what a
// copy takes, heap and mapped (spill.go), is BenchmarkInMemoryCopyOf's, in
// docs/BENCHMARKS.md, "One warm lore").
// Larger vaults are scored by FTS5 alone.
const maxMemUnits = 1_000_000

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

// memDoc is one unit of the copy. Its unit_key is in memIndex.keys (one
// arena, not a string each: fewer objects for the collector to mark).
type memDoc struct {
	uid     int64
	emb     uint64 // embedKey(embed_hash): which vector is this unit's
	res     *memRes
	nextEmb int32  // the next doc with this doc's emb (byEmb); -1: none
	keyOff  uint32 // its unit_key starts here in keys and ends where the next doc's starts (keys are added in doc order)
}

type memRes struct {
	path, project, draft, dproject string
}

type memIndex struct {
	mu    sync.RWMutex
	terms vocab
	docs  []memDoc
	keys  keyArena // the docs' unit_keys
	// lens[d] is doc d's tokens in all five columns (FTS5's column size
	// -1), or -1 once it is deleted. Apart from docs: scoring reads it for
	// every posting, and 4 bytes a doc stay in cache where 40 did not.
	lens     []int32
	byUID    docTable // uid → its live doc
	byEmb    docTable // embedKey → a doc with it, the first of a chain through memDoc.nextEmb (dead docs too, until compact)
	nLive    int64
	nTokens  int64
	nDead    int64 // postings of deleted docs still in terms
	nPost    int64
	shadows  map[string]map[string]bool // project → working-tree paths its Drafts shadow
	memos    []tokenize.Memo            // the loading workers', during one load; used under mu (or before m is shared)
	spillDir string                     // where freezes map their frozen parts from (spill.go): the index's folder
	runs     *runBuilder                // while a build gathers the postings in runs (runbuild.go); nil: into terms
	gen      string
	lastSeq  int64
	stale    []int64 // resources whose notes no longer held a unit's text when it was read (texts.go)
}

// newMemIndex returns an empty copy with room for about n docs.
func newMemIndex(n int) *memIndex {
	m := &memIndex{}
	m.byUID = newDocTable(n, func(d int32) uint64 { return uint64(m.docs[d].uid) })
	m.byEmb = newDocTable(n, func(d int32) uint64 { return m.docs[d].emb })
	return m
}

// keepInMemory builds the in-memory postings (memindex.go) and the vectors'
// sign bits (memvec.go), and keeps them up to date from then on: Search and
// Activate use them instead of FTS5's bm25() and sqlite-vec's k-NN. It
// refreshes the index first and returns when both are built (a few seconds
// for 10,000 notes; until then queries use SQL). Call UseEmbedder first. A
// vault with more than maxMemUnits units is left to SQL.
func (ix *Index) keepInMemory(ctx context.Context) error {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return err
	}
	m, built, err := ix.openMem(ctx)
	if err != nil || m == nil {
		return err
	}
	ix.memMu.Lock()
	ix.mem, ix.keepMem, ix.memFromCopy = m, true, !built
	ix.memMu.Unlock()
	switch {
	case len(m.stale) > 0 && ix.readOnly == "":
		// Notes changed behind the index: index them again (the copy
		// follows through unit_log), and save no copy that lacks their text.
		if err := ix.requeue(ctx, m.stale); err != nil {
			return err
		}
		m.stale = nil
	case built:
		ix.saveMem(ctx, m)
	}
	// Scored in memory, the process asks SQLite for rows by key: one idle
	// connection's page cache (16 MiB) is enough, where three held 22 MB
	// more on 100,000 notes; and no mapped file (connect.go).
	ix.unmapConnections()
	_, err = ix.memVectorsFor(ctx)
	// The build read every unit's text once; give that memory back now
	// rather than whenever the runtime's scavenger gets to it.
	debug.FreeOSMemory()
	return err
}

// memFor returns the in-memory postings brought up to the index's current
// generation, or nil when there are none.
func (ix *Index) memFor(ctx context.Context) (*memIndex, error) {
	ix.memMu.Lock()
	defer ix.memMu.Unlock()
	m := ix.mem
	if m == nil {
		return nil, nil
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, err
	}
	if gen == m.gen {
		return m, nil
	}
	ok, err := ix.syncMem(ctx, m, gen)
	if err != nil {
		return nil, err
	}
	if !ok { // fell behind the log, or grew past the bound: build again
		if m, err = ix.buildMem(ctx); err != nil {
			return nil, err
		}
		ix.mem, ix.memFromCopy = m, false
		if m == nil { // too large now: the vectors' copy goes too
			ix.keepMem, ix.vecs = false, nil
		}
	}
	return ix.mem, nil
}

// openMem returns the copy saved in the index's folder brought up to date
// (copyfile.go), or else one built from the index (built true).
func (ix *Index) openMem(ctx context.Context) (m *memIndex, built bool, err error) {
	if m, ok := ix.savedMem(ctx); ok {
		return m, false, nil
	}
	m, err = ix.buildMem(ctx)
	return m, m != nil, err
}

// savedMem is the saved copy, mapped and brought up to date, when it is
// this index's and the unit_log still reaches back to it.
func (ix *Index) savedMem(ctx context.Context) (*memIndex, bool) {
	m, err := loadCopy(ctx, ix)
	if err != nil {
		return nil, false
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, false
	}
	from := m.lastSeq
	if ok, err := ix.syncMem(ctx, m, gen); err != nil || !ok {
		return nil, false
	}
	var n int64
	if err := ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM units").Scan(&n); err != nil || n != m.nLive {
		return nil, false
	}
	if m.lastSeq-from > copyResaveEntries {
		ix.saveMem(ctx, m)
	}
	return m, true
}

// copyResaveEntries is how many unit_log entries a saved copy may be behind
// before it is saved again once brought up to date.
const copyResaveEntries = 20_000

// saveMem saves m for the next process (copyfile.go); failing costs that
// process a build, nothing else.
func (ix *Index) saveMem(ctx context.Context, m *memIndex) {
	if ix.readOnly != "" {
		return
	}
	m.mu.Lock()
	if len(m.terms.tails) > 0 || len(m.terms.added) > 0 || len(m.keys.tail) > 0 {
		m.terms.freeze(nil, m.spillDir)
		m.keys.freeze(m.spillDir)
	}
	m.mu.Unlock()
	m.mu.RLock()
	defer m.mu.RUnlock()
	saveCopy(ctx, ix, m)
}

func (ix *Index) buildMem(ctx context.Context) (*memIndex, error) {
	gen, err := ix.generation(ctx)
	if err != nil {
		return nil, err
	}
	var n int
	var seq sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM units), (SELECT MAX(seq) FROM unit_log)").Scan(&n, &seq); err != nil {
		return nil, translate(err)
	}
	if n > maxMemUnits {
		return nil, nil
	}
	m, err := ix.loadAllUnits(ctx, n, true)
	if err != nil {
		return nil, err
	}
	m.gen, m.lastSeq = gen, seq.Int64
	stale := m.stale
	// Changes made while the units were read: applying them again is harmless.
	ok, err := ix.syncMem(ctx, m, gen)
	if err != nil || !ok {
		return nil, err
	}
	m.stale = stale // what the build found; those the log brought are indexed again anyway
	m.shrink()
	return m, nil
}

// loadAllUnits reads every unit into a new copy, its postings gathered in
// runs (runbuild.go) when inRuns and the index's folder takes them, in the
// heap otherwise or when a run could not be written.
func (ix *Index) loadAllUnits(ctx context.Context, n int, inRuns bool) (*memIndex, error) {
	m := newMemIndex(n)
	m.spillDir = ix.v.DataDir()
	if inRuns {
		rb, err := newRunBuilder(m.spillDir)
		if err != nil {
			return ix.loadAllUnits(ctx, n, false)
		}
		m.runs = rb
		defer rb.close()
	}
	if err := ix.loadMemUnits(ctx, m, ""); err != nil {
		return nil, err
	}
	if err := m.endRuns(); err != nil {
		return ix.loadAllUnits(ctx, n, false)
	}
	return m, nil
}

// syncMem applies the unit_log entries after m.lastSeq. It reports false when
// the log no longer reaches back that far.
func (ix *Index) syncMem(ctx context.Context, m *memIndex, gen string) (bool, error) {
	entries, last, ok, err := ix.readLog(ctx, "unit_log", "uid", m.lastSeq)
	if err != nil || !ok {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err = applyLog(entries,
		func(uid int64) bool { _, ok := m.byUID.find(uint64(uid)); return ok },
		func(list string) error { return ix.loadMemUnits(ctx, m, "WHERE u.uid IN ("+list+")") },
		m.remove)
	if err != nil {
		return false, err
	}
	if m.nLive > maxMemUnits {
		return false, nil
	}
	if err := ix.loadShadows(ctx, m); err != nil {
		return false, err
	}
	if m.nDead*3 > m.nPost {
		m.compact()
	} else if m.terms.tailsLarge() {
		m.terms.freeze(nil, m.spillDir)
		m.keys.freeze(m.spillDir)
	}
	m.lastSeq, m.gen, m.stale = last, gen, nil
	return true, nil
}

func (ix *Index) loadShadows(ctx context.Context, m *memIndex) error {
	rows, err := ix.db.QueryContext(ctx, "SELECT project, path FROM shadows")
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	sh := map[string]map[string]bool{}
	for rows.Next() {
		var p, path string
		if err := rows.Scan(&p, &path); err != nil {
			return translate(err)
		}
		if sh[p] == nil {
			sh[p] = map[string]bool{}
		}
		sh[p][path] = true
	}
	m.shadows = sh
	return translate(rows.Err())
}

// memUnit is one unit's five FTS columns, tokenized.
type memUnit struct {
	uid    int64
	key    string
	emb    uint64
	res    *memRes
	toks   []string // distinct tokens
	freq   []uint16 // their weighted frequencies
	length int32
}

// loadMemUnits reads units (all, or those where selects) with their
// resources, tokenizes them as prepareData did for FTS5, and adds them to m,
// which the caller holds locked or owns alone. It works through the units
// memChunk at a time (tokenizing on every core, adding in uid order), so a
// build holds one chunk's text, not the vault's.
func (ix *Index) loadMemUnits(ctx context.Context, m *memIndex, where string) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT u.uid, u.unit_key, `+hashSQL("u.embed_hash")+`, u.heading_path, u.start_byte, u.end_byte, `+hashSQL("u.content_hash")+`, u.embedded, r.rid, r.fspath, r.path, r.title, r.meta, r.project, r.draft, r.dproject
		FROM units u JOIN resources r ON r.rid = u.rid `+where+` ORDER BY u.uid`)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	// The workers' memos (2 MiB each, and the tokens they hold) serve one
	// load: a server keeps the copy for hours.
	defer func() { m.memos = nil }()
	resByRID := map[int64]*memResToks{}
	notes := noteBytes{ix: ix}
	var chunk []memRaw
	for rows.Next() {
		var r memRaw
		var rid int64
		var start, end int
		var hash, fspath, path, title, meta, project, draft, dproject string
		if err := rows.Scan(&r.uid, &r.key, &r.emb, &r.hp, &start, &end, &hash, &r.embedded, &rid, &fspath, &path, &title, &meta, &project, &draft, &dproject); err != nil {
			return translate(err)
		}
		// A unit whose note changed since it was indexed (texts.go) is
		// kept by its path, title and headings until the note is indexed
		// again, which replaces it.
		var ok bool
		if r.content, ok = notes.text(ctx, rid, fspath, draft, start, end, hash); !ok && draft == "" {
			m.stale = append(m.stale, rid)
		}
		rt := resByRID[rid]
		if rt == nil {
			rt = &memResToks{res: &memRes{path: path, project: project, draft: draft, dproject: dproject},
				path: tokenize.List(path), title: tokenize.List(title), meta: tokenize.List(meta)}
			resByRID[rid] = rt
		}
		r.res = rt
		if chunk = append(chunk, r); len(chunk) == memChunk {
			if err := m.addChunk(ctx, chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return translate(err)
	}
	return m.addChunk(ctx, chunk)
}

const (
	memChunk  = 4096
	memoChunk = 512 // a chunk at least this large tokenizes through memos
)

// memRaw is one unit as read; memResToks its resource's tokenized columns.
type memRaw struct {
	uid         int64
	key, emb    string
	hp, content string
	embedded    string
	res         *memResToks
}

type memResToks struct {
	res               *memRes
	path, title, meta []string
}

func (m *memIndex) addChunk(ctx context.Context, chunk []memRaw) error {
	out := make([]memUnit, len(chunk))
	workers := min(runtime.GOMAXPROCS(0), 4)
	for len(chunk) >= memoChunk && len(m.memos) < workers {
		m.memos = append(m.memos, tokenize.NewMemo())
	}
	var wg sync.WaitGroup
	var caught safe.Catcher
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer caught.Catch()
			freq := make(map[string]uint16, 256)
			var memo tokenize.Memo // none for a few units: it costs more than it saves
			if w < len(m.memos) {
				memo = m.memos[w]
			}
			for i := w; i < len(chunk); i += workers {
				r := &chunk[i]
				var hp []string
				_ = json.Unmarshal([]byte(r.hp), &hp)
				u := memUnit{uid: r.uid, key: r.key, emb: embedKey(r.emb), res: r.res.res}
				u.count(freq, [5][]string{r.res.path, r.res.title, r.res.meta,
					memo.List(strings.Join(hp, " ")), memo.List(bodyText(markdown.ReadableText(r.content), r.embedded))})
				out[i] = u
			}
		}(w)
	}
	wg.Wait()
	caught.Rethrow()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := range out {
		m.add(&out[i])
	}
	return nil
}

func satAdd(a, b uint16) uint16 {
	if a > 0xffff-b {
		return 0xffff
	}
	return a + b
}

// add appends one unit (uids arrive in ascending order within a load, and
// every load's uids are newer than the ones before, except a uid SQLite
// reused after deleting the newest row: postings stay sorted by doc number,
// not uid, so that is harmless).
func (m *memIndex) add(u *memUnit) {
	if old, ok := m.byUID.find(uint64(u.uid)); ok && m.lens[old] >= 0 {
		return
	}
	d := int32(len(m.docs))
	m.docs = append(m.docs, memDoc{uid: u.uid, res: u.res, emb: u.emb, keyOff: m.keys.add(u.key)})
	m.lens = append(m.lens, u.length)
	m.byUID.set(d)
	m.linkEmb(d)
	m.nLive++
	m.nTokens += int64(u.length)
	for i, t := range u.toks {
		if f := u.freq[i]; m.runs != nil {
			m.runs.add(t, d, f)
		} else {
			m.terms.add(t, d, f)
		}
		m.nPost++
	}
}

// endRuns merges the postings gathered in runs (runbuild.go) into m's
// vocab, which held none.
func (m *memIndex) endRuns() error {
	rb := m.runs
	if rb == nil {
		return nil
	}
	m.runs = nil
	v, err := rb.finish()
	if err != nil {
		return err
	}
	m.terms = v
	return nil
}

// key returns doc d's unit_key.
func (m *memIndex) key(d int32) string {
	end := m.keys.size()
	if int(d)+1 < len(m.docs) {
		end = m.docs[d+1].keyOff
	}
	off := m.docs[d].keyOff
	return m.keys.get(off, end-off)
}

// linkEmb puts doc d at the head of its emb's chain.
func (m *memIndex) linkEmb(d int32) {
	doc := &m.docs[d]
	doc.nextEmb = -1
	if head, ok := m.byEmb.find(doc.emb); ok {
		doc.nextEmb = head
	}
	m.byEmb.set(d)
}

func (m *memIndex) remove(uid int64) {
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
func (m *memIndex) shrink() {
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
func (m *memIndex) compact() {
	renum := make([]int32, len(m.docs))
	var docs []memDoc
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

// visible is visibleTo's condition, in Go.
func (m *memIndex) visible(r *memRes, project string) bool {
	if vault.IsJournalPath(r.path) {
		return false
	}
	if project == "" {
		return r.draft == ""
	}
	if p, ok := strings.CutPrefix(project, publishedPrefix); ok { // PublishedView
		return r.draft == "" && (r.project == "" || r.project == p)
	}
	if r.dproject == project {
		return true
	}
	return r.draft == "" && (r.project == "" || r.project == project) && !m.shadows[project][r.path]
}

type memHit struct {
	uid   int64
	score float64
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

// search scores the OR of ts (as matchExpr writes it: a lone CJK character
// is a prefix) and returns the best limit visible units, best first.
func (m *memIndex) search(ts []string, project string, limit int) []memHit {
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
	return m.best(s, project, limit)
}

// best returns the limit best of the docs s scored that project may see,
// best first.
func (m *memIndex) best(s *scratch, project string, limit int) []memHit {
	h := make(memHeap, 0, limit+1)
	for _, d := range s.touched {
		if len(h) == limit && s.score[d] < h[0].score {
			continue // not better than the worst kept, without reading its doc
		}
		doc := &m.docs[d]
		c := memHit{uid: doc.uid, score: s.score[d]}
		// Visibility is asked only of a doc that would enter the heap: most
		// touched docs of a large vault do not, and asking every one was
		// a fifth of a 100,000-note activate.
		if len(h) == limit && !better(c, h[0]) || !m.visible(doc.res, project) {
			continue
		}
		if len(h) == limit {
			h[0] = c
			heap.Fix(&h, 0)
			continue
		}
		heap.Push(&h, c)
	}
	out := make([]memHit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(memHit)
	}
	return out
}

// phrase returns the postings a phrase of the query reads: its token's, or
// for a lone CJK character every token that starts with it.
func (m *memIndex) phrase(t string) []*plist {
	if r, n := utf8.DecodeRuneInString(t); n == len(t) && vault.IsCJK(r) {
		return m.terms.withPrefix(t)
	}
	if p := m.terms.find(t); p != nil && p.n > 0 {
		return []*plist{p}
	}
	return nil
}

// better orders hits as `ORDER BY -score, rowid` does.
func better(a, b memHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.uid < b.uid
}

// memHeap is a min-heap of the best hits so far (worst on top).
type memHeap []memHit

func (h memHeap) Len() int           { return len(h) }
func (h memHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h memHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *memHeap) Push(x any)        { *h = append(*h, x.(memHit)) }
func (h *memHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// MemStats describes the in-memory postings (lore bench measures their
// memory as heap growth).
type MemStats struct {
	Units, Tokens, Postings int64 // live units, distinct tokens, postings
	Mapped                  bool  // mapped from the copy a process saved (copyfile.go), not built
}

// inMemory reports whether BM25 is scored from the in-memory copy of the
// postings (KeepInMemory built it, and the vault is within its bound). It
// costs a lock, unlike PostingsStats, which counts the vocabulary.
func (ix *Index) inMemory() bool {
	ix.memMu.Lock()
	defer ix.memMu.Unlock()
	return ix.mem != nil
}

// postingsStats reports on the in-memory postings; ok is false when there are none.
func (ix *Index) postingsStats() (MemStats, bool) {
	ix.memMu.Lock()
	m, mapped := ix.mem, ix.memFromCopy
	ix.memMu.Unlock()
	if m == nil {
		return MemStats{}, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return MemStats{Units: m.nLive, Tokens: int64(m.terms.count()), Postings: m.nPost, Mapped: mapped}, true
}

// embedKey is the first 64 bits of an embed_hash ("sha256:<hex>"): enough to
// tell which vector a unit has.
func embedKey(h string) uint64 {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 16 {
		h = h[:16]
	}
	k, _ := strconv.ParseUint(h, 16, 64)
	return k
}

// vectorUnits turns the rescored neighbours (vector rowid, embedKey,
// cosine distance) into the visible units that carry them, ordered by
// distance then unit_key, at most limit: what vectorSearch's SQL join does.
func (m *memIndex) vectorUnits(ns []neighbour, project string, limit int) []Neighbor {
	m.mu.RLock()
	defer m.mu.RUnlock()
	type pair struct {
		dist float64
		key  string
		uid  int64
	}
	var ps []pair
	for _, n := range ns {
		d, ok := m.byEmb.find(n.emb)
		for ; ok && d >= 0; d = m.docs[d].nextEmb {
			doc := &m.docs[d]
			if m.lens[d] >= 0 && m.visible(doc.res, project) {
				ps = append(ps, pair{n.dist, m.key(d), doc.uid})
			}
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
	out := make([]Neighbor, len(ps))
	for i, p := range ps {
		out[i] = Neighbor{UID: p.uid, Similarity: 1 - p.dist}
	}
	return out
}

// Resident is the index's in-memory side: the copies a long-running
// process scores from, and the mapped file a one-shot query reads.
type Resident struct{ ix *Index }

// Resident returns the index's in-memory side.
func (ix *Index) Resident() Resident { return Resident{ix} }

// Keep builds the in-memory copies and keeps them current (see
// keepInMemory).
func (r Resident) Keep(ctx context.Context) error { return r.ix.keepInMemory(ctx) }

// On reports whether queries score from the in-memory copies.
func (r Resident) On() bool { return r.ix.inMemory() }

// Stats says what the in-memory copy holds (false: none is kept).
func (r Resident) Stats() (MemStats, bool) { return r.ix.postingsStats() }

// Map maps the index file for a one-shot command's queries (see
// mapForQueries).
func (r Resident) Map(ctx context.Context) { r.ix.mapForQueries(ctx) }
