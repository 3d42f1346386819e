package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// useEmbedder attaches the model that embeds units and queries. The index
// records the model's name and dimension; when they differ from what it holds,
// every stored vector is dropped (they are re-made by EmbedPending). A nil
// embedder means lexical search only.
func (ix *Index) useEmbedder(ctx context.Context, e embed.Embedder) error {
	ix.emb = e
	if e == nil {
		// Nothing will carry vectors over from an index of another format:
		// the file set aside for them goes, rather than stay for ever.
		if ix.readOnly == "" {
			ix.dropPrevious()
		}
		return nil
	}
	var name, dim string
	ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='embed_model'").Scan(&name)
	ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='embed_dim'").Scan(&dim)
	ix.binary = e.Dim()%8 == 0
	want := strconv.Itoa(e.Dim()) + vecLayout(ix.binary)
	if name == e.Name() && dim == want {
		return nil
	}
	column := fmt.Sprintf("float[%d] distance_metric=cosine", e.Dim())
	if ix.binary {
		column = fmt.Sprintf("bit[%d]", e.Dim())
	}
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if err := execAll(ctx, tx.Tx, "DROP TABLE IF EXISTS unit_vec", "DELETE FROM embeddings", "DELETE FROM unit_vectors",
		"CREATE VIRTUAL TABLE unit_vec USING vec0(embedding "+column+")"); err != nil {
		return fmt.Errorf("prepare vectors for %s: %w", e.Name(), err)
	}
	for k, v := range map[string]string{"embed_model": e.Name(), "embed_dim": want} {
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", k, v); err != nil {
			return translate(err)
		}
	}
	return translate(tx.Commit())
}

// embedder returns the attached model, or nil.
func (ix *Index) embedder() embed.Embedder { return ix.emb }

// embedInput is the text the model embeds for a unit: the note's title and
// the unit's heading path on the first line, then the unit's text as a
// reader reads it (markdown.ReadableText: no comments, link destinations or
// HTML tags), so a section is understood in its note's context (and a chunk
// without its heading line still carries it).
func embedInput(title string, headingPath []string, content string) string {
	head := title
	for _, h := range headingPath {
		if h != title {
			head += " › " + h
		}
	}
	return head + "\n" + content
}

// embedHash names the text the model embeds for a unit, embedInput(title,
// headingPath, content), without hashing the content a second time: it is
// the sha256 of the input's first line (the title and heading path) and the
// hash of the unit's readable text (its content hash when that is the
// content itself, as in most notes, so their vectors are kept), a newline
// between them. Equal inputs have equal names and different ones different names,
// as with the hash of the whole input (the content hash, of fixed length,
// ends it). Hashing the whole input again read every byte of a vault a
// third time (after the file's and the unit's hashes): ~4 % of a cold
// index's preparing. Since format lore-12.
func embedHash(title string, headingPath []string, contentHash string) string {
	head := embedInput(title, headingPath, "")
	return vault.HashBytes([]byte(head + contentHash))
}

