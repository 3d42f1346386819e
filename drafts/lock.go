package drafts

import (
	"context"
	"fmt"
	"time"
)

// LockBusyError is a lock wait that ended (its context was cancelled or
// timed out) before another lore process released the lock.
type LockBusyError struct {
	Path string
	Err  error
}

func (e *LockBusyError) Error() string {
	return fmt.Sprintf("another lore process holds %s (a sync or merge still running); gave up waiting: %v", e.Path, e.Err)
}

func (e *LockBusyError) Unwrap() error { return e.Err }

// tryLockFile is lockFile waiting at most wait.
func tryLockFile(ctx context.Context, path string, wait time.Duration) (func(), error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return lockFile(ctx, path)
}
