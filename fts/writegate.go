package fts

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/lore-memory/lore/vault"
)

// The writers' gate. SQLite lets one writer in at a time; the others wait in
// its busy handler, which sleeps between tries, up to 100 ms a sleep. Under
// many writers (a dozen agents storing at once while a person's edits are
// indexed) a writer that has waited long sleeps the longest and keeps
// losing the lock to newcomers: `TestManyProcessesStoreAtOnce -long` had
// store operations fail with "the index is busy" after the 10 s time-out
// though no transaction held the lock for more than a second. So every write
// lore makes to the index, a transaction (beginWrite) or one statement
// (execWrite), first takes an exclusive lock on a file beside it
// (index.db-writer, flock on Unix): a waiter there is woken by the kernel the
// moment the holder lets go, not at its next try. A write that skipped the
// gate would be worse off than before, polling a lock the gate hands from one
// writer straight to the next. The gate adds no correctness, SQLite's lock
// still guards the data; it only keeps the wait fair enough. Where flock is
// missing, there is no gate.

// gateWait is how long a writer waits at the gate, as long as SQLite's busy
// time-out (the DSN's _busy_timeout).
const gateWait = 10 * time.Second

// errGateBusy is the answer when the gate was not had in gateWait.
var errGateBusy = &vault.Error{Code: vault.CodeInternal, Message: "the index is busy (another lore process holds it too long): no turn to write in 10 s"}

// writeTx is a write transaction that holds the writers' gate until it ends.
type writeTx struct {
	*sql.Tx
	release func()
	once    sync.Once
}

func (t *writeTx) end() { t.once.Do(t.release) }

// Commit commits and opens the gate.
func (t *writeTx) Commit() error {
	err := t.Tx.Commit()
	t.end()
	return err
}

// Rollback rolls back (a no-op after Commit, as for sql.Tx) and opens the
// gate.
func (t *writeTx) Rollback() error {
	err := t.Tx.Rollback()
	t.end()
	return err
}

// beginWrite starts a write transaction through the writers' gate.
func (ix *Index) beginWrite(ctx context.Context) (*writeTx, error) {
	release, err := enterGate(ctx, ix.gatePath)
	if err != nil {
		return nil, err
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		release()
		return nil, translate(err)
	}
	return &writeTx{Tx: tx, release: release}, nil
}

// execWrite runs one writing statement outside a transaction, through the
// writers' gate like every other write.
func (ix *Index) execWrite(ctx context.Context, query string, args ...any) (sql.Result, error) {
	release, err := enterGate(ctx, ix.gatePath)
	if err != nil {
		return nil, err
	}
	defer release()
	return ix.db.ExecContext(ctx, query, args...)
}
