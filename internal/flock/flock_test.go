//go:build unix

package flock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Two open files of one path: the second waits while the first holds the
// lock, gets it once the first lets go, and a wait its context ends gives
// up with the context's error, lets go of the lock when it gets it late,
// and says so through abandoned.
func TestExclusive_WaitsGivesUpAndLetsGo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b := open(t, p), open(t, p)
	defer a.Close()
	if err := Exclusive(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	abandoned := make(chan struct{})
	if err := Exclusive(ctx, b, func() { close(abandoned) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait past its context: %v", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case <-abandoned: // the late wait got the lock and let go of it
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned wait never ended after the lock was free")
	}
	b.Close()

	// The lock is free again: a third file takes it at once, and a fourth
	// waits until it is let go.
	c, d := open(t, p), open(t, p)
	defer c.Close()
	defer d.Close()
	if err := Exclusive(context.Background(), c, nil); err != nil {
		t.Fatalf("the abandoned wait kept the lock: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- Exclusive(context.Background(), d, nil) }()
	select {
	case err := <-done:
		t.Fatalf("got a held lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	Unlock(c)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
