package fts

import (
	"context"
	"database/sql"
	"sync"

	"github.com/lore-memory/lore/fts/internal/signbits"
)

// The in-memory first pass of the vector stage. sqlite-vec's binary k-NN
// over vec0 costs more as k grows; the same Hamming-distance scan over sign
// bits held in memory (8 bytes of bits per 64 dimensions) is a fraction of
// it (signbits.BenchmarkNearest; docs/decisions/in-memory-copies.md has
// both figures). The rescoring stays in SQL, with
// sqlite-vec's own cosine distance, so similarities are the very numbers the
// SQL path computes; the units that carry each vector, their visibility and
// their order (distance, then unit_key) come from the postings' doc table
// (memindex.Index.VectorUnits), as the SQL path's join would give them. Only which
// vectors tie at the cut-off of the first pass may differ.
//
// The copy follows vec_log (vectors stored and deleted, in order) as the
// postings follow unit_log.

type memVectors struct {
	mu      sync.RWMutex
	set     *signbits.Set
	lastSeq int64 // the vec_log entry it reflects
}

// loadMemVectors builds the copy, or returns nil when the index stores no
// binary first pass (an embedding dimension not a multiple of 8).
func (ix *Index) loadMemVectors(ctx context.Context) (*memVectors, error) {
	if ix.emb == nil || !ix.binary {
		return nil, nil
	}
	seq, err := ix.vecLogEnd(ctx)
	if err != nil {
		return nil, err
	}
	mv := &memVectors{set: signbits.New(ix.emb.Dim()), lastSeq: seq}
	if err := ix.loadVectorRows(ctx, mv, ""); err != nil {
		return nil, err
	}
	if ok, err := ix.syncMemVectors(ctx, mv); err != nil || !ok {
		return nil, err
	}
	return mv, nil
}

// loadVectorRows reads float vectors (all, or where) and keeps their signs.
func (ix *Index) loadVectorRows(ctx context.Context, mv *memVectors, where string) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT f.rowid, f.embedding, `+hashSQL("e.embed_hash")+` FROM unit_vectors f
		JOIN embeddings e ON e.vec_rowid = f.rowid `+where+` ORDER BY f.rowid`)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob sql.RawBytes // read in place: only the signs are kept
		var h string
		if err := rows.Scan(&id, &blob, &h); err != nil {
			return translate(err)
		}
		mv.set.Add(id, blob, embedKey(h))
	}
	return translate(rows.Err())
}

// syncMemVectors applies vec_log after mv.lastSeq; false: the log no longer
// reaches back that far.
func (ix *Index) syncMemVectors(ctx context.Context, mv *memVectors) (bool, error) {
	entries, last, ok, err := ix.readLog(ctx, "vec_log", "vec_rowid", mv.lastSeq)
	if err != nil || !ok {
		return false, err
	}
	mv.mu.Lock()
	defer mv.mu.Unlock()
	err = applyLog(entries, mv.set.Has,
		func(list string) error { return ix.loadVectorRows(ctx, mv, "WHERE f.rowid IN ("+list+")") },
		mv.set.Remove)
	if err != nil {
		return false, err
	}
	mv.lastSeq = last
	return true, nil
}

// nearest returns the k rowids whose sign bits are closest to q's in Hamming
// distance, closest first (ties by rowid).
func (mv *memVectors) nearest(qv []float32, k int) []int64 {
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	return mv.set.Nearest(qv, k)
}

// vecLogEnd is the newest vec_log entry: it moves with every vector stored
// or deleted (AUTOINCREMENT never goes back).
func (ix *Index) vecLogEnd(ctx context.Context) (int64, error) {
	var seq int64
	err := ix.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM vec_log").Scan(&seq)
	return seq, translate(err)
}

// memVectorsFor returns the in-memory sign bits brought up to date, or nil
// when this process keeps none.
func (ix *Index) memVectorsFor(ctx context.Context) (*memVectors, error) {
	ix.memMu.Lock()
	defer ix.memMu.Unlock()
	if !ix.keepMem || ix.emb == nil || !ix.binary {
		return nil, nil
	}
	mv := ix.vecs
	if mv == nil || mv.set.Words() != signbits.WordsFor(ix.emb.Dim()) { // first use, or another model
		var err error
		if mv, err = ix.loadMemVectors(ctx); err != nil {
			return nil, err
		}
		ix.vecs = mv
		return mv, nil
	}
	end, err := ix.vecLogEnd(ctx)
	if err != nil {
		return nil, err
	}
	if end == mv.lastSeq {
		return mv, nil
	}
	ok, err := ix.syncMemVectors(ctx, mv)
	if err != nil {
		return nil, err
	}
	if !ok {
		if mv, err = ix.loadMemVectors(ctx); err != nil {
			return nil, err
		}
		ix.vecs = mv
	}
	return ix.vecs, nil
}

// embOf returns the embedKey of the vector rowid (0 when unknown).
func (mv *memVectors) embOf(id int64) uint64 {
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	return mv.set.Key(id)
}
