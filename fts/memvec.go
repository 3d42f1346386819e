package fts

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"math/bits"
	"sort"
	"sync"
)

// The in-memory first pass of the vector stage. sqlite-vec's binary k-NN
// over vec0 takes ~20 ms for 60,000 vectors and 160 neighbours (its cost
// grows with k); the same Hamming-distance scan over sign bits held in
// memory takes well under a millisecond (8 bytes of bits per 64 dimensions:
// 3.8 MB for 60,000 vectors of 512). The rescoring stays in SQL, with
// sqlite-vec's own cosine distance, so similarities are the very numbers the
// SQL path computes; the units that carry each vector, their visibility and
// their order (distance, then unit_key) come from the postings' doc table
// (memIndex.vectorUnits), as the SQL path's join would give them. Only which
// vectors tie at the cut-off of the first pass may differ.
//
// The copy follows vec_log (vectors stored and deleted, in order) as the
// postings follow unit_log.

type memVectors struct {
	mu      sync.RWMutex
	words   int // uint64 words per vector
	rowids  []int64
	emb     []uint64 // embedKey of each vector's embed_hash
	codes   []uint64 // len(rowids) * words
	at      map[int64]int
	dead    int
	lastSeq int64 // the vec_log entry it reflects
}

// loadMemVectors builds the copy, or returns nil when the index stores no
// binary first pass (an embedding dimension not a multiple of 8).
func (ix *Index) loadMemVectors(ctx context.Context) (*memVectors, error) {
	if ix.emb == nil || !ix.binary {
		return nil, nil
	}
	words := (ix.emb.Dim() + 63) / 64
	seq, err := ix.vecLogEnd(ctx)
	if err != nil {
		return nil, err
	}
	mv := &memVectors{words: words, at: map[int64]int{}, lastSeq: seq}
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
		mv.add(id, blob, embedKey(h))
	}
	return translate(rows.Err())
}

// add keeps the sign bits of a little-endian float32 vector, in the bit
// order of sqlite-vec's vec_quantize_binary (bit i of byte i/8 is dimension
// i); Hamming distances do not depend on the order anyway.
func (mv *memVectors) add(id int64, blob []byte, emb uint64) {
	if i, ok := mv.at[id]; ok && mv.rowids[i] == id {
		return
	}
	code := make([]uint64, mv.words)
	for d := 0; d+4 <= len(blob) && d/4 < mv.words*64; d += 4 {
		if math.Float32frombits(binary.LittleEndian.Uint32(blob[d:])) > 0 {
			k := d / 4
			code[k/64] |= 1 << (k % 64)
		}
	}
	mv.at[id] = len(mv.rowids)
	mv.rowids = append(mv.rowids, id)
	mv.emb = append(mv.emb, emb)
	mv.codes = append(mv.codes, code...)
}

func (mv *memVectors) remove(id int64) {
	i, ok := mv.at[id]
	if !ok {
		return
	}
	delete(mv.at, id)
	mv.rowids[i] = -1
	mv.dead++
}

func (mv *memVectors) compact() {
	k := 0
	for i, id := range mv.rowids {
		if id < 0 {
			continue
		}
		mv.rowids[k], mv.emb[k] = id, mv.emb[i]
		copy(mv.codes[k*mv.words:(k+1)*mv.words], mv.codes[i*mv.words:(i+1)*mv.words])
		mv.at[id] = k
		k++
	}
	mv.rowids, mv.emb, mv.codes, mv.dead = mv.rowids[:k], mv.emb[:k], mv.codes[:k*mv.words], 0
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
	err = applyLog(entries,
		func(id int64) bool { _, ok := mv.at[id]; return ok },
		func(list string) error { return ix.loadVectorRows(ctx, mv, "WHERE f.rowid IN ("+list+")") },
		mv.remove)
	if err != nil {
		return false, err
	}
	if mv.dead*3 > len(mv.rowids) {
		mv.compact()
	}
	mv.lastSeq = last
	return true, nil
}

// nearest returns the k rowids whose sign bits are closest to q's in Hamming
// distance, closest first (ties by rowid).
func (mv *memVectors) nearest(qv []float32, k int) []int64 {
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	q := make([]uint64, max(mv.words, 8))
	for d, x := range qv {
		if d < mv.words*64 && x > 0 {
			q[d/64] |= 1 << (d % 64)
		}
	}
	type cand struct {
		dist int
		id   int64
	}
	// A bounded max-heap would do; with k in the hundreds a sorted insert
	// into a small slice is as fast and simpler.
	top := make([]cand, 0, k+1)
	worst := math.MaxInt
	codes, words := mv.codes, mv.words
	for i, id := range mv.rowids {
		var dist int
		if words == 8 { // 512 dimensions, the built-in model's: unrolled
			c := codes[i*8 : i*8+8 : i*8+8]
			dist = bits.OnesCount64(c[0]^q[0]) + bits.OnesCount64(c[1]^q[1]) +
				bits.OnesCount64(c[2]^q[2]) + bits.OnesCount64(c[3]^q[3]) +
				bits.OnesCount64(c[4]^q[4]) + bits.OnesCount64(c[5]^q[5]) +
				bits.OnesCount64(c[6]^q[6]) + bits.OnesCount64(c[7]^q[7])
		} else {
			for w, x := range codes[i*words : (i+1)*words] {
				dist += bits.OnesCount64(x ^ q[w])
			}
		}
		if dist >= worst || id < 0 {
			continue
		}
		c := cand{dist, id}
		j := sort.Search(len(top), func(j int) bool {
			return top[j].dist > c.dist || top[j].dist == c.dist && top[j].id > c.id
		})
		top = append(top, cand{})
		copy(top[j+1:], top[j:])
		top[j] = c
		if len(top) > k {
			top = top[:k]
		}
		if len(top) == k {
			worst = top[k-1].dist
		}
	}
	out := make([]int64, len(top))
	for i, c := range top {
		out[i] = c.id
	}
	return out
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
	if mv == nil || mv.words != (ix.emb.Dim()+63)/64 { // first use, or another model
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

// neighbour is one vector of the first pass, rescored.
type neighbour struct {
	rowid int64
	emb   uint64
	dist  float64 // sqlite-vec's cosine distance
}

// embOf returns the embedKey of the vector rowid (0 when unknown).
func (mv *memVectors) embOf(id int64) uint64 {
	mv.mu.RLock()
	defer mv.mu.RUnlock()
	if i, ok := mv.at[id]; ok {
		return mv.emb[i]
	}
	return 0
}
