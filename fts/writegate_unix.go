//go:build unix

package fts

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
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
// process's turn (leave gives the turn back), waiting until expired fires
// or ctx ends. flock locks belong to an open file, and only the writer with
// the turn uses f, so one file serves the whole process.
func lockGateFile(ctx context.Context, f *os.File, expired <-chan time.Time, leave func()) (func(), error) {
	fd := int(f.Fd())
	release := func() {
		unix.Flock(fd, unix.LOCK_UN)
		leave()
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
		return release, nil
	}
	// Wait in the kernel, in a goroutine, so a time-out can give up; if it
	// does, the goroutine lets go of the lock, and of the turn, as soon as
	// it gets the lock. Until then the process's other writers wait for
	// the turn: at most one goroutine per index waits this way.
	got := make(chan error) // unbuffered: a send after a time-out must not succeed
	abandon := make(chan struct{})
	go func() {
		var err error
		for {
			if err = unix.Flock(fd, unix.LOCK_EX); err != unix.EINTR {
				break
			}
		}
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				release()
			} else {
				leave()
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			return leave, nil // flock refused: SQLite's lock alone
		}
		return release, nil
	case <-expired:
		close(abandon)
		return nil, errGateBusy
	case <-ctx.Done():
		close(abandon)
		return nil, ctx.Err()
	}
}
