package fts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/unicode/norm"

	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Refresh and rebuild: the index follows the vault. A pass compares the
// folder walk with the index's freshness snapshot, reads and parses what
// changed (in parallel), and writes it in batches, each one transaction.

// Rebuild indexes the whole vault again: every file is read, parsed and
// written anew, files no longer there are dropped, and the Drafts' rows are
// written again. It never empties the index first: each batch replaces its
// files' rows in one transaction, so another process reading meanwhile sees
// every note, in its old or its new form — never a note missing (emptying
// first once made load and update answer "not found" and let a create take
// an existing path while a rebuild ran).
func (ix *Index) Rebuild(ctx context.Context, progress func(done, total int)) (RefreshStats, error) {
	if ix.readOnly != "" {
		return RefreshStats{ReadOnly: ix.readOnly}, vault.Errorf(vault.CodeInternal, "the index cannot be rebuilt: %s", ix.readOnly)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	defer func() { ix.memos = nil }() // as in Refresh
	var st RefreshStats
	if _, err := ix.refreshPass(ctx, progress, &st, true); err != nil {
		return st, err
	}
	if err := ix.refreshPasses(ctx, progress, &st); err != nil { // what changed while it ran
		return st, err
	}
	if err := ix.refreshOverlayForced(ctx, true); err != nil {
		return st, err
	}
	if err := ix.mergeFTS(ctx); err != nil {
		return st, err
	}
	return st, ix.freePages(ctx)
}

// freePages gives the index file's free pages back to the file system, in
// steps of freeStepPages, each its own transaction. A rebuild frees about
// what it writes (the old rows, the unmerged segments): on 100,000 generated
// notes the file had grown to 2.3 GB holding 1.1 GB. Only a file made with
// incremental auto-vacuum (newIndexFile, since this change) can; in an older
// one the free pages stay for later writes to reuse.
func (ix *Index) freePages(ctx context.Context) error {
	var mode int
	if err := ix.db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil || mode != 2 {
		return translate(err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var free int
		if err := ix.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return translate(err)
		}
		if free == 0 {
			return nil
		}
		if _, err := ix.execWrite(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", min(free, freeStepPages))); err != nil {
			return translate(err)
		}
	}
}

const freeStepPages = 4096 // 64 MiB of 16 KiB pages

// mergeFTS merges the full-text index's segments into one, in steps of
// mergeStepPages pages, each its own transaction (another process's write
// waits for one step, ~0.4 s on a large vault, not for the whole merge).
// A rebuild writes every unit again over the old rows, and FTS5 keeps the
// old entries and its deletion markers until their segments are merged: on
// 100,000 generated notes three rebuilds took units_fts_data from ~320 to
// 831 MB; the merge takes ~15 s there and brings it back to 315 MB (the
// pages freed are reused by later writes; the file does not shrink).
func (ix *Index) mergeFTS(ctx context.Context) error {
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return translate(err)
	}
	defer conn.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// FTS5: a 'merge' that did no work changes fewer than two rows.
		var before, after int64
		if err := conn.QueryRowContext(ctx, "SELECT total_changes()").Scan(&before); err != nil {
			return translate(err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO units_fts(units_fts, rank) VALUES('merge', ?)", -mergeStepPages); err != nil {
			return translate(err)
		}
		if err := conn.QueryRowContext(ctx, "SELECT total_changes()").Scan(&after); err != nil {
			return translate(err)
		}
		if after-before < 2 {
			return nil
		}
	}
}

// mergeStepPages is the work of one merge step (a negative 'merge' argument
// merges segments whatever their level).
const mergeStepPages = 2000

