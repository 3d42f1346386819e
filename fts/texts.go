package fts

import (
	"context"
	"errors"

	"github.com/lore-memory/lore/vault"
)

// A unit's text is not kept in the index: it is the bytes start_byte to
// end_byte of its note, read when it is needed (a hit's snippet, a fragment,
// the in-memory copy, the model's input) from the working-tree file, or from
// the bytes a Draft row keeps, and checked against the unit's content hash.
// At 100,000 generated notes the copy was 377 MB of a 1,064 MB index.db
// (docs/decisions/unit-text-from-the-note.md).
//
// A unit whose bytes no longer hash to its content hash — the file was
// edited after the index last looked, and the next freshness check will
// re-index it — has no text to give: a reader leaves it out of its answer
// rather than deliver other bytes under the unit's hash.

// noteBytes reads the notes units are cut from. It keeps the last note read
// (units come grouped by resource when a whole index is read, so each note
// is read once), or with kept set every note read (an answer's few units,
// in any order).
type noteBytes struct {
	ix   *Index
	rid  int64
	read bool
	data []byte
	err  error
	kept map[int64]noteRead
}

type noteRead struct {
	data []byte
	err  error
}

// text returns the text of the unit that spans [start, end) of resource
// rid (at fspath in the working tree, or a Draft row when draft is set),
// and whether its bytes still hash to hash.
func (b *noteBytes) text(ctx context.Context, rid int64, fspath, draft string, start, end int, hash string) (string, bool) {
	if !b.read || rid != b.rid {
		b.load(ctx, rid, fspath, draft)
	}
	if b.err != nil || start < 0 || end > len(b.data) || start > end {
		return "", false
	}
	part := b.data[start:end]
	if vault.HashBytes(part) != hash {
		return "", false
	}
	return string(part), true
}

func (b *noteBytes) load(ctx context.Context, rid int64, fspath, draft string) {
	b.rid, b.read = rid, true
	if r, ok := b.kept[rid]; ok {
		b.data, b.err = r.data, r.err
		return
	}
	b.data, b.err = nil, nil
	if draft != "" {
		b.err = b.ix.db.QueryRowContext(ctx, "SELECT body FROM resources WHERE rid = ?", rid).Scan(&b.data)
	} else {
		b.data, b.err = b.ix.v.ReadFile(fspath)
	}
	if b.kept != nil {
		b.kept[rid] = noteRead{b.data, b.err}
	}
}

// errNoText marks a unit whose note no longer holds its text.
var errNoText = errors.New("the note changed since it was indexed")

// fill sets u.Content (a unit read by hitColumns) from its note.
func (b *noteBytes) fill(ctx context.Context, u *Unit) error {
	text, ok := b.text(ctx, u.RID, u.fspath, u.DraftID, u.Start, u.End, u.ContentHash)
	if !ok {
		return errNoText
	}
	u.Content = text
	return nil
}

// withTexts fills in the text of each unit read by hitColumns and leaves
// out those whose notes no longer hold it, keeping the order.
func (ix *Index) withTexts(ctx context.Context, units []Unit) []Unit {
	b := noteBytes{ix: ix, kept: map[int64]noteRead{}}
	out := units[:0]
	for _, u := range units {
		if b.fill(ctx, &u) == nil {
			out = append(out, u)
		}
	}
	return out
}

// textOf fills in the text of one unit read by hitColumns.
func (ix *Index) textOf(ctx context.Context, u *Unit) error {
	b := noteBytes{ix: ix}
	return b.fill(ctx, u)
}

// requeue marks working-tree resources rids for re-indexing: their notes no
// longer hold the units indexed from them, whatever their stat says.
func (ix *Index) requeue(ctx context.Context, rids []int64) error {
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE resources SET mod_ns = -1, content_hash = '', stat_key = 0
		WHERE draft = '' AND rid IN (`+idList(rids)+`)`); err != nil {
		return translate(err)
	}
	if _, err := bumpGeneration(ctx, tx.Tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return translate(err)
	}
	ix.mu.Lock()
	ix.snap = nil
	ix.mu.Unlock()
	return nil
}
