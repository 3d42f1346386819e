package fts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lore-memory/lore/vault"
)

// writer holds one transaction and its prepared statements.
//
// Its statements run under a context that is never cancelled: the SQLite
// driver watches a cancellable context with a goroutine per statement, which
// cost a cold index ~20 % more CPU (two statements a unit). Cancellation still
// works: callers check the context between files (see apply), and the
// transaction is rolled back when the context ends.
type writer struct {
	tx                                  *sql.Tx
	ctx                                 context.Context
	delRes, insSkipped, insRes, insUnit *sql.Stmt
	insFTS, idHolder                    *sql.Stmt
	draft, dproject                     string // set while writing a Draft's rows
	body                                []byte
	lastOld                             int64  // the largest uid before this transaction's inserts
	inserting                           bool   // beginInserts was called
	links                               []any  // [rid, kind, target, heading, target key] of each link to write (see writeLinks)
	names                               []any  // [rid, name, kind] of each name to write
	salt                                uint64 // the index's stat_salt, for working-tree rows' stat_key (digest.go)
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	ctx = context.WithoutCancel(ctx)
	w := &writer{tx: tx, ctx: ctx}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.delRes, "DELETE FROM resources WHERE path = ? AND draft = ''"},
		{&w.insSkipped, `INSERT INTO resources(path, fspath, size, mod_ns, content_hash, indexed, problem, stat_key) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`},
		{&w.insRes, `INSERT INTO resources(path, fspath, size, mod_ns, content_hash, indexed,
			resource_id, claimed_id, id_derived, project, title, title_key, description, meta, status, tier, tags, problem, guard, stat_key, embeds)
			VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.insUnit, `INSERT INTO units(rid, unit_key, ord, heading_path, start_byte, end_byte, start_line, content_hash, embed_hash, embed_key, tokens, bare)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.insFTS, "INSERT INTO units_fts(rowid, path, title, meta, heading, body) VALUES (?, ?, ?, ?, ?, ?)"},
		{&w.idHolder, "SELECT rid, path FROM resources WHERE resource_id = ? AND draft = ''"},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, translate(fmt.Errorf("prepare index write: %w", err))
		}
		*p.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.delRes, w.insSkipped, w.insRes, w.insUnit, w.insFTS, w.idHolder} {
		if st != nil {
			st.Close()
		}
	}
}

func (w *writer) exec(q string, args ...any) error {
	if _, err := w.tx.ExecContext(w.ctx, q, args...); err != nil {
		return translate(fmt.Errorf("index write: %w", err))
	}
	return nil
}

func (w *writer) run(st *sql.Stmt, args ...any) (sql.Result, error) {
	res, err := st.ExecContext(w.ctx, args...)
	if err != nil {
		return nil, translate(fmt.Errorf("index write: %w", err))
	}
	return res, nil
}

// upsert writes the row of one file (and its units, links and terms); the
// caller deleted any older row of the path first (see apply).
func (w *writer) upsert(c *change) error {
	if w.draft != "" {
		return w.insertDraft(c)
	}
	if c.skip != "" {
		_, err := w.run(w.insSkipped, c.stat.Path, c.stat.FSPath, c.stat.Size, c.stat.ModNs, c.hash, c.skip, w.statKey(c))
		return err
	}
	r := c.res
	claimed := ""
	if !r.IDDerived {
		claimed = r.ID
		if err := w.resolveIDClash(r); err != nil {
			return err
		}
	}
	tags, _ := json.Marshal(r.Front.Tags)
	res, err := w.run(w.insRes, r.Path, c.stat.FSPath, c.stat.Size, c.stat.ModNs, r.ContentHash,
		r.ID, claimed, r.IDDerived, r.Project, r.Title, titleKey(r.Title), r.Description, c.meta, r.Status(), r.Front.Tier, string(tags), r.Problem, rulesJSON(r), w.statKey(c), c.embeds)
	if err != nil {
		return fmt.Errorf("index %s: %w", r.Path, err)
	}
	rid, _ := res.LastInsertId()
	return w.insertParts(c, rid)
}

