package fts

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
)

// Vectors across index formats.
//
// An index of another format is built anew from the vault (OpenFile), and
// most format changes (a tokenizer rule, a column) leave alone what the
// model reads: re-embedding every section of the Obsidian Hub took 3 min 10 s
// for vectors equal to the ones thrown away. A vector is named by the hash of
// the model's input (embedHash), so the old file's vectors answer for every
// section whose input is unchanged. When the old file's vectors are of the
// kind this lore makes (meta vectors_format equal to vectorsFormat), the file
// is moved aside as index.db.previous instead of deleted, and the first
// embedding pass takes from it, by name, the vectors of the model it uses;
// what it does not find is embedded. The old file is deleted after that
// pass, whatever it held: damaged, of another model, or of no use.

// vectorsFormat names what a stored vector is the vector of, apart from the
// model: the model's input for a unit (embedInput, bodyText,
// markdown.ReadableText), the name of that input (embedHash, kept as hashBlob
// makes it) and the tables that keep both (embeddings, unit_vectors). Change
// it, and IndexFormat with it, whenever one of them changes: vectors of
// another vectorsFormat are never carried over.
const vectorsFormat = "vectors-1"

// previousPath is where an index of another format waits for its vectors to
// be carried over.
func previousPath(dbPath string) string { return dbPath + ".previous" }

// holdsVectors reports whether db, an index of another format, keeps vectors
// of vectorsFormat: worth moving aside rather than deleting.
func holdsVectors(ctx context.Context, db *sql.DB) bool {
	var vf string
	var one int
	if db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='vectors_format'").Scan(&vf) != nil || vf != vectorsFormat {
		return false
	}
	return db.QueryRowContext(ctx, "SELECT 1 FROM embeddings LIMIT 1").Scan(&one) == nil
}

// replaceStale clears the way for a new index at dbPath: the old file (and
// its WAL) moves to previousPath when keep is set, replacing one there
// before, and is deleted otherwise.
func replaceStale(dbPath string, keep bool) error {
	if !keep {
		return removeIndexFile(dbPath)
	}
	prev := previousPath(dbPath)
	if err := removeIndexFile(prev); err != nil {
		return err
	}
	// The WAL goes with its file: it may hold committed vectors.
	for _, suffix := range []string{"-wal", ""} {
		if err := os.Rename(dbPath+suffix, prev+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Remove(dbPath + "-shm"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// dropPrevious deletes the file moved aside for its vectors, if any.
func (ix *Index) dropPrevious() {
	if ix.path != "" {
		removeIndexFile(previousPath(ix.path))
	}
}

// carryBatch is how many vectors are looked up, and stored, at once.
const carryBatch = 256

// carryOver stores, for every embedding input without a vector, the vector
// the previous index file holds under the same name, made by the same model
// at the same dimension, and then deletes that file. It returns how many it
// stored. A previous file it cannot read is deleted as of no use; only the
// context's end or a failure to store in this index is an error.
func (ix *Index) carryOver(ctx context.Context) (int, error) {
	if ix.path == "" {
		return 0, nil
	}
	prev := previousPath(ix.path)
	if _, err := os.Stat(prev); err != nil {
		return 0, nil
	}
	// Done with after one whole pass, whatever it held; a pass cut short
	// (the context's end, a failure to store) leaves it for the next.
	finished := false
	old, err := sql.Open("sqlite3", "file:"+prev+"?_busy_timeout=10000")
	defer func() {
		if old != nil {
			old.Close()
		}
		if finished {
			removeIndexFile(prev)
		}
	}()
	finished = true
	if err != nil {
		return 0, nil
	}
	old.SetMaxOpenConns(1)
	var name, dim, vf string
	old.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='embed_model'").Scan(&name)
	old.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='embed_dim'").Scan(&dim)
	old.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='vectors_format'").Scan(&vf)
	if name != ix.emb.Name() || dim != strconv.Itoa(ix.emb.Dim())+vecLayout(ix.binary) || vf != vectorsFormat {
		return 0, nil
	}
	pending, err := queryColumn[string](ctx, ix.db, `SELECT DISTINCT `+hashSQL("embed_hash")+` FROM units
		WHERE embed_hash NOT IN (SELECT embed_hash FROM embeddings)`)
	if err != nil {
		return 0, translate(err)
	}
	stored := 0
	for lo := 0; lo < len(pending); lo += carryBatch {
		if err := ctx.Err(); err != nil {
			finished = false
			return stored, err
		}
		hashes, vecs := ix.previousVectors(ctx, old, pending[lo:min(lo+carryBatch, len(pending))])
		if len(hashes) == 0 {
			continue
		}
		if err := ix.storeVectors(ctx, hashes, vecs); err != nil {
			finished = false
			return stored, err
		}
		stored += len(hashes)
	}
	return stored, nil
}

// previousVectors returns those of hashes the old file has a whole vector
// of the model's dimension for, with the vectors; anything unreadable is
// left out (and embedded).
func (ix *Index) previousVectors(ctx context.Context, old *sql.DB, hashes []string) ([]string, [][]float32) {
	marks := make([]string, len(hashes))
	args := make([]any, len(hashes))
	for i, h := range hashes {
		marks[i], args[i] = "?", hashBlob(h)
	}
	rows, err := old.QueryContext(ctx, `SELECT `+hashSQL("e.embed_hash")+`, v.embedding FROM embeddings e
		JOIN unit_vectors v ON v.rowid = e.vec_rowid WHERE e.embed_hash IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, nil
	}
	defer rows.Close()
	var out []string
	var vecs [][]float32
	for rows.Next() {
		var h string
		var blob []byte
		if rows.Scan(&h, &blob) != nil || len(blob) != 4*ix.emb.Dim() {
			continue
		}
		v := make([]float32, ix.emb.Dim())
		whole := true
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
			whole = whole && !math.IsNaN(float64(v[i])) && !math.IsInf(float64(v[i]), 0)
		}
		if whole {
			out, vecs = append(out, h), append(vecs, v)
		}
	}
	if rows.Err() != nil {
		return nil, nil
	}
	return out, vecs
}
