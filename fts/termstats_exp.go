package fts

import (
	"context"
	"strings"
)

// EXPERIMENT (not kept): TermStats returns the number of units and each
// term's document frequency among them, from FTS5's vocabulary.
func (l Lookups) TermStats(ctx context.Context, terms []string) (int, map[string]int, error) {
	ix := l.ix
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM units").Scan(&n); err != nil {
		return 0, nil, err
	}
	if _, err := conn.ExecContext(ctx, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.lore_vocab USING fts5vocab(main, 'units_fts', 'row')"); err != nil {
		return 0, nil, err
	}
	df := map[string]int{}
	if len(terms) == 0 {
		return n, df, nil
	}
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	rows, err := conn.QueryContext(ctx, "SELECT term, doc FROM temp.lore_vocab WHERE term IN (?"+strings.Repeat(",?", len(terms)-1)+")", args...)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var d int
		if err := rows.Scan(&t, &d); err != nil {
			return 0, nil, err
		}
		df[t] = d
	}
	return n, df, rows.Err()
}
