package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
)

// The in-memory postings (package memindex): a copy of the FTS table's
// tokens that a long-running process (lore mcp, lore serve) keeps to score
// BM25 in Go, to the same scores as FTS5. One-shot commands (lore search,
// lore activate) query FTS5 directly: building the copy costs more than the
// query it would speed up.
//
// The copy follows the index through unit_log, where every unit inserted or
// deleted is recorded in order (inserts by the writer, deletes by a trigger),
// so changes made by other processes are seen too; a process that fell
// behind the log's trimmed end builds its copy again. Deleted units leave
// their postings behind, skipped by a liveness bit, until they are a third
// of the total and the copy is compacted (memindex.Index.Tidy).

// memCopy is the in-memory copy with what this package follows it by.
type memCopy struct {
	*memindex.Index
	gen     string          // the index's generation it reflects
	lastSeq int64           // the last unit_log entry it reflects
	stale   []int64         // resources whose notes no longer held a unit's text when it was read (texts.go)
	memos   []tokenize.Memo // the loading workers', during one load; used under the copy's lock (or before it is shared)
}

// maxMemUnits bounds the vaults whose postings are kept in memory (about two
// bytes a posting packed, ~100 distinct tokens a unit; what a copy takes,
// heap and mapped, is BenchmarkInMemoryCopyOf's, in docs/BENCHMARKS.md,
// "One warm lore").
// Larger vaults are scored by FTS5 alone.
const maxMemUnits = 1_000_000

// keepInMemory builds the in-memory postings (package memindex) and the vectors'
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
func (ix *Index) memFor(ctx context.Context) (*memCopy, error) {
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
// (memindex.Load), or else one built from the index (built true).
func (ix *Index) openMem(ctx context.Context) (m *memCopy, built bool, err error) {
	if m, ok := ix.savedMem(ctx); ok {
		return m, false, nil
	}
	m, err = ix.buildMem(ctx)
	return m, m != nil, err
}

// savedMem is the saved copy, mapped and brought up to date, when it is
// this index's and the unit_log still reaches back to it.
func (ix *Index) savedMem(ctx context.Context) (*memCopy, bool) {
	m, err := ix.loadCopy(ctx)
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
	if err := ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM units").Scan(&n); err != nil || n != m.Live() {
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

// saveMem saves m for the next process (memindex.Save); failing costs that
// process a build, nothing else.
func (ix *Index) saveMem(ctx context.Context, m *memCopy) {
	if ix.readOnly != "" {
		return
	}
	m.Lock()
	m.Freeze()
	m.Unlock()
	ix.saveCopy(ctx, m)
}

// loadCopy maps the copy saved in the index's folder, as it was saved, or
// says why it cannot be used (memindex.Load): none, another index's, damaged.
func (ix *Index) loadCopy(ctx context.Context) (*memCopy, error) {
	salt, err := ix.saltValue(ctx)
	if err != nil {
		return nil, err
	}
	mi, seq, err := memindex.Load(ix.v.DataDir(), memindex.Origin{Format: IndexFormat, Salt: salt})
	if err != nil {
		return nil, err
	}
	return &memCopy{Index: mi, lastSeq: seq}, nil
}

// saveCopy saves m, frozen, for the next process, with the index it was
// made from (memindex.Save).
func (ix *Index) saveCopy(ctx context.Context, m *memCopy) error {
	salt, err := ix.saltValue(ctx)
	if err != nil {
		return err
	}
	return m.Save(ctx, ix.v.DataDir(), memindex.Origin{Format: IndexFormat, Salt: salt, LastSeq: m.lastSeq})
}

func (ix *Index) buildMem(ctx context.Context) (*memCopy, error) {
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
	m.Shrink()
	return m, nil
}

// loadAllUnits reads every unit into a new copy, its postings gathered in
// runs (memindex.StartRuns) when inRuns and the index's folder takes them, in the
// heap otherwise or when a run could not be written.
func (ix *Index) loadAllUnits(ctx context.Context, n int, inRuns bool) (*memCopy, error) {
	m := &memCopy{Index: memindex.New(n, ix.v.DataDir())}
	if inRuns {
		if err := m.StartRuns(); err != nil {
			return ix.loadAllUnits(ctx, n, false)
		}
		defer m.CloseRuns()
	}
	if err := ix.loadMemUnits(ctx, m, ""); err != nil {
		return nil, err
	}
	if err := m.EndRuns(); err != nil {
		return ix.loadAllUnits(ctx, n, false)
	}
	return m, nil
}

// syncMem applies the unit_log entries after m.lastSeq. It reports false when
// the log no longer reaches back that far.
func (ix *Index) syncMem(ctx context.Context, m *memCopy, gen string) (bool, error) {
	entries, last, ok, err := ix.readLog(ctx, "unit_log", "uid", m.lastSeq)
	if err != nil || !ok {
		return false, err
	}
	m.Lock()
	defer m.Unlock()
	err = applyLog(entries, m.Has,
		func(list string) error { return ix.loadMemUnits(ctx, m, "WHERE u.uid IN ("+list+")") },
		m.Remove)
	if err != nil {
		return false, err
	}
	if m.Live() > maxMemUnits {
		return false, nil
	}
	if err := ix.loadShadows(ctx, m); err != nil {
		return false, err
	}
	m.Tidy()
	m.lastSeq, m.gen, m.stale = last, gen, nil
	return true, nil
}

func (ix *Index) loadShadows(ctx context.Context, m *memCopy) error {
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
	m.SetShadows(sh)
	return translate(rows.Err())
}

// loadMemUnits reads units (all, or those where selects) with their
// resources, tokenizes them as prepareData did for FTS5, and adds them to m,
// which the caller holds locked or owns alone. It works through the units
// memChunk at a time (tokenizing on every core, adding in uid order), so a
// build holds one chunk's text, not the vault's.
func (ix *Index) loadMemUnits(ctx context.Context, m *memCopy, where string) error {
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
			rt = &memResToks{res: &memindex.Res{Path: path, Project: project, Draft: draft, DProject: dproject},
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
	res               *memindex.Res
	path, title, meta []string
}

func (m *memCopy) addChunk(ctx context.Context, chunk []memRaw) error {
	out := make([]memindex.Unit, len(chunk))
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
				u := memindex.Unit{UID: r.uid, Key: r.key, Emb: embedKey(r.emb), Res: r.res.res}
				countUnit(&u, freq, [5][]string{r.res.path, r.res.title, r.res.meta,
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
		m.Add(&out[i])
	}
	return nil
}

func satAdd(a, b uint16) uint16 {
	if a > 0xffff-b {
		return 0xffff
	}
	return a + b
}

// MemStats describes the in-memory postings (lore bench measures their
// memory as heap growth).
type MemStats struct {
	Units, Tokens, Postings int64 // live units, distinct tokens, postings
	Mapped                  bool  // mapped from the copy a process saved (memindex.Load), not built
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
	units, tokens, postings := m.Stats()
	return MemStats{Units: units, Tokens: tokens, Postings: postings, Mapped: mapped}, true
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
