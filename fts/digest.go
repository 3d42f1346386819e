package fts

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/lore-memory/lore/vault"
)

// The freshness check's fast path. A one-shot command has no snapshot of
// the index's view in memory, and reading one (path, size, mod_ns and hash
// of every working-tree row) was the larger half of a one-shot `lore
// search`, while the folder walk ran beside it (docs/BENCHMARKS.md, "One
// warm lore"). Most of the time
// nothing changed, so the two views are first compared by a digest: each
// row keeps statKey(path, size, mod_ns) (migration 0007), one aggregate over
// an index of those keys sums them, and the walk sums
// the same keys of what it found. Equal digests (and no row whose key is
// unknown) mean the vault is as the index has it; otherwise the snapshot is
// read and compared file by file, as before.
//
// The keys are hashed with a random salt kept in the index (meta
// stat_salt), so no file can be named or sized to make one change cancel
// another; by chance, two different states agree with a probability of
// about 2^-62.

// statKey is a row's key: never 0, at most 2^62.
func statKey(salt uint64, path string, size, mod int64) int64 {
	h := uint64(14695981039346656037) ^ salt
	for i := 0; i < len(path); i++ { // FNV-1a over the path
		h ^= uint64(path[i])
		h *= 1099511628211
	}
	h = mix64(h ^ mix64(uint64(size)+salt))
	h = mix64(h ^ uint64(mod))
	return int64(h>>2) + 1
}

// mix64 is SplitMix64's finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// digest sums keys in three 21-bit parts, so SQLite's integer sums cannot
// overflow however many rows there are.
type digest struct{ n, a, b, c int64 }

const keyPart = 1<<21 - 1

func (d *digest) add(k int64) {
	d.n++
	d.a += k & keyPart
	d.b += k >> 21 & keyPart
	d.c += k >> 42
}

// walkDigest is the digest of the files a full walk found.
func walkDigest(salt uint64, files []vault.FileStat) digest {
	var d digest
	for _, f := range files {
		d.add(statKey(salt, f.Path, f.Size, f.ModNs))
	}
	return d
}

// indexDigest is the digest of the working-tree rows, and whether it can
// stand for them: false while some row's key is unknown.
func (ix *Index) indexDigest(ctx context.Context) (digest, bool, error) {
	var d digest
	var unknown int64
	err := ix.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(stat_key & 2097151), 0),
		coalesce(sum((stat_key >> 21) & 2097151), 0), coalesce(sum(stat_key >> 42), 0), coalesce(sum(stat_key = 0), 0)
		FROM resources WHERE draft = ''`).Scan(&d.n, &d.a, &d.b, &d.c, &unknown)
	if err != nil {
		return d, false, translate(err)
	}
	return d, unknown == 0, nil
}

// readSalt reads the index's salt (meta stat_salt).
func readSalt(ctx context.Context, db *sql.DB) uint64 {
	var s string
	db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'stat_salt'").Scan(&s)
	salt, _ := strconv.ParseUint(s, 16, 64)
	return salt
}

// fillStatKeys writes the key of every working-tree row that has none yet
// and is not marked for re-indexing (mod_ns -1): the rows of an index made
// before migration 0007, once. With all, it writes every such row's key
// again (keys found stale). It is an optimization: on failure the fast path
// stays off until the rows are written again.
func (ix *Index) fillStatKeys(ctx context.Context, all bool) error {
	which := `draft = '' AND mod_ns != -1`
	if !all {
		which += ` AND stat_key = 0`
		var missing int
		if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM resources WHERE `+which).Scan(&missing); err != nil || missing == 0 {
			return err
		}
	}
	tx, err := ix.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT rid, path, size, mod_ns FROM resources WHERE `+which)
	if err != nil {
		return err
	}
	type row struct {
		rid, key int64
	}
	var todo []row
	for rows.Next() {
		var r row
		var p string
		var size, mod int64
		if err := rows.Scan(&r.rid, &p, &size, &mod); err != nil {
			rows.Close()
			return err
		}
		r.key = statKey(ix.statSalt, p, size, mod)
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, "UPDATE resources SET stat_key = ? WHERE rid = ?")
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range todo {
		if _, err := st.ExecContext(ctx, r.key, r.rid); err != nil {
			return err
		}
	}
	return tx.Commit()
}