// beginInserts marks where this transaction's units start: call it after
// the transaction's deletes and before its first insert. A new unit's uid is
// the largest one plus one, so every unit inserted after it has a larger uid.
func (w *writer) beginInserts() error {
	w.inserting = true
	return translate(w.tx.QueryRowContext(w.ctx, "SELECT COALESCE(MAX(uid), 0) FROM units").Scan(&w.lastOld))
}

// finishInserts writes the transaction's links, and its inserted units into
// unit_log (for the in-memory copies, resident.go): one statement each, not
// one a row. (A statement that writes many rows must come last: it opens a
// statement savepoint, at which FTS5 writes out its pending terms.)
func (w *writer) finishInserts() error {
	if err := w.writeLinks(); err != nil {
		return err
	}
	return w.exec("INSERT INTO unit_log(uid, added) SELECT uid, 1 FROM units WHERE uid > ? ORDER BY uid", w.lastOld)
}

// maxPendingLinks bounds the links held for one statement (~3 MB of JSON):
// a batch of files made of nothing but wikilinks would otherwise pass
// SQLite's limit on one value. A batch of ordinary notes holds far fewer.
var maxPendingLinks = 100_000

// writeLinks writes the links held so far in one statement.
func (w *writer) writeLinks() error {
	if len(w.links) == 0 && len(w.names) == 0 {
		return nil
	}
	if w.links == nil {
		w.links = []any{}
	}
	links, err := json.Marshal(w.links)
	if err != nil {
		return err
	}
	w.links = w.links[:0]
	if err := w.exec(`INSERT INTO links(rid, kind, target, heading, target_key)
		SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]')
		FROM json_each(?) ORDER BY key`, string(links)); err != nil {
		return err
	}
	if len(w.names) == 0 {
		return nil
	}
	names, err := json.Marshal(w.names)
	if err != nil {
		return err
	}
	w.names = w.names[:0]
	return w.exec(`INSERT INTO names(rid, name, kind)
		SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
		FROM json_each(?) ORDER BY key`, string(names))
}