// pendingEmbeddings counts distinct embedding inputs without a vector.
func (ix *Index) pendingEmbeddings(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT embed_hash) FROM units
		WHERE embed_hash NOT IN (SELECT embed_hash FROM embeddings)`).Scan(&n)
	return n, translate(err)
}

// embedBatch is how many unit texts go to the model at once.
const embedBatch = 64

// embedPending embeds every unit text that has no vector yet, in batches, and
// drops vectors no unit uses any more. It is the slow path: `lore index` and
// long-running servers call it, never a query. A model failure stops it with
// the error (naming the model or endpoint); what was stored so far stays
// consistent. progress, if not nil, is called after each batch.
func (ix *Index) embedPending(ctx context.Context, progress func(done, total int)) (int, error) {
	if ix.emb == nil || ix.readOnly != "" {
		return 0, nil // nothing to embed, or nowhere to keep it
	}
	if _, err := ix.execWrite(ctx, `DELETE FROM unit_vec WHERE rowid IN
		(SELECT vec_rowid FROM embeddings WHERE embed_hash NOT IN (SELECT embed_hash FROM units))`); err != nil {
		return 0, translate(err)
	}
	if _, err := ix.execWrite(ctx, `DELETE FROM unit_vectors WHERE rowid IN
		(SELECT vec_rowid FROM embeddings WHERE embed_hash NOT IN (SELECT embed_hash FROM units))`); err != nil {
		return 0, translate(err)
	}
	if _, err := ix.execWrite(ctx, `DELETE FROM embeddings WHERE embed_hash NOT IN (SELECT embed_hash FROM units)`); err != nil {
		return 0, translate(err)
	}
	// Cleared before looking: a change made while this run works sets it
	// again, and the next run picks that up.
	ix.vectorsBehind.Store(false)
	if _, err := ix.carryOver(ctx); err != nil {
		ix.vectorsBehind.Store(true)
		return 0, err
	}
	total, err := ix.pendingEmbeddings(ctx)
	if err != nil || total == 0 {
		if err != nil {
			ix.vectorsBehind.Store(true)
		}
		return 0, err
	}
	done := 0
	for {
		// One unit of each embedding input without a vector, found once
		// (a sort of all units) and then embedded in batches; units added
		// meanwhile are found by the next round.
		uids, err := ix.pendingUnits(ctx)
		if err != nil || len(uids) == 0 {
			if err != nil {
				ix.vectorsBehind.Store(true)
			}
			return done, err
		}
		before := done
		var stale []int64
		for lo := 0; lo < len(uids); lo += embedBatch {
			hashes, texts, gone, err := ix.unitInputs(ctx, uids[lo:min(lo+embedBatch, len(uids))])
			if err != nil {
				return done, err
			}
			stale = append(stale, gone...)
			if len(hashes) == 0 {
				continue // deleted or edited meanwhile
			}
			vecs, err := ix.emb.Embed(ctx, texts)
			if err == nil {
				err = ix.storeVectors(ctx, hashes, vecs)
			}
			if err != nil {
				ix.vectorsBehind.Store(true)
				return done, err
			}
			done += len(hashes)
			if progress != nil {
				progress(min(done, total), total)
			}
		}
		if len(stale) > 0 {
			// Their notes are indexed again by the next freshness check,
			// and their new units embedded by the next run.
			ix.vectorsBehind.Store(true)
			if err := ix.requeue(ctx, stale); err != nil {
				return done, err
			}
			if done == before {
				return done, nil
			}
		}
	}
}

// pendingUnits returns one unit (the first) of each embedding input that has
// no vector, in uid order.
func (ix *Index) pendingUnits(ctx context.Context) ([]int64, error) {
	return queryColumn[int64](ctx, ix.db, `SELECT MIN(uid) AS first FROM units
		WHERE embed_hash NOT IN (SELECT embed_hash FROM embeddings) GROUP BY embed_hash ORDER BY first`)
}

// unitInputs returns the embed hashes and model inputs of the units uids
// that still exist and still lack a vector.
// Units whose notes changed since they were indexed are left out, their
// resources listed in stale.
func (ix *Index) unitInputs(ctx context.Context, uids []int64) (hashes, texts []string, stale []int64, err error) {
	marks := make([]string, len(uids))
	qargs := make([]any, len(uids))
	for i, u := range uids {
		marks[i], qargs[i] = "?", u
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT `+hashSQL("u.embed_hash")+`, r.title, u.heading_path, u.start_byte, u.end_byte, `+hashSQL("u.content_hash")+`, u.embedded, r.rid, r.fspath, r.draft
		FROM units u JOIN resources r ON r.rid = u.rid
		WHERE u.uid IN (`+strings.Join(marks, ",")+`) AND u.embed_hash NOT IN (SELECT embed_hash FROM embeddings)
		ORDER BY u.uid`, qargs...)
	if err != nil {
		return nil, nil, nil, translate(err)
	}
	defer rows.Close()
	// A hash twice (a uid reused meanwhile) is stored once by storeVectors.
	notes := noteBytes{ix: ix}
	for rows.Next() {
		var h, title, hp, hash, embedded, fspath, draft string
		var start, end int
		var rid int64
		if err := rows.Scan(&h, &title, &hp, &start, &end, &hash, &embedded, &rid, &fspath, &draft); err != nil {
			return nil, nil, nil, err
		}
		content, ok := notes.text(ctx, rid, fspath, draft, start, end, hash)
		if !ok {
			stale = append(stale, rid) // edited since: embedded once indexed again
			continue
		}
		var path []string
		json.Unmarshal([]byte(hp), &path)
		hashes, texts = append(hashes, h), append(texts, embedInput(title, path, bodyText(markdown.ReadableText(content), embedded)))
	}
	return hashes, texts, stale, translate(rows.Err())
}

