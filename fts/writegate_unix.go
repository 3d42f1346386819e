//go:build unix

package fts

import (
	"context"
	"os"

	"github.com/lore-memory/lore/internal/flock"
)

// openGateFile opens (creating) the gate file; nil when it cannot be (a
// read-only folder): then SQLite's lock alone orders the processes.
func openGateFile(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return f
}

// lockGateFile takes the exclusive flock on f, for a writer that has its
// process's turn (leave gives the turn back), waiting until ctx ends (the
// gate's wait, or the caller's). flock locks belong to an open file, and
// only the writer with the turn uses f, so one file serves the whole
// process. A wait given up lets go of the lock, and of the turn, as soon
// as it gets the lock; until then the process's other writers wait for the
// turn: at most one goroutine per index waits this way.
func lockGateFile(ctx context.Context, f *os.File, leave func()) (func(), error) {
	switch err := flock.Exclusive(ctx, f, leave); {
	case err == nil:
		return func() { flock.Unlock(f); leave() }, nil
	case ctx.Err() != nil && err == ctx.Err():
		return nil, err
	default:
		return leave, nil // flock refused: SQLite's lock alone
	}
}
