package fts

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"time"
)

// The writers' gate. SQLite lets one writer in at a time; the others wait in
// its busy handler, which sleeps between tries, up to 100 ms a sleep. Under
// many writers (a dozen agents storing at once while a person's edits are
// indexed) a writer that has waited long sleeps the longest and keeps
// losing the lock to newcomers: `TestManyProcessesStoreAtOnce -long` had
// store operations fail with "the index is busy" after the 10 s time-out
// though no transaction held the lock for more than a second. So every write
// lore makes to the index, a transaction (beginWrite) or one statement
// (execWrite), first takes its process's turn and then an exclusive lock on
// a file beside the index (index.db-writer, flock on Unix): a waiter there is
// woken by the kernel the moment the holder lets go, not at its next try.
// The file is opened once per index, so a turn costs two flock calls (it
// was 7 % of a server's activate when each write opened the file anew). A write that skipped the
// gate would be worse off than before, polling a lock the gate hands from one
// writer straight to the next. The gate adds no correctness, SQLite's lock
// still guards the data; it only keeps the wait fair enough. Where flock is
// missing, there is no gate.

// gateWait is how long a writer waits at the gate, as long as SQLite's busy
// time-out (the DSN's _busy_timeout).
const gateWait = 10 * time.Second

// errGateBusy is the answer when the gate was not had in gateWait.
var errGateBusy = errBusy(fmt.Sprintf("no turn to write in %s", gateWait))

// gate is the writers' gate of one index in this process. A writer first
// takes the process's turn (a channel, so the goroutines of one process go
// first come, first served, and a time-out can give up), then the lock
// between processes on the gate file, opened once.
type gate struct {
	turn chan struct{}
	path string
	mu   sync.Mutex
	f    *os.File // nil until opened; still nil after: no lock between processes
	open bool     // opening was tried (or the gate closed)
}

func newGate(path string) *gate { return &gate{turn: make(chan struct{}, 1), path: path} }

// file returns the gate file, opening it at the first call.
func (g *gate) file() *os.File {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open {
		g.open = true
		g.f = openGateFile(g.path)
	}
	return g.f
}

// enter waits for the gate, at most gateWait or until ctx ends, and returns
// what lets it go.
func (g *gate) enter(ctx context.Context) (func(), error) {
	wait, cancel := context.WithTimeout(ctx, gateWait)
	defer cancel()
	busy := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errGateBusy
	}
	select {
	case g.turn <- struct{}{}:
	case <-wait.Done():
		return nil, busy()
	}
	leave := func() { <-g.turn }
	f := g.file()
	if f == nil {
		return leave, nil
	}
	release, err := lockGateFile(wait, f, leave)
	if err != nil {
		return nil, busy()
	}
	return release, nil
}

// close closes the gate file once no writer of this process is at the gate
// (a writer that gave up may still wait for the lock on it; then the file
// is left open rather than closed under it).
func (g *gate) close() {
	select {
	case g.turn <- struct{}{}:
	case <-time.After(time.Second):
		return
	}
	defer func() { <-g.turn }()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.f != nil {
		g.f.Close()
	}
	g.f, g.open = nil, true
}

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
	release, err := ix.gate.enter(ctx)
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
	release, err := ix.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return ix.db.ExecContext(ctx, query, args...)
}
