//go:build unix

// Package flock takes exclusive advisory locks on open files (flock(2)),
// with a wait that a context can end: the one wrapper for the Draft
// store's lock (package drafts) and the index writers' gate (package fts).
// The kernel releases a lock when its process dies, so a crash never
// leaves one held.
package flock

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// Exclusive takes the exclusive lock on f, waiting while another open file
// holds it, until ctx ends. It returns nil once it holds the lock (Unlock
// lets go of it), flock's error when the system refuses it, and ctx's error
// when ctx ended first. In that last case the wait goes on aside: if it
// gets the lock it lets go of it at once, and then, got or not, calls
// abandoned (which may close f; nil: nothing). The caller must not close f
// itself then.
func Exclusive(ctx context.Context, f *os.File, abandoned func()) error {
	fd := int(f.Fd())
	err := retry(func() error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) })
	if err != unix.EWOULDBLOCK {
		return err
	}
	if ctx.Done() == nil {
		return retry(func() error { return unix.Flock(fd, unix.LOCK_EX) })
	}
	// The kernel wakes a blocked flock as soon as the lock is free; the
	// wait runs aside so that ctx can end it.
	got := make(chan error) // unbuffered: a send after ctx ended must not succeed
	abandon := make(chan struct{})
	go func() {
		err := retry(func() error { return unix.Flock(fd, unix.LOCK_EX) })
		select {
		case got <- err:
		case <-abandon:
			if err == nil {
				unix.Flock(fd, unix.LOCK_UN)
			}
			if abandoned != nil {
				abandoned()
			}
		}
	}()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		close(abandon)
		return ctx.Err()
	}
}

// Unlock lets go of the lock on f.
func Unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != unix.EINTR {
			return err
		}
	}
}
