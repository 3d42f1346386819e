package fts

import (
	"context"
	"database/sql"
	"strings"

	"github.com/lore-memory/lore/fts/internal/memindex"
)

// The in-memory copy made beside a cold index. A refresh that fills an index
// holding no units (the first `lore index`; a rebuild never empties the
// index, so it makes none) already tokenizes every unit for
// FTS5; counting those same tokens into a copy of the postings as the
// batches commit, and saving it (memindex.Save), spares the first server
// started afterwards its build: reading and tokenizing every note again,
// 71 s at 100,000 generated notes on the development machine, while its
// agent waited.
//
// The copy made so is the one buildMem would make from the index, by
// construction and by check. Each batch's units are counted from the tokens
// written to FTS5 and handed over with the uids SQLite gave them once the
// batch committed; the unit_log entries of every batch must be exactly its
// own inserts, one after another from where the copy began: anything else
// in between (another process's write, an id clash that renamed an earlier
// note's units) abandons the copy, and the next server builds its own as
// before. After the refresh, what the log holds beyond the last batch (the
// embeds' second pass, Drafts, writes of other processes) is applied as a
// server applies it, and the copy is saved only if it then holds as many
// units as the index. TestColdCopy_IsTheCopyABuildMakes compares the two copies.
type coldCopy struct {
	m       *memCopy
	lastSeq int64 // the unit_log entry the copy reflects
	batches chan []*change
	done    chan struct{}
	failed  bool
	next    bool // the batch just committed is to be counted (committed)
	toks    []string
	freqs   []uint16 // the counting's buffers
}

// coldCopyMin is the fewest files a refresh writes for it to make a copy: a
// smaller vault's copy is built in well under a second.
var coldCopyMin = 200

// startColdCopy returns a copy to fill during this refresh of todo, or nil
// when the refresh is not a cold one of a vault a copy is kept for.
func (ix *Index) startColdCopy(ctx context.Context, todo []*change) *coldCopy {
	ix.memMu.Lock()
	held := ix.mem != nil
	ix.memMu.Unlock()
	if ix.readOnly != "" || held || ix.coldDone != nil || len(todo) < coldCopyMin || len(todo)*2 > maxMemUnits {
		return nil
	}
	var n int
	var seq sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM units), (SELECT MAX(seq) FROM unit_log)").Scan(&n, &seq); err != nil || n > 0 {
		return nil
	}
	cc := &coldCopy{m: &memCopy{Index: memindex.New(len(todo)*4, ix.v.DataDir())}, lastSeq: seq.Int64, batches: make(chan []*change, 1), done: make(chan struct{})}
	if err := cc.m.StartRuns(); err != nil {
		return nil
	}
	go func() {
		defer close(cc.done)
		freq := make(map[string]uint16, 256)
		for batch := range cc.batches {
			cc.count(batch, freq)
		}
	}()
	return cc
}

// batchSeq reads the unit_log's last entry inside a batch's transaction.
func batchSeq(w *writer) (int64, error) {
	var seq sql.NullInt64
	err := w.tx.QueryRowContext(w.ctx, "SELECT MAX(seq) FROM unit_log").Scan(&seq)
	return seq.Int64, translate(err)
}

// committed checks, after a batch committed, that the log between before
// and after holds exactly its units and that nothing came between it and
// the batch before; otherwise the copy is abandoned.
func (cc *coldCopy) committed(batch []*change, before, after int64) {
	cc.next = false
	if cc.failed {
		return
	}
	n := 0
	for _, c := range batch {
		if c.res != nil && c.skip == "" {
			n += len(c.prepared)
		}
	}
	if before != cc.lastSeq || after-before != int64(n) {
		cc.failed = true
		return
	}
	cc.lastSeq, cc.next = after, true
}

// take hands the batch just committed to the counting goroutine, which
// lets its parsed text go when counted, and reports whether it did.
func (cc *coldCopy) take(batch []*change) bool {
	if !cc.next {
		return false
	}
	cc.next = false
	cc.batches <- batch
	return true
}

// count adds a committed batch's units to the copy, from the very tokens
// written to FTS5 (joined by spaces, which no token holds).
func (cc *coldCopy) count(batch []*change, freq map[string]uint16) {
	for _, c := range batch {
		if r := c.res; r != nil && c.skip == "" {
			res := &memindex.Res{Path: r.Path, Project: r.Project}
			for i := range c.prepared {
				p := &c.prepared[i]
				u := memindex.Unit{UID: p.uid, Key: p.key, Emb: embedKey(p.embedHash), Res: res}
				clear(freq)
				for col, text := range [5]string{p.ftsPath, p.ftsTitle, p.ftsMeta, p.ftsHdr, p.ftsBody} {
					for rest := text; rest != ""; { // its tokens, joined by spaces (which no token holds)
						var t string
						t, rest, _ = strings.Cut(rest, " ")
						freq[t] = satAdd(freq[t], columnWeights[col])
						u.Length++
					}
				}
				fillUnit(&u, freq, cc.toks[:0], cc.freqs[:0]) // Add keeps neither buffer
				cc.m.Add(&u)
				cc.toks, cc.freqs = u.Toks, u.Freq
			}
		}
		c.res, c.prepared, c.meta = nil, nil, ""
	}
}

// finish ends the copy's filling; with save, it brings the copy up to the
// index as a server would and saves it for the next process.
func (ix *Index) finishColdCopy(ctx context.Context, cc *coldCopy, save bool) {
	close(cc.batches)
	<-cc.done
	m := cc.m
	defer m.CloseRuns()
	if !save || cc.failed || m.EndRuns() != nil {
		return
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		return
	}
	m.lastSeq = cc.lastSeq
	if ok, err := ix.syncMem(ctx, m, gen); err != nil || !ok {
		return
	}
	var n int64
	if err := ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM units").Scan(&n); err != nil || n != m.Live() {
		return
	}
	m.Shrink()
	beforeColdSave()
	ix.saveCopy(ctx, m)
}

// beforeColdSave is called just before a cold index saves its copy; the
// crash test's child process says so there.
var beforeColdSave = func() {}

// columnWeights are the five FTS columns' weights, in the table's order
// (path, title, meta, heading, body).
var columnWeights = [5]uint16{weightPath, weightTitle, weightMeta, weightHeading, weightBody}

// countUnit fills u's distinct tokens, their weighted frequencies and its
// length from its five columns' tokens, as FTS5 counts them.
func countUnit(u *memindex.Unit, freq map[string]uint16, cols [5][]string) {
	clear(freq)
	for i, ts := range cols {
		for _, t := range ts {
			freq[t] = satAdd(freq[t], columnWeights[i])
		}
		u.Length += int32(len(ts))
	}
	fillUnit(u, freq, make([]string, 0, len(freq)), make([]uint16, 0, len(freq)))
}

// fillUnit sets u's tokens and frequencies from freq, appending to toks and fr.
func fillUnit(u *memindex.Unit, freq map[string]uint16, toks []string, fr []uint16) {
	for t, f := range freq {
		toks, fr = append(toks, t), append(fr, f)
	}
	u.Toks, u.Freq = toks, fr
}
