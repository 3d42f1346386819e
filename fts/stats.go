package fts

import (
	"context"
	"os"

	"github.com/lore-memory/lore/vault"
)

// Stats describes the index.
type Stats struct {
	Resources int // files indexed as memory
	Skipped   int // files refused (binary, not UTF-8, too large)
	Units     int
	Links     int
	DBBytes   int64
	Problems  []vault.Problem // every file with a problem, indexed or not
}

// Stats refreshes the index and reports its size and every file problem.
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	rs, err := ix.Refresh(ctx, nil)
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	if err := ix.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM resources WHERE indexed = 1 AND draft = ''),
		(SELECT COUNT(*) FROM resources WHERE indexed = 0 AND draft = ''),
		(SELECT COUNT(*) FROM units u JOIN resources r ON r.rid = u.rid WHERE r.draft = ''), (SELECT COUNT(*) FROM links WHERE kind != '`+vault.MarkdownAlt+`')`).Scan(&st.Resources, &st.Skipped, &st.Units, &st.Links); err != nil {
		return st, translate(err)
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT path, problem FROM resources WHERE problem != '' AND draft = '' ORDER BY path")
	if err != nil {
		return st, translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p vault.Problem
		if err := rows.Scan(&p.Path, &p.Message); err != nil {
			return st, err
		}
		st.Problems = append(st.Problems, p)
	}
	st.Problems = append(st.Problems, rs.Problems...)
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(ix.v.IndexPath() + suffix); err == nil {
			st.DBBytes += fi.Size()
		}
	}
	return st, translate(rows.Err())
}
