// Package outbox is the Draft store's sync outbox: one SQLite file in the
// vault's git directory (outbox.db, beside the index) that says, per Draft,
// what the next sync must push or delete and how the last try went, and
// logs every acknowledged store operation. Package drafts owns what the
// rows mean and repairs them from the Draft branches at every sync; this
// package only keeps them, and keeps reading when the file cannot be
// written (a read-only disk) so that listing Drafts goes on.
package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // the sqlite3 driver

	"github.com/lore-memory/lore/internal/sqlerr"
	"github.com/lore-memory/lore/vault"
)

// Outbox is the Draft store's outbox (vault.Outbox): a SQLite file beside
// the index holding, per Draft, what sync must do and how it went (status
// queued → syncing → synced, or retrying / failed with the last error), and
// a log of every acknowledged store operation. The Draft branches are the
// truth; package drafts reconciles the outbox with them at every sync, so
// a write here that fails is kept for Err instead of failing what it
// records (a store is acknowledged once its commit is on its branch).
type Outbox struct {
	db       *sql.DB
	readOnly string

	mu  sync.Mutex
	err error // the last failed write
}

var _ vault.Outbox = (*Outbox)(nil)

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

// Open opens (creating) the outbox at p. When its folder or file
// cannot be written (a read-only file system, a full disk), it opens the
// file as it is, read only, or an empty outbox in memory when there is
// none, so that reading Drafts and their sync state goes on; ReadOnly then
// says why.
func Open(ctx context.Context, p string) (*Outbox, error) {
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	var db *sql.DB
	if err == nil {
		db, err = sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate")
	}
	if err == nil {
		if _, err = db.ExecContext(ctx, outboxSchema); err != nil {
			db.Close()
			err = fmt.Errorf("outbox %s: %w", p, err)
		}
	}
	if err == nil {
		return &Outbox{db: db}, nil
	}
	if !sqlerr.CannotWrite(err) {
		return nil, err
	}
	dsn, empty := "file:"+p+"?mode=ro&immutable=1", false
	if st, serr := os.Stat(p); serr != nil || st.Size() == 0 {
		dsn, empty = "file:outbox?mode=memory&cache=private", true
	}
	if db, err = sql.Open("sqlite3", dsn); err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database, not one per connection
	if empty {
		if _, err := db.ExecContext(ctx, outboxSchema); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &Outbox{db: db, readOnly: fmt.Sprintf("the vault's git directory cannot be written (%v)", err)}, nil
}

// ReadOnly says why the outbox cannot be written ("" when it can).
func (o *Outbox) ReadOnly() string { return o.readOnly }

// Close closes the outbox's file.
func (o *Outbox) Close() error { return o.db.Close() }

// Err is the last error writing the outbox met in this process (nil:
// none); the next sync repairs the outbox from the Draft branches.
func (o *Outbox) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// exec runs a statement whose failure is kept, not returned (see Outbox).
func (o *Outbox) exec(ctx context.Context, q string, args ...any) {
	if _, err := o.db.ExecContext(ctx, q, args...); err != nil {
		o.mu.Lock()
		o.err = err
		o.mu.Unlock()
	}
}

// Enqueue marks a Draft's new head for sync.
func (o *Outbox) Enqueue(ctx context.Context, id, project, branch, head string, now time.Time) {
	o.exec(ctx, `INSERT INTO outbox(draft_id, project, branch, head, status, updated_at) VALUES (?, ?, ?, ?, 'queued', ?)
		ON CONFLICT(draft_id) DO UPDATE SET head = excluded.head, status = 'queued', attempts = 0, last_error = '', next_at = 0, updated_at = excluded.updated_at`,
		id, project, branch, head, now.UnixMilli())
}

// Discarded records a dropped Draft: when the remote has its branch, sync
// deletes it there; otherwise there is nothing to sync. It returns the
// Draft's sync status.
func (o *Outbox) Discarded(ctx context.Context, id string, now time.Time) string {
	var pushed string
	o.db.QueryRowContext(ctx, "SELECT pushed FROM outbox WHERE draft_id = ?", id).Scan(&pushed)
	if pushed == "" {
		o.exec(ctx, "DELETE FROM outbox WHERE draft_id = ?", id)
		return "synced"
	}
	o.exec(ctx, `UPDATE outbox SET head = '', status = 'queued', attempts = 0, last_error = '', next_at = 0, updated_at = ? WHERE draft_id = ?`,
		now.UnixMilli(), id)
	return "queued"
}

// RecordOp logs an acknowledged store operation.
func (o *Outbox) RecordOp(ctx context.Context, lop, draft, project, op, resourceID, path, commit string, now time.Time) {
	o.exec(ctx, `INSERT OR IGNORE INTO ops(local_operation_id, draft_id, project, op, resource_id, path, commit_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, lop, draft, project, op, resourceID, path, commit, now.UnixMilli())
}

// Entries returns every Draft's sync state, the latest first.
func (o *Outbox) Entries(ctx context.Context) ([]vault.OutboxEntry, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT draft_id, project, branch, head, status, attempts, last_error, next_at, pushed, updated_at
		FROM outbox ORDER BY updated_at DESC, draft_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []vault.OutboxEntry
	for rows.Next() {
		var e vault.OutboxEntry
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

// Status returns one Draft's sync status ("queued" when unknown).
func (o *Outbox) Status(ctx context.Context, id string) string {
	st := "queued"
	o.db.QueryRowContext(ctx, "SELECT status FROM outbox WHERE draft_id = ?", id).Scan(&st)
	return st
}

// Head returns the head the outbox holds for a Draft ("" when none).
func (o *Outbox) Head(ctx context.Context, id string) string {
	var head string
	o.db.QueryRowContext(ctx, "SELECT head FROM outbox WHERE draft_id = ?", id).Scan(&head)
	return head
}

// OperationLogged reports whether a local operation id was acknowledged here.
func (o *Outbox) OperationLogged(ctx context.Context, lop string) bool {
	var n int
	o.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ops WHERE local_operation_id = ?", lop).Scan(&n)
	return n == 1
}

// CommitLogged reports whether a store here made the commit (its hash is
// in the operation log).
func (o *Outbox) CommitLogged(ctx context.Context, commit string) bool {
	var n int
	o.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ops WHERE commit_hash = ?", commit).Scan(&n)
	return n > 0
}

// Pending reports whether a Draft waits to be synced (queued, retrying,
// or syncing when a sync was interrupted).
func (o *Outbox) Pending(ctx context.Context) bool {
	var n int
	o.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox WHERE status IN ('queued', 'retrying', 'syncing')").Scan(&n)
	return n > 0
}

// Due returns the Drafts whose next attempt is due at now, and marks them
// syncing.
func (o *Outbox) Due(ctx context.Context, now time.Time) ([]vault.DueDraft, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT draft_id, branch, head, pushed, attempts FROM outbox
		WHERE status IN ('queued', 'retrying', 'syncing') AND next_at <= ? ORDER BY draft_id`, now.UnixMilli())
	if err != nil {
		return nil, err
	}
	var dues []vault.DueDraft
	for rows.Next() {
		var d vault.DueDraft
		if err := rows.Scan(&d.ID, &d.Branch, &d.Head, &d.Pushed, &d.Attempts); err != nil {
			rows.Close()
			return nil, err
		}
		dues = append(dues, d)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	for _, d := range dues {
		o.exec(ctx, "UPDATE outbox SET status = 'syncing', updated_at = ? WHERE draft_id = ?", now.UnixMilli(), d.ID)
	}
	return dues, nil
}

// Retry records a transport failure: status retrying (or failed, after
// too many), the reason, and when to try again.
func (o *Outbox) Retry(ctx context.Context, id, status, reason string, next, now time.Time) {
	o.exec(ctx, `UPDATE outbox SET status = ?, attempts = attempts + 1, last_error = ?, next_at = ?, updated_at = ? WHERE draft_id = ?`,
		status, reason, next.UnixMilli(), now.UnixMilli(), id)
}

// Failed records a push the remote refused.
func (o *Outbox) Failed(ctx context.Context, id, reason string, now time.Time) {
	o.exec(ctx, `UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, updated_at = ? WHERE draft_id = ?`,
		reason, now.UnixMilli(), id)
}

// Synced records that the remote has head (when it is still the Draft's).
func (o *Outbox) Synced(ctx context.Context, id, head string, now time.Time) {
	o.exec(ctx, `UPDATE outbox SET status = 'synced', attempts = 0, last_error = '', pushed = ?, updated_at = ? WHERE draft_id = ? AND head = ?`,
		head, now.UnixMilli(), id, head)
}

// Forget drops a Draft's row (its delete on the remote is done).
func (o *Outbox) Forget(ctx context.Context, id string) {
	o.exec(ctx, "DELETE FROM outbox WHERE draft_id = ?", id)
}

// Tracked returns the ids of the rows that name a head.
func (o *Outbox) Tracked(ctx context.Context) ([]string, error) {
	rows, err := o.db.QueryContext(ctx, "SELECT draft_id FROM outbox WHERE head != ''")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
