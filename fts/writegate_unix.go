//go:build unix

package fts

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// enterGate takes the exclusive lock on path, waiting at most gateWait (or
// until ctx ends), and returns what releases it. Each call opens the file
// anew: flock locks belong to an open file, so two goroutines of one process
// exclude each other as two processes do. An empty path is no gate.
func enterGate(ctx context.Context, path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return func() {}, nil // no gate (a read-only folder): SQLite's lock alone
	}
	release := func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		return release, nil
	}
	// Wait in the kernel, in a goroutine, so a time-out can give up; if it
	// does, the goroutine releases the lock as soon as it gets it. Until
	// then it stays blocked, with its file open: one goroutine and one file
	// per write given up, for as long as the holder keeps the lock (a
	// process stopped while writing, which holds SQLite's lock too, so
	// those writes would have failed anyway).
	got := make(chan error) // unbuffered: a send after a time-out must not succeed
	abandon := make(chan struct{})
	go func() {
		var err error
		for {
			if err = unix.Flock(int(f.Fd()), unix.LOCK_EX); err != unix.EINTR {
				break
			}
		}
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				release()
			} else {
				f.Close()
			}
		}
	}()
	timer := time.NewTimer(gateWait)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return func() {}, nil // flock refused: SQLite's lock alone
		}
		return release, nil
	case <-timer.C:
		close(abandon)
		return nil, errGateBusy
	case <-ctx.Done():
		close(abandon)
		return nil, ctx.Err()
	}
}
