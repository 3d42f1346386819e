//go:build unix

package drafts

import (
	"context"
	"fmt"
	"os"

	"github.com/lore-memory/lore/internal/flock"
)

// lockFile takes an exclusive advisory lock on path (created if needed),
// waiting for other lore processes to release it, or until ctx ends (a
// merge's publish, or a person's ^C, never waits forever on a sync that is
// stuck). The kernel releases it if the process dies, so a crash never
// leaves the vault locked.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	// A wait given up lets go of the lock as soon as it gets it, then
	// closes the file.
	switch err := flock.Exclusive(ctx, f, func() { f.Close() }); {
	case err == nil:
		return func() { flock.Unlock(f); f.Close() }, nil
	case ctx.Err() != nil && err == ctx.Err():
		return nil, &LockBusyError{Path: path, Err: err}
	default:
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
}
