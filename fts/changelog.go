package fts

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// unit_log and vec_log record, in order, every unit and every vector added
// to or deleted from the index; the in-memory copies (resident.go,
// memvec.go) follow them. Both have the columns (seq, <id>, added).

type logEntry struct {
	id    int64
	added bool
}

// readLog returns the entries of table after seq and the last seq read. ok
// is false when the log was trimmed past seq: the reader must start over.
func (ix *Index) readLog(ctx context.Context, table, idCol string, after int64) (entries []logEntry, last int64, ok bool, err error) {
	var first sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, "SELECT MIN(seq) FROM "+table).Scan(&first); err != nil {
		return nil, 0, false, translate(err)
	}
	if first.Valid && first.Int64 > after+1 {
		return nil, 0, false, nil
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT seq, "+idCol+", added FROM "+table+" WHERE seq > ? ORDER BY seq", after)
	if err != nil {
		return nil, 0, false, translate(err)
	}
	defer rows.Close()
	last = after
	for rows.Next() {
		var e logEntry
		if err := rows.Scan(&last, &e.id, &e.added); err != nil {
			return nil, 0, false, translate(err)
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, translate(err)
	}
	return entries, last, true, nil
}

// applyLog applies entries in order. Added ids not yet held are read from
// the index in batches (load gets them as an SQL list of ids), each batch before
// the deletion that follows it; an id added and deleted within the log is
// no longer in the index, and the reading skips it.
func applyLog(entries []logEntry, held func(id int64) bool, load func(list string) error, remove func(id int64)) error {
	var added []int64
	flush := func() error {
		if len(added) == 0 {
			return nil
		}
		list := make([]string, len(added))
		for i, id := range added {
			list[i] = strconv.FormatInt(id, 10)
		}
		err := load(strings.Join(list, ","))
		added = added[:0]
		return err
	}
	for _, e := range entries {
		if !e.added {
			if err := flush(); err != nil {
				return err
			}
			remove(e.id)
			continue
		}
		if !held(e.id) {
			if added = append(added, e.id); len(added) == 500 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}