// snapshot returns the freshness snapshot, reloading it when another process
// (or a clear) changed the index. Callers hold ix.mu.
func (ix *Index) snapshot(ctx context.Context) (map[string]fileRow, error) {
	g, err := ix.generation(ctx)
	if err != nil {
		return nil, err
	}
	if ix.snap != nil && g == ix.gen {
		return ix.snap, nil
	}
	ix.snapshots++
	rows, err := ix.db.QueryContext(ctx, "SELECT path, size, mod_ns, content_hash FROM resources WHERE draft = ''")
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	snap := map[string]fileRow{}
	for rows.Next() {
		var p string
		var r fileRow
		if err := rows.Scan(&p, &r.size, &r.mod, &r.hash); err != nil {
			return nil, err
		}
		snap[p] = r
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	ix.snap, ix.gen = snap, g
	return snap, nil
}

// RefreshStats says what a freshness check found and did.
type RefreshStats struct {
	Files     int // memory files in the vault
	Added     int
	Updated   int
	Removed   int
	Touched   int // stat changed, bytes did not
	Skipped   int // files refused (binary, too large, unreadable)
	Problems  []vault.Problem
	Unchanged bool
	ReadOnly  string // why nothing could be recorded (Index.ReadOnly)
}

// change is one file's pending update.
type change struct {
	stat     vault.FileStat
	old      *fileRow
	res      *vault.Resource // parsed; nil when skipped or unchanged bytes
	hash     string
	skip     string // why the file is not indexed
	prepared []preparedUnit
	meta     string // the FTS meta column's text (metaText)
	gone     bool   // the file disappeared while being read
	force    bool   // parse and write it even if its bytes did not change (rebuild)
	parsed   bool   // prepareData parsed it: its rows are written anew
	embeds   bool   // a unit of it shows an embedded note (embedtext.go)
}

type preparedUnit struct {
	headingJSON, embedHash             string
	ftsPath, ftsTitle, ftsMeta, ftsHdr string
	ftsBody                            string
	uid                                int64 // the uid it was given, and its key as written (an id clash may change it), for a cold index's copy (coldcopy.go)
	key                                string
}

// batchSize bounds how many files one transaction writes (and memory holds).
const batchSize = 1000

// ftsAutomerge is FTS5's own default for merging its segments, which the
// index keeps. FTS5 writes a batch's terms as one new segment, and merges
// segments as they pile up (4 on a level). In a refresh of many batches (a
// cold index, a rebuild, a large pull) that merging was ~10 % of the
// writer's work on the critical path: 114,766 page writes became 92,186
// without it for 10,000 notes. So each such batch turns merging off for
// its own writing and back on before it commits: a crash cannot leave it
// off, FTS5's crisis merge still merges a level that reaches 16 segments,
// and later refreshes merge the rest a little at a time. Queries read
// more segments meanwhile (10 instead of 4 after 10,000 notes): 0.9 % more
// instructions for a set of 60 one-shot queries.
const ftsAutomerge = 4

// Refresh makes the index follow the vault: it stats every memory file, reads
// and hashes only those whose size or modification time changed, re-indexes
// only those whose bytes changed, and drops files that are gone. With nothing
// changed it costs one directory walk and one small query. progress, if not
// nil, is called as files are indexed.
func (ix *Index) Refresh(ctx context.Context, progress func(done, total int)) (RefreshStats, error) {
	if ix.readOnly != "" {
		return RefreshStats{Unchanged: true, ReadOnly: ix.readOnly}, nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// The preparing workers' memos serve one refresh: a long-running
	// process would otherwise keep them, and the tokens in them, for hours.
	defer func() { ix.memos = nil }()
	var st RefreshStats
	err := ix.refreshPasses(ctx, progress, &st)
	if err == nil {
		err = ix.refreshOverlay(ctx)
	}
	if cc := ix.coldDone; cc != nil {
		ix.coldDone = nil
		ix.finishColdCopy(ctx, cc, err == nil)
	}
	return st, err
}

// refreshPasses runs refreshPass until nothing is left (at most twice: the
// second pass picks up files whose freed ids changed them).
func (ix *Index) refreshPasses(ctx context.Context, progress func(done, total int), st *RefreshStats) error {
	for pass := 0; pass < 2; pass++ {
		more, err := ix.refreshPass(ctx, progress, st, false)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// refreshPass indexes what changed since the snapshot; with force, every
// file in the vault (a rebuild: the watcher's short list is not used).
func (ix *Index) refreshPass(ctx context.Context, progress func(done, total int), st *RefreshStats, force bool) (bool, error) {
	v, err := ix.views(ctx, force)
	if err != nil {
		return false, err
	}
	if v.checked == nil {
		st.Files, st.Problems = len(v.files), v.problems
	} else {
		st.Files = len(v.snap)
	}
	if v.same {
		st.Unchanged = st.Added+st.Updated+st.Removed+st.Touched == 0
		return false, nil
	}
	todo, removed := v.changes(force)
	if len(todo) == 0 && len(removed) == 0 {
		st.Unchanged = st.Added+st.Updated+st.Removed+st.Touched == 0
		if v.drifted {
			// The vault is as the index has it, yet the digests differed:
			// some row's key is stale (written by a lore from before stat
			// keys, say). Writing every key again turns the fast path back on.
			ix.fillStatKeys(ctx, true)
		}
		return false, nil
	}
	paths := append([]string(nil), removed...)
	for _, c := range todo {
		paths = append(paths, c.stat.Path)
	}
	// The names the rows at these paths had, for the notes that embed them
	// (embedtext.go); none to look for when no note shows an embed.
	var before map[string]bool
	if ix.anyEmbeds(ctx) {
		if before, err = ix.namesAt(ctx, paths); err != nil {
			return false, err
		}
	}
	if !force {
		ix.cold = ix.startColdCopy(ctx, todo)
	}
	err = ix.write(ctx, todo, removed, st, progress)
	if ix.cold != nil {
		ix.coldDone, ix.cold = ix.cold, nil
	}
	if err != nil {
		return false, err
	}
	var written []string
	embeds := map[string]bool{}
	for _, c := range todo {
		if c.parsed {
			written = append(written, c.stat.Path)
			if c.embeds {
				embeds[c.stat.Path] = true
			}
		}
	}
	if err := ix.refreshEmbedded(ctx, written, embeds, before); err != nil {
		return false, err
	}
	if st.Removed+st.Updated == 0 {
		return false, nil // only removals and updates can free an id
	}
	return ix.requeueFreedIDs(ctx)
}

// views are the index's view of the vault (snap) and the vault's own
// (files): every file, or with a watcher only the files it saw change, and
// checked says which paths those cover. same reports that a full walk
// found the vault as the index has it (digest.go); snap is then not read.
type views struct {
	snap     map[string]fileRow
	files    []vault.FileStat
	problems []vault.Problem
	checked  *covered // nil: files is the whole vault
	same     bool
	// drifted: the digests differed (or some key was unknown), so the
	// snapshot was read; if it then finds nothing to do, the keys are stale.
	drifted bool
}

// views reads the index's view (a query) and the vault's (a walk of its
// folders) at once: each is a large part of a one-shot command (docs/
// BENCHMARKS.md, "One warm lore"), and they share nothing. Without a snapshot in memory, the index's view is
// first its digest, and the snapshot is read only when the digests differ.
func (ix *Index) views(ctx context.Context, force bool) (views, error) {
	var v views
	var scanErr error
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		scanErr = safe.Call(func() (err error) {
			if force {
				v.files, v.problems, err = ix.v.Scan()
			} else {
				v.files, v.problems, v.checked, err = ix.changedFiles()
			}
			return err
		})
	}()
	if !force && ix.snap == nil {
		d, known, err := ix.indexDigest(ctx)
		<-scanned
		if err != nil {
			return v, err
		}
		if scanErr != nil {
			return v, scanErr
		}
		if known && v.checked == nil && walkDigest(ix.statSalt, v.files) == d {
			v.same = true
			return v, nil
		}
		v.drifted = v.checked == nil
		v.snap, err = ix.snapshot(ctx)
		return v, err
	}
	snap, err := ix.snapshot(ctx)
	<-scanned
	if err != nil {
		return v, err
	}
	v.snap = snap
	return v, scanErr
}

// changes compares the two views: the files to index (new, or whose size or
// mtime changed; every one when force) and the indexed paths that are gone.
func (v views) changes(force bool) (todo []*change, removed []string) {
	// A full walk names each file once; the watcher's folders and files
	// may name one twice (a watched folder and a file in it).
	var present map[string]bool
	if v.checked != nil {
		present = make(map[string]bool, len(v.files))
	}
	known := 0 // files the snapshot has
	for _, f := range v.files {
		if present != nil {
			if present[f.Path] {
				continue
			}
			present[f.Path] = true
		}
		old, ok := v.snap[f.Path]
		if ok {
			known++
		}
		if ok && old.size == f.Size && old.mod == f.ModNs && !force {
			continue
		}
		c := &change{stat: f, force: force}
		if ok {
			o := old
			c.old = &o
		}
		todo = append(todo, c)
	}
	// In path order: a note's row numbers follow it, and BM25's cut breaks
	// ties by row number, so the same vault indexed afresh ranks the same
	// however the parallel walk's folders finished (vault.ScanFrom).
	slices.SortFunc(todo, func(a, b *change) int { return strings.Compare(a.stat.Path, b.stat.Path) })
	if v.checked != nil {
		// Only what the watcher named can be gone; an idle watcher named
		// nothing, and the snapshot (every file of the vault) is not read:
		// it was a tenth of a millisecond per 10,000 notes, per query.
		return todo, v.checked.gone(v.snap, present)
	}
	if known == len(v.snap) {
		return todo, nil // every indexed file is still there
	}
	present = make(map[string]bool, len(v.files))
	for _, f := range v.files {
		present[f.Path] = true
	}
	for p := range v.snap {
		if !present[p] {
			removed = append(removed, p)
		}
	}
	return todo, removed
}

// write indexes todo and deletes removed, in batches: parsing (Go,
// parallel) of the next batch overlaps writing (SQLite, one writer) of the
// current one.
func (ix *Index) write(ctx context.Context, todo []*change, removed []string, st *RefreshStats, progress func(done, total int)) error {
	bulk := len(todo) > batchSize
	if bulk && ix.bulk != nil {
		defer ix.bulk.Start()()
	}
	batches := make(chan []*change, 1)
	go func() {
		defer close(batches)
		for start := 0; start < len(todo); start += batchSize {
			batch := todo[start:min(start+batchSize, len(todo))]
			ix.prepare(batch)
			select {
			case batches <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	done := 0
	first := true
	for batch := range batches {
		if err := ix.apply(ctx, batch, removed, st, bulk); err != nil {
			for range batches { // let the producer finish
			}
			return err
		}
		removed, first = nil, false
		done += len(batch)
		if ix.cold == nil || !ix.cold.take(batch) {
			for _, c := range batch { // written: let the parsed text go
				c.res, c.prepared, c.meta = nil, nil, ""
			}
		}
		if bulk && ix.bulk != nil {
			ix.bulk.Batch()
		}
		if progress != nil {
			progress(done, len(todo))
		}
	}
	if first && len(removed) > 0 { // deletions only
		if err := ix.apply(ctx, nil, removed, st, false); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// memoBatch is the smallest batch prepared through memos.
const memoBatch = 64

// prepare reads, hashes, parses and tokenizes a batch in parallel.
func (ix *Index) prepare(batch []*change) {
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	for len(batch) >= memoBatch && len(ix.memos) < workers {
		ix.memos = append(ix.memos, tokenize.NewMemo())
	}
	// Workers take the next file by counting, not from a channel: a
	// channel hand-off a file woke and parked goroutines ten thousand times
	// a cold index.
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		var memo tokenize.Memo // none for a few files: it costs more than it saves
		if w < len(ix.memos) {
			memo = ix.memos[w]
		}
		go func(memo tokenize.Memo) {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(batch)); i = next.Add(1) - 1 {
				ix.prepareOne(batch[i], memo)
			}
		}(memo)
	}
	wg.Wait()
}

func (ix *Index) prepareOne(c *change, memo tokenize.Memo) {
	data, err := ix.v.ReadFile(c.stat.FSPath)
	if err != nil {
		if vault.ErrorCode(err) == vault.CodeNotFound {
			c.gone = true
			return
		}
		c.skip = vault.Message(err)
		c.hash = "sha256:unread"
		return
	}
	c.stat.Size = int64(len(data))
	c.hash = vault.HashBytes(data)
	if c.old != nil && c.old.hash == c.hash && !c.force {
		return // touched only
	}
	prepareData(c, data, memo)
}

// prepareData parses and tokenizes one file's bytes into c. A file (or a
// Draft's file) that makes lore panic is recorded as unreadable, as a file
// that cannot be parsed is: it never stops the others being indexed.
func prepareData(c *change, data []byte, memo tokenize.Memo) {
	defer func() {
		if v := recover(); v != nil {
			c.res, c.prepared, c.meta = nil, nil, ""
			c.skip = fmt.Sprintf("%s could not be indexed (a bug in lore: %v); it is left out until it changes", c.stat.Path, v)
		}
	}()
	r, err := parseNote(c.stat.Path, data)
	if err != nil {
		c.skip = vault.Message(err)
		return
	}
	c.res, c.parsed = r, true
	if bytes.Contains(data, []byte("![")) {
		for _, u := range r.Units {
			if len(markdown.Embeds(u.Content)) > 0 { // not in code or comments, not of attachments
				c.embeds = true
				break
			}
		}
	}
	c.meta = metaText(r)
	pathTerms, titleTerms, metaTerms := memo.Text(r.Path), memo.Text(r.Title), memo.Text(c.meta)
	c.prepared = make([]preparedUnit, len(r.Units))
	for i, u := range r.Units {
		hp, _ := json.Marshal(u.HeadingPath)
		readable, readableHash := markdown.ReadableText(u.Content), u.ContentHash
		if readable != u.Content {
			readableHash = vault.HashBytes([]byte(readable))
		}
		c.prepared[i] = preparedUnit{
			headingJSON: string(hp),
			embedHash:   embedHash(r.Title, u.HeadingPath, readableHash),
			ftsPath:     pathTerms, ftsTitle: titleTerms, ftsMeta: metaTerms,
			ftsHdr:  memo.Text(strings.Join(u.HeadingPath, " ")),
			ftsBody: memo.Text(readable),
		}
	}
}

// parseNote is markdown.Parse; containment tests make it panic on one file.
var parseNote = markdown.Parse

// metaText is the text of a resource's FTS meta column.
func metaText(r *vault.Resource) string {
	return strings.Join(append(append([]string{r.Description}, r.Front.Tags...), r.Front.Keywords...), " ")
}

// apply writes one batch in one transaction and bumps the generation. bulk
// says the batch is one of many in this refresh (see ftsAutomerge).
func (ix *Index) apply(ctx context.Context, batch []*change, removed []string, st *RefreshStats, bulk bool) error {
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx.Tx)
	if err != nil {
		return err
	}
	defer w.close()
	w.salt = ix.statSalt
	if bulk {
		if err := w.exec("INSERT INTO units_fts(units_fts, rank) VALUES('automerge', 0)"); err != nil {
			return err
		}
	}
	// Every delete comes before the first insert. A statement that can
	// reach the FTS table through a trigger opens a statement savepoint, and
	// FTS5 writes its pending terms out as a new segment at every savepoint:
	// deletes interleaved with inserts made one tiny segment per file (and
	// the merging of thousands of them was most of a cold index's time).
	for _, p := range removed {
		if _, err := w.run(w.delRes, p); err != nil {
			return err
		}
		st.Removed++
	}
	for _, c := range batch {
		if c.gone || c.res != nil || c.skip != "" {
			if _, err := w.run(w.delRes, c.stat.Path); err != nil {
				return err
			}
		}
	}
	if err := w.beginInserts(); err != nil {
		return err
	}
	if err := writeBatch(ctx, w, batch, st); err != nil {
		return err
	}
	var before, after int64
	if ix.cold != nil {
		if before, err = batchSeq(w); err != nil {
			return err
		}
	}
	if err := w.finishInserts(); err != nil {
		return err
	}
	if ix.cold != nil {
		if after, err = batchSeq(w); err != nil {
			return err
		}
	}
	if bulk { // the terms are written (finishInserts): merging is back on before the commit
		if err := w.exec("INSERT INTO units_fts(units_fts, rank) VALUES('automerge', ?)", ftsAutomerge); err != nil {
			return err
		}
	}
	gen, err := bumpGeneration(ctx, tx.Tx)
	if err != nil {
		return err
	}
	if err := translate(tx.Commit()); err != nil {
		return err
	}
	if len(batch) > 0 {
		ix.NotifyChanged()
	}
	if ix.cold != nil {
		ix.cold.committed(batch, before, after)
	}
	ix.keepSnapshot(gen, batch, removed)
	return nil
}

// writeBatch writes a batch's files after their old rows are deleted:
// unchanged bytes only touch the size and mtime, anything else is upserted
// (a file that cannot be read as a note is kept with its problem).
func writeBatch(ctx context.Context, w *writer, batch []*change, st *RefreshStats) error {
	for _, c := range batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case c.gone:
			if c.old != nil {
				st.Removed++
			}
		case c.res == nil && c.skip == "":
			if err := w.exec("UPDATE resources SET size = ?, mod_ns = ?, stat_key = ? WHERE path = ? AND draft = ''", c.stat.Size, c.stat.ModNs, w.statKey(c), c.stat.Path); err != nil {
				return err
			}
			st.Touched++
		default:
			if err := w.upsert(c); err != nil {
				return err
			}
			switch {
			case c.skip != "":
				st.Skipped++
			case c.old == nil:
				st.Added++
			default:
				st.Updated++
			}
		}
	}
	return nil
}

// keepSnapshot brings the freshness snapshot up to date with a batch just
// committed as generation gen, in place, when nobody else wrote since it was
// read; otherwise it drops it, to be read again.
func (ix *Index) keepSnapshot(gen int64, batch []*change, removed []string) {
	if ix.snap == nil || strconv.FormatInt(gen-1, 10) != ix.gen {
		ix.snap = nil
		return
	}
	for _, p := range removed {
		delete(ix.snap, p)
	}
	for _, c := range batch {
		switch {
		case c.gone:
			delete(ix.snap, c.stat.Path)
		case c.res == nil && c.skip == "":
			ix.snap[c.stat.Path] = fileRow{size: c.stat.Size, mod: c.stat.ModNs, hash: c.old.hash}
		default:
			ix.snap[c.stat.Path] = fileRow{size: c.stat.Size, mod: c.stat.ModNs, hash: c.hash}
		}
	}
	ix.gen = strconv.FormatInt(gen, 10)
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// titleKey is the form titles are matched in by the exact stage.
func titleKey(t string) string {
	return strings.ToLower(norm.NFC.String(strings.TrimSpace(t)))
}
