//go:build unix

package drafts

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
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
	unlock := func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}
	if err := flockTry(f); err == nil {
		return unlock, nil
	} else if err != unix.EWOULDBLOCK {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ctx.Done() == nil {
		if err := flockWait(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return unlock, nil
	}
	// The kernel wakes a blocked flock as soon as the lock is free; the
	// wait runs aside so that ctx can end it. A wait given up releases the
	// lock as soon as it gets it.
	got := make(chan error, 1)
	go func() { got <- flockWait(f) }()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return unlock, nil
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				unix.Flock(int(f.Fd()), unix.LOCK_UN)
			}
			f.Close()
		}()
		return nil, &LockBusyError{Path: path, Err: ctx.Err()}
	}
}

func flockTry(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}

func flockWait(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