func (ix *Index) storeVectors(ctx context.Context, hashes []string, vecs [][]float32) error {
	if len(vecs) != len(hashes) {
		return fmt.Errorf("embedding model %s returned %d vectors for %d texts", ix.emb.Name(), len(vecs), len(hashes))
	}
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	var next int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(vec_rowid), 0) + 1 FROM embeddings").Scan(&next); err != nil {
		return translate(err)
	}
	for i, h := range hashes {
		if len(vecs[i]) != ix.emb.Dim() {
			return fmt.Errorf("embedding model %s returned dimension %d, want %d", ix.emb.Name(), len(vecs[i]), ix.emb.Dim())
		}
		var one int
		if err := tx.QueryRowContext(ctx, "SELECT 1 FROM embeddings WHERE embed_hash = ?", hashBlob(h)).Scan(&one); err == nil {
			continue // another process stored it meanwhile
		} else if !errors.Is(err, sql.ErrNoRows) {
			return translate(err)
		}
		blob, err := vec.SerializeFloat32(vecs[i])
		if err != nil {
			return err
		}
		quant := "?"
		if ix.binary {
			quant = "vec_quantize_binary(?)"
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO unit_vec(rowid, embedding) VALUES (?, "+quant+")", next, blob); err != nil {
			return translate(fmt.Errorf("store vector: %w", err))
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO unit_vectors(rowid, embedding) VALUES (?, ?)", next, blob); err != nil {
			return translate(fmt.Errorf("store vector: %w", err))
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO embeddings(embed_hash, vec_rowid, embed_key) VALUES (?, ?, ?)", hashBlob(h), next, int64(embedKey(h))); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO vec_log(vec_rowid, added) VALUES (?, 1)", next); err != nil {
			return translate(err)
		}
		next++
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM vec_log WHERE seq <= (SELECT MAX(seq) FROM vec_log) - ?", unitLogKeep); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

// Neighbor is one unit found by the vector stage.
type Neighbor struct {
	UID        int64
	Similarity float64 // cosine similarity, 1 - distance
}

// vecLayout names how vectors are stored, so a change of layout re-embeds.
func vecLayout(binary bool) string {
	if binary {
		return "/bit+f32"
	}
	return "/f32"
}

// coarseFactor is how many more candidates the binary first pass keeps than
// the exact rescoring returns.
const coarseFactor = 4

// Nearest returns the units nearest to the query vector, best first,
// visible to project. With binary quantization (dimensions divisible by 8) a
// Hamming-distance pass over the sign bits picks coarseFactor×k candidates
// and their full float32 vectors are rescored by cosine similarity; it reads
// 1/32 of the data a float scan would. Units sharing an input share a vector.
//
// The first pass keeps that many vectors the view sees: when fewer of the
// ones it picked are (other projects' notes, every project's Drafts), it
// picks four times as many, until it has enough or has read every vector.
// It once kept what the view sees of the nearest of all, and sixty Draft
// notes near a question in one project left nothing published in another
// project's nearest, or in the published view the hooks read
// (TestAttack_DraftsCannotPushPublishedMemoryOutOfTheVectorStage).
func (l Lookups) Nearest(ctx context.Context, qv []float32, project string, k int) ([]Neighbor, error) {
	ix := l.ix
	blob, err := vec.SerializeFloat32(qv)
	if err != nil {
		return nil, err
	}
	want := k // vectors the view sees in the first pass
	if ix.binary {
		want = k * coarseFactor
	}
	// With both in-memory copies (memvec.go, resident.go): the first pass
	// in memory, the rescoring in SQL, the units carrying each vector from
	// the postings' doc table.
	mv, err := ix.memVectorsFor(ctx)
	if err != nil {
		return nil, err
	}
	if mv != nil {
		m, err := ix.memFor(ctx)
		if err != nil {
			return nil, err
		}
		if m != nil {
			for n := want; ; n *= coarseFactor {
				ids := mv.nearest(qv, n)
				out, seen, err := ix.rescore(ctx, blob, ids, mv, m, project, 2*k)
				if err != nil || seen >= want || len(ids) < n {
					return out, err
				}
			}
		}
	}
	for n := want; n <= knnMax; n = min(n*coarseFactor, knnMax) {
		out, seen, read, err := ix.nearestSQL(ctx, blob, project, n, 2*k)
		if err != nil || seen >= want || read < n {
			return out, err
		}
		if n == knnMax {
			break
		}
	}
	return ix.nearestVisible(ctx, blob, project, 2*k)
}

// knnMax is the largest k sqlite-vec's nearest-neighbour query takes (a
// variable for the test of what comes after it).
var knnMax = 4096

// nearestSQL is Nearest's SQL path with a first pass of n vectors: the
// first limit units the view sees among the ones carrying them, how many
// of the n vectors the view sees, and how many the pass read (fewer than n:
// every vector).
func (ix *Index) nearestSQL(ctx context.Context, blob []byte, project string, n, limit int) (out []Neighbor, seen, read int, err error) {
	first := `SELECT rowid, distance FROM unit_vec WHERE embedding MATCH ? AND k = ?`
	if ix.binary {
		first = `SELECT c.rowid, vec_distance_cosine(f.embedding, ?1) AS distance FROM
			(SELECT rowid FROM unit_vec WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?2) c
			JOIN unit_vectors f ON f.rowid = c.rowid`
	}
	vis, vargs := visibleTo(project)
	// CROSS JOIN keeps SQLite to this order: the few neighbours first (with
	// a long IN list it would otherwise walk every resource). A vector no
	// unit carries any more (until the next embedding run drops it) has no
	// row: the pass then counts as having read every vector.
	// The first pass is written first: its parameters are numbered before
	// the view's.
	rows, err := ix.db.QueryContext(ctx, `WITH v AS (`+first+`) SELECT v.rowid, u.uid, 1 - v.distance, `+vis+` FROM v
		CROSS JOIN embeddings e ON e.vec_rowid = v.rowid
		CROSS JOIN units u ON u.embed_key = e.embed_key AND u.embed_hash = e.embed_hash
		CROSS JOIN resources r ON r.rid = u.rid
		ORDER BY v.distance, u.unit_key`, args([]any{blob, n}, vargs)...)
	if err != nil {
		return nil, 0, 0, translate(fmt.Errorf("vector search: %w", err))
	}
	defer rows.Close()
	vecs, visible := make(map[int64]bool, n), make(map[int64]bool, n)
	for rows.Next() {
		var rowid int64
		var h Neighbor
		var ok bool
		if err := rows.Scan(&rowid, &h.UID, &h.Similarity, &ok); err != nil {
			return nil, 0, 0, err
		}
		vecs[rowid] = true
		if ok {
			visible[rowid] = true
			if len(out) < limit {
				out = append(out, h)
			}
		}
	}
	return out, len(visible), len(vecs), translate(rows.Err())
}

// nearestVisible reads the vector of every unit the view sees: the last
// resort of the SQL path, when more than sqlite-vec's largest first pass
// of vectors near the query are ones the view does not see.
func (ix *Index) nearestVisible(ctx context.Context, blob []byte, project string, limit int) ([]Neighbor, error) {
	vis, vargs := visibleTo(project)
	rows, err := ix.db.QueryContext(ctx, `SELECT u.uid, 1 - vec_distance_cosine(f.embedding, ?) AS sim FROM units u
		JOIN resources r ON r.rid = u.rid
		JOIN embeddings e ON e.embed_key = u.embed_key AND e.embed_hash = u.embed_hash
		JOIN unit_vectors f ON f.rowid = e.vec_rowid
		WHERE `+vis+` ORDER BY sim DESC, u.unit_key LIMIT ?`, args([]any{blob}, vargs, []any{limit})...)
	if err != nil {
		return nil, translate(fmt.Errorf("vector search: %w", err))
	}
	defer rows.Close()
	var out []Neighbor
	for rows.Next() {
		var h Neighbor
		if err := rows.Scan(&h.UID, &h.Similarity); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, translate(rows.Err())
}

// NotReady maps an embedder's not-ready error to search_model_preparing.
func NotReady(err error) error {
	var nr *embed.NotReadyError
	if errors.As(err, &nr) {
		p := nr.Progress
		return &vault.Error{Code: vault.CodeModelPreparing, Message: fmt.Sprintf("%s (progress %.0f%%)", nr.Error(), 100*p), Progress: &p}
	}
	return err
}

// rescore computes sqlite-vec's cosine distance for the first pass's
// vectors (ids) and hands them to the in-memory doc table; seen is how
// many of them the view sees.
func (ix *Index) rescore(ctx context.Context, blob []byte, ids []int64, mv *memVectors, m *memCopy, project string, limit int) (_ []Neighbor, seen int, _ error) {
	if len(ids) == 0 {
		return nil, 0, nil
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatInt(id, 10)
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT rowid, vec_distance_cosine(embedding, ?) FROM unit_vectors
		WHERE rowid IN (`+strings.Join(list, ",")+`)`, blob)
	if err != nil {
		return nil, 0, translate(fmt.Errorf("vector search: %w", err))
	}
	defer rows.Close()
	var ns []memindex.Neighbour
	for rows.Next() {
		var rowid int64
		var n memindex.Neighbour // Dist: sqlite-vec's cosine distance
		if err := rows.Scan(&rowid, &n.Dist); err != nil {
			return nil, 0, err
		}
		n.Emb = mv.embOf(rowid)
		ns = append(ns, n)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, translate(err)
	}
	found, seen := m.VectorUnits(ns, memView(project), limit)
	out := make([]Neighbor, len(found))
	for i, f := range found {
		out[i] = Neighbor{UID: f.UID, Similarity: 1 - f.Dist}
	}
	return out, seen, nil
}

// Vectors is the index's embedding side: the model it embeds with and the
// units still without a vector.
type Vectors struct{ ix *Index }

// Vectors returns the index's embedding side.
func (ix *Index) Vectors() Vectors { return Vectors{ix} }

// Use makes e the index's embedder (see useEmbedder).
func (v Vectors) Use(ctx context.Context, e embed.Embedder) error { return v.ix.useEmbedder(ctx, e) }

// Embedder is the index's embedder (nil: none).
func (v Vectors) Embedder() embed.Embedder { return v.ix.embedder() }

// Pending counts the units without a vector.
func (v Vectors) Pending(ctx context.Context) (int, error) { return v.ix.pendingEmbeddings(ctx) }

// Embed makes the missing vectors and returns how many it made.
func (v Vectors) Embed(ctx context.Context, progress func(done, total int)) (int, error) {
	return v.ix.embedPending(ctx, progress)
}

// Behind reports whether units wait for a vector since the last refresh.
func (v Vectors) Behind() bool { return v.ix.vectorsAreBehind() }
