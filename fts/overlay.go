package fts

import (
	"context"
	"database/sql"
	"errors"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// The overlay's types are the domain's (vault/overlay.go); package drafts
// supplies them.
type (
	OverlayDraft  = vault.OverlayDraft
	OverlayFile   = vault.OverlayFile
	OverlaySource = vault.OverlaySource
)

var _ vault.DraftIndex = (*Index)(nil)

// UseOverlay makes every freshness check also follow src's Drafts, so each
// project's Search, Load and Activate see its Effective Memory.
func (ix *Index) UseOverlay(src OverlaySource) {
	ix.mu.Lock()
	ix.overlay = src
	ix.mu.Unlock()
}

// refreshOverlay rewrites the Draft rows when the Drafts' signature changed.
// Drafts are few, so they are rewritten whole. Callers hold ix.mu.
func (ix *Index) refreshOverlay(ctx context.Context) error {
	return ix.refreshOverlayForced(ctx, false)
}

// refreshOverlayForced is refreshOverlay; with force (a rebuild) every
// Draft's rows are written again, whatever the signature says.
//
// Several processes share the index, so one that read the refs earlier
// must not write its older overlay over a newer one. The refs are read, and
// the overlay made from them, inside the transaction that writes it, which
// holds SQLite's write lock from its start (the DSN's _txlock=immediate):
// every writer reads refs after the previous writer committed, so no
// overlay is ever replaced by an older one.
func (ix *Index) refreshOverlayForced(ctx context.Context, force bool) error {
	if ix.overlay == nil {
		return nil
	}
	sig, err := ix.overlay.OverlaySignature(ctx)
	if err != nil {
		return err
	}
	var cur string
	err = ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'overlay'").Scan(&cur)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return translate(err)
	}
	if cur == sig && !force {
		return nil
	}
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if sig, err = ix.overlay.OverlaySignature(ctx); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'overlay'").Scan(&cur); err == nil && cur == sig && !force {
		return nil // another process wrote this overlay meanwhile
	}
	have := map[string]string{}
	if !force {
		if have, err = overlayHeads(ctx, tx.Tx); err != nil {
			return err
		}
	}
	drafts, err := ix.overlay.Overlay(ctx, have)
	if err != nil {
		return err
	}
	rewritten, err := writeOverlay(ctx, tx.Tx, drafts, have, sig)
	if err != nil {
		return err
	}
	if err := translate(tx.Commit()); err != nil {
		return err
	}
	ix.snap = nil
	if rewritten {
		ix.NotifyChanged()
	}
	return nil
}

// writeOverlay writes the Drafts' rows in tx (dropping those of Drafts
// that moved or closed, then writing the moved ones), records the overlay's
// signature and bumps the generation. It reports whether any Draft was
// written again.
func writeOverlay(ctx context.Context, tx *sql.Tx, drafts []OverlayDraft, have map[string]string, sig string) (bool, error) {
	changes := prepareOverlay(drafts)
	w, err := newWriter(ctx, tx)
	if err != nil {
		return false, err
	}
	defer w.close()
	rewrite, err := dropOverlays(ctx, tx, w, drafts, have)
	if err != nil {
		return false, err
	}
	if err := w.beginInserts(); err != nil {
		return false, err
	}
	if err := writeOverlays(w, drafts, changes, rewrite); err != nil {
		return false, err
	}
	if err := w.finishInserts(); err != nil {
		return false, err
	}
	if err := w.exec("INSERT INTO meta(key, value) VALUES('overlay', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", sig); err != nil {
		return false, err
	}
	_, err = bumpGeneration(ctx, tx)
	return len(rewrite) > 0, err
}

// overlayHeads returns the Draft heads the index holds rows for.
func overlayHeads(ctx context.Context, tx *sql.Tx) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT draft, head FROM overlays")
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var d, h string
		if err := rows.Scan(&d, &h); err != nil {
			return nil, err
		}
		out[d] = h
	}
	return out, translate(rows.Err())
}

// hasDrafts reports whether any Draft rows are in the index.
func (ix *Index) hasDrafts(ctx context.Context) bool {
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT EXISTS(SELECT 1 FROM resources WHERE draft > '')").Scan(&n); err != nil {
		return true // the safe answer: filter
	}
	return n == 1
}

// prepareOverlay parses the files of the Drafts (nil data: a deleted file,
// nothing to index).
func prepareOverlay(drafts []OverlayDraft) [][]*change {
	changes := make([][]*change, len(drafts))
	for i, d := range drafts {
		for _, f := range d.Files {
			if f.Data == nil {
				continue
			}
			c := &change{stat: vault.FileStat{Path: f.Path, Size: int64(len(f.Data))}, hash: vault.HashBytes(f.Data)}
			if err := markdown.CheckContent(f.Path, f.Data); err != nil {
				c.skip = vault.Message(err)
			} else {
				prepareData(c, f.Data, nil)
			}
			changes[i] = append(changes[i], c)
		}
	}
	return changes
}

// dropOverlays deletes the rows of Drafts whose head moved and of Drafts no
// longer open (merged, discarded), and returns the drafts to write again.
// Every delete comes before the first insert (see apply).
func dropOverlays(ctx context.Context, tx *sql.Tx, w *writer, drafts []OverlayDraft, have map[string]string) ([]int, error) {
	drop := func(id string) error {
		for _, q := range []string{"DELETE FROM resources WHERE draft = ?", "DELETE FROM shadows WHERE draft = ?", "DELETE FROM overlays WHERE draft = ?"} {
			if err := w.exec(q, id); err != nil {
				return err
			}
		}
		return nil
	}
	open := map[string]bool{}
	var rewrite []int
	for i, d := range drafts {
		open[d.ID] = true
		if d.Unchanged && have[d.ID] == d.Head {
			continue
		}
		rewrite = append(rewrite, i)
		if err := drop(d.ID); err != nil {
			return nil, err
		}
	}
	rows, err := tx.QueryContext(ctx, "SELECT draft FROM overlays")
	if err != nil {
		return nil, translate(err)
	}
	var gone []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, translate(err)
		}
		if !open[id] {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	for _, id := range gone {
		if err := drop(id); err != nil {
			return nil, err
		}
	}
	return rewrite, nil
}

// writeOverlays writes the rows of drafts[i] for each i in rewrite: the
// Draft, the paths it shadows, its files' resources and units.
func writeOverlays(w *writer, drafts []OverlayDraft, changes [][]*change, rewrite []int) error {
	for _, i := range rewrite {
		d := drafts[i]
		if err := w.exec("INSERT INTO overlays(draft, project, head) VALUES (?, ?, ?)", d.ID, d.Project, d.Head); err != nil {
			return err
		}
		w.draft, w.dproject = d.ID, d.Project
		for _, f := range d.Files {
			if err := w.exec("INSERT OR IGNORE INTO shadows(project, path, draft) VALUES (?, ?, ?)", d.Project, f.Path, d.ID); err != nil {
				return err
			}
		}
		for _, c := range changes[i] {
			w.body = nil
			for _, f := range d.Files {
				if f.Path == c.stat.Path {
					w.body = f.Data
				}
			}
			if err := w.upsert(c); err != nil {
				return err
			}
		}
	}
	return nil
}
