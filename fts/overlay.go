package fts

import (
	"context"
	"database/sql"
	"errors"

	"github.com/lore-memory/lore/vault"
)

// OverlayDraft is one open Draft as the index lays it over the working tree
// for the project that carries it.
type OverlayDraft struct {
	ID      string
	Project string
	// Files are the Draft's versions of every path it changes. Data nil means
	// the path is gone in the Draft (deleted or renamed away).
	Files []OverlayFile
}

// OverlayFile is one path of a Draft.
type OverlayFile struct {
	Path string
	Data []byte
}

// OverlaySource supplies the open Drafts (package drafts implements it).
// OverlaySignature must be cheap and change whenever the Drafts do.
type OverlaySource interface {
	OverlaySignature(ctx context.Context) (string, error)
	Overlay(ctx context.Context) ([]OverlayDraft, error)
}

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
	if ix.overlay == nil {
		return nil
	}
	sig, err := ix.overlay.OverlaySignature(ctx)
	if err != nil {
		return err
	}
	var have string
	err = ix.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'overlay'").Scan(&have)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return translate(err)
	}
	if have == sig {
		return nil
	}
	drafts, err := ix.overlay.Overlay(ctx)
	if err != nil {
		return err
	}
	var changes [][]*change
	for _, d := range drafts {
		var cs []*change
		for _, f := range d.Files {
			if f.Data == nil {
				continue
			}
			c := &change{stat: vault.FileStat{Path: f.Path, Size: int64(len(f.Data))}, hash: vault.HashBytes(f.Data)}
			if err := vault.CheckContent(f.Path, f.Data); err != nil {
				c.skip = vault.Message(err)
			} else {
				prepareData(c, f.Data)
			}
			cs = append(cs, c)
		}
		changes = append(changes, cs)
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'overlay'").Scan(&have); err == nil && have == sig {
		return nil // another process wrote the same overlay meanwhile
	}
	if err := execAll(ctx, tx, "DELETE FROM resources WHERE draft != ''", "DELETE FROM shadows"); err != nil {
		return err
	}
	w, err := newWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	for i, d := range drafts {
		w.draft, w.dproject = d.ID, d.Project
		for _, f := range d.Files {
			if err := w.exec("INSERT OR IGNORE INTO shadows(project, path, draft) VALUES (?, ?, ?)", d.Project, f.Path, d.ID); err != nil {
				return err
			}
		}
		j := 0
		for _, f := range d.Files {
			if f.Data == nil {
				continue
			}
			w.body = f.Data
			if err := w.upsert(changes[i][j]); err != nil {
				return err
			}
			j++
		}
	}
	if err := w.exec("INSERT INTO meta(key, value) VALUES('overlay', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", sig); err != nil {
		return err
	}
	if _, err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	if err := translate(tx.Commit()); err != nil {
		return err
	}
	ix.snap = nil
	return nil
}

// hasDrafts reports whether any Draft rows are in the index.
func (ix *Index) hasDrafts(ctx context.Context) bool {
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT EXISTS(SELECT 1 FROM resources WHERE draft > '')").Scan(&n); err != nil {
		return true // the safe answer: filter
	}
	return n == 1
}
