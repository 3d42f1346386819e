package drafts

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the outbox is a SQLite file beside the index

	"github.com/lore-memory/lore/fts"
)

// The outbox keeps, per Draft, what sync must do and how it went, across
// restarts: status queued → syncing → synced, or retrying / failed with the
// last error. The Draft branches are the truth; the outbox is reconciled with
// them at every sync, so a crash between a ref update and an outbox write
// loses nothing. It also logs every acknowledged store operation.
const outboxSchema = `
CREATE TABLE IF NOT EXISTS outbox (
  draft_id   TEXT PRIMARY KEY,
  project    TEXT NOT NULL,
  branch     TEXT NOT NULL,
  head       TEXT NOT NULL,            -- '' : delete the branch on the remote
  status     TEXT NOT NULL,            -- queued, syncing, retrying, synced, failed
  attempts   INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  next_at    INTEGER NOT NULL DEFAULT 0, -- unix ms: not before
  pushed     TEXT NOT NULL DEFAULT '',   -- the head the remote has
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ops (
  local_operation_id TEXT PRIMARY KEY,
  draft_id    TEXT NOT NULL,
  project     TEXT NOT NULL,
  op          TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  path        TEXT NOT NULL,
  commit_hash TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
`

func openOutbox(ctx context.Context, p string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, outboxSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("outbox %s: %w", p, err)
	}
	return db, nil
}

// openOutboxReadOnly opens the outbox of a vault whose git directory
// cannot be written (a read-only file system, a full disk), so that
// reading Drafts and their sync state goes on: the file as it is, read
// only, or an empty one in memory when there is none.
func openOutboxReadOnly(ctx context.Context, p string) (*sql.DB, error) {
	dsn := "file:" + p + "?mode=ro&immutable=1"
	if st, err := os.Stat(p); err != nil || st.Size() == 0 {
		dsn = "file:outbox?mode=memory&cache=private"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database, not one per connection
	if strings.Contains(dsn, "mode=memory") {
		if _, err := db.ExecContext(ctx, outboxSchema); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// cannotWrite reports whether err says a file cannot be written: a
// read-only file system, a full disk, no permission (fts's own test).
func cannotWrite(err error) bool { return fts.CannotWrite(err) }

// enqueue marks a Draft's new head for sync.
func (s *Store) enqueue(ctx context.Context, id, project, branch, head string) {
	s.outboxExec(ctx, `INSERT INTO outbox(draft_id, project, branch, head, status, updated_at) VALUES (?, ?, ?, ?, 'queued', ?)
		ON CONFLICT(draft_id) DO UPDATE SET head = excluded.head, status = 'queued', attempts = 0, last_error = '', next_at = 0, updated_at = excluded.updated_at`,
		id, project, branch, head, s.clock().UnixMilli())
}

// outboxDiscarded records a dropped Draft: when the remote has its branch,
// sync deletes it there; otherwise there is nothing to sync. It returns the
// Draft's sync status.
func (s *Store) outboxDiscarded(ctx context.Context, id string) string {
	var pushed string
	s.db.QueryRowContext(ctx, "SELECT pushed FROM outbox WHERE draft_id = ?", id).Scan(&pushed)
	if pushed == "" {
		s.outboxExec(ctx, "DELETE FROM outbox WHERE draft_id = ?", id)
		return "synced"
	}
	s.outboxExec(ctx, `UPDATE outbox SET head = '', status = 'queued', attempts = 0, last_error = '', next_at = 0, updated_at = ? WHERE draft_id = ?`,
		s.clock().UnixMilli(), id)
	return "queued"
}

func (s *Store) recordOp(ctx context.Context, lop, draft, project, op, rid, path, commit string) {
	s.outboxExec(ctx, `INSERT OR IGNORE INTO ops(local_operation_id, draft_id, project, op, resource_id, path, commit_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, lop, draft, project, op, rid, path, commit, s.clock().UnixMilli())
}

// OutboxEntry is one Draft's sync state.
type OutboxEntry struct {
	DraftID    string    `json:"draft_id"`
	Project    string    `json:"project"`
	Branch     string    `json:"branch"`
	Head       string    `json:"head"`
	Status     string    `json:"sync_status"`
	Attempts   int       `json:"attempts"`
	LastError  string    `json:"last_error,omitempty"`
	NextAt     time.Time `json:"next_attempt_at,omitzero"`
	Pushed     string    `json:"pushed,omitempty"`
	UpdatedAt  time.Time `json:"updated_at"`
	DeleteOnly bool      `json:"delete_on_remote,omitempty"`
}

// Outbox returns every Draft's sync state.
func (s *Store) Outbox(ctx context.Context) ([]OutboxEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT draft_id, project, branch, head, status, attempts, last_error, next_at, pushed, updated_at
		FROM outbox ORDER BY updated_at DESC, draft_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OutboxEntry
	for rows.Next() {
		var e OutboxEntry
		var next, upd int64
		if err := rows.Scan(&e.DraftID, &e.Project, &e.Branch, &e.Head, &e.Status, &e.Attempts, &e.LastError, &next, &e.Pushed, &upd); err != nil {
			return nil, err
		}
		if next > 0 {
			e.NextAt = time.UnixMilli(next).UTC()
		}
		e.UpdatedAt, e.DeleteOnly = time.UnixMilli(upd).UTC(), e.Head == ""
		out = append(out, e)
	}
	return out, rows.Err()
}

// SyncStatus returns one Draft's sync status ("queued" when unknown).
func (s *Store) SyncStatus(ctx context.Context, id string) string {
	st := "queued"
	s.db.QueryRowContext(ctx, "SELECT status FROM outbox WHERE draft_id = ?", id).Scan(&st)
	return st
}

// OperationLogged reports whether a local operation id was acknowledged here.
func (s *Store) OperationLogged(ctx context.Context, lop string) bool {
	var n int
	s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ops WHERE local_operation_id = ?", lop).Scan(&n)
	return n == 1
}

// Pending reports whether the outbox holds a Draft waiting to be synced
// (queued, retrying, or syncing when a sync was interrupted).
func (s *Store) Pending(ctx context.Context) bool {
	var n int
	s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox WHERE status IN ('queued', 'retrying', 'syncing')").Scan(&n)
	return n > 0
}

// outboxExec runs an outbox statement whose failure must not fail what it
// records: a store is acknowledged once its commit is on the Draft branch,
// and the branches are the truth — reconcile rebuilds the outbox's rows from
// them at every sync. So an error here is kept (OutboxError, for lore
// doctor) instead of undoing or failing an operation that is already durable.
func (s *Store) outboxExec(ctx context.Context, q string, args ...any) {
	if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
		s.mu.Lock()
		s.outboxErr = err
		s.mu.Unlock()
	}
}

// OutboxError is the last error writing the outbox met in this process (nil:
// none); the next sync repairs the outbox from the Draft branches.
func (s *Store) OutboxError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outboxErr
}