// insertParts writes a resource row's units, terms and links.
func (w *writer) insertParts(c *change, rid int64) error {
	if !w.inserting {
		return errors.New("index write: units inserted before beginInserts")
	}
	r := c.res
	for i, u := range r.Units {
		p := &c.prepared[i]
		res, err := w.run(w.insUnit, rid, u.Key, i, p.headingJSON, u.Start, u.End, u.Line, hashBlob(u.ContentHash), hashBlob(p.embedHash), int64(embedKey(p.embedHash)), u.Tokens, u.Bare)
		if err != nil {
			return fmt.Errorf("index %s unit %s: %w", r.Path, u.Key, err)
		}
		uid, _ := res.LastInsertId()
		p.uid, p.key = uid, u.Key
		if _, err := w.run(w.insFTS, uid, p.ftsPath, p.ftsTitle, p.ftsMeta, p.ftsHdr, p.ftsBody); err != nil {
			return err
		}
	}
	for _, n := range r.Names() {
		w.names = append(w.names, []any{rid, n.Key, n.Kind})
	}
	for _, l := range r.Links {
		w.links = append(w.links, []any{rid, l.Kind, l.Target, l.Heading, vault.LinkKey(l.Target)})
		if len(w.links)+len(w.names) >= maxPendingLinks {
			if err := w.writeLinks(); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveIDClash applies the rule of the vault package doc: when two files
// claim one id, the lexically smaller path keeps it.
func (w *writer) resolveIDClash(r *vault.Resource) error {
	var orid int64
	var opath string
	err := w.idHolder.QueryRowContext(w.ctx, r.ID).Scan(&orid, &opath)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return translate(err)
	}
	if opath < r.Path {
		claimed := r.ID
		r.Reidentify(vault.DerivedID(r.Path), true)
		r.Problem = joinProblem(r.Problem, fmt.Sprintf("id %q is also used by %s, which keeps it; this file is indexed as %s", claimed, opath, r.ID))
		return nil
	}
	newID := vault.DerivedID(opath)
	msg := fmt.Sprintf("id %q is also used by %s, which keeps it; this file is indexed as %s", r.ID, r.Path, newID)
	if err := w.exec("UPDATE resources SET resource_id = ?, id_derived = 1, problem = ? WHERE rid = ?", newID, msg, orid); err != nil {
		return err
	}
	if err := w.exec("UPDATE units SET unit_key = ? || substr(unit_key, ?) WHERE rid = ?", newID, len(r.ID)+1, orid); err != nil {
		return err
	}
	// In-memory copies (resident.go) hold unit keys: have them read these
	// units again.
	if err := w.exec("INSERT INTO unit_log(uid, added) SELECT uid, 0 FROM units WHERE rid = ? ORDER BY uid", orid); err != nil {
		return err
	}
	return w.exec("INSERT INTO unit_log(uid, added) SELECT uid, 1 FROM units WHERE rid = ? ORDER BY uid", orid)
}

// requeueFreedIDs marks files whose claimed id is free again (its holder was
// deleted or changed) for re-indexing, and reports whether there were any.
func (ix *Index) requeueFreedIDs(ctx context.Context) (bool, error) {
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return false, translate(err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE resources SET mod_ns = -1, content_hash = '', stat_key = 0
		WHERE draft = '' AND claimed_id != '' AND resource_id IS NOT claimed_id
		AND NOT EXISTS (SELECT 1 FROM resources r2 WHERE r2.draft = '' AND r2.resource_id = resources.claimed_id)`)
	if err != nil {
		return false, translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := bumpGeneration(ctx, tx.Tx); err != nil {
		return false, err
	}
	ix.snap = nil
	return true, translate(tx.Commit())
}

// insertDraft writes one file of a Draft (w.draft) as an overlay row that only
// the Draft's project sees. A Draft holding one id twice keeps it on the
// first path only, as the working tree does.
func (w *writer) insertDraft(c *change) error {
	if c.skip != "" {
		return w.exec(`INSERT INTO resources(path, fspath, size, mod_ns, content_hash, indexed, problem, draft, dproject)
			VALUES (?, '', ?, 0, ?, 0, ?, ?, ?)`, c.stat.Path, c.stat.Size, c.hash, c.skip, w.draft, w.dproject)
	}
	r := c.res
	var taken int
	if err := w.tx.QueryRowContext(w.ctx, "SELECT COUNT(*) FROM resources WHERE draft = ? AND resource_id = ?", w.draft, r.ID).Scan(&taken); err != nil {
		return translate(err)
	}
	if taken > 0 {
		r.Reidentify(vault.DerivedID(r.Path), true)
	}
	tags, _ := json.Marshal(r.Front.Tags)
	res, err := w.tx.ExecContext(w.ctx, `INSERT INTO resources(path, fspath, size, mod_ns, content_hash, indexed,
		resource_id, claimed_id, id_derived, project, title, title_key, description, meta, status, tier, tags, problem, guard, draft, dproject, body)
		VALUES (?, '', ?, 0, ?, 1, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Path, c.stat.Size, r.ContentHash, r.ID, r.IDDerived, r.Project, r.Title, titleKey(r.Title), r.Description, c.meta,
		r.Status(), r.Front.Tier, string(tags), r.Problem, rulesJSON(r), w.draft, w.dproject, w.body)
	if err != nil {
		return translate(fmt.Errorf("index draft %s %s: %w", w.draft, r.Path, err))
	}
	rid, _ := res.LastInsertId()
	return w.insertParts(c, rid)
}

// statKey is the stat_key of c's working-tree row.
func (w *writer) statKey(c *change) int64 {
	return statKey(w.salt, c.stat.Path, c.stat.Size, c.stat.ModNs)
}
