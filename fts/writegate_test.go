//go:build unix

package fts

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// gateFree reports whether another holder could take the writers' gate now.
func gateFree(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return true
}

// TestWriteGateHeldForTheWholeTransaction: a write transaction holds the
// writers' gate from its start until it commits or rolls back, and a
// rollback after a commit (the deferred one) releases nothing twice.
func TestWriteGateHeldForTheWholeTransaction(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	ctx := context.Background()
	for _, end := range []string{"commit", "rollback"} {
		tx, err := tv.Ix.beginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gateFree(t, tv.Ix.gatePath) {
			t.Fatalf("%s: the gate is free while a write transaction is open", end)
		}
		if end == "commit" {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		tx.Rollback()
		if !gateFree(t, tv.Ix.gatePath) {
			t.Fatalf("%s: the gate is still held after the transaction ended", end)
		}
	}
}

// TestWriteGateWaiterThatGivesUpLetsGo: a writer that stops waiting (its
// context ends) gets an error and takes nothing; once the holder is done the
// gate is free, though the abandoned wait got it meanwhile.
func TestWriteGateWaiterThatGivesUpLetsGo(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	ctx := context.Background()
	held, err := tv.Ix.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if tx, err := tv.Ix.beginWrite(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a writer whose context ended while the gate was held: tx %v, error %v", tx, err)
	}
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	// The abandoned wait takes the gate when it is free, and lets go at once.
	for i := 0; !gateFree(t, tv.Ix.gatePath); i++ {
		if i == 500 {
			t.Fatal("the gate stays held after its holder and an abandoned waiter are done")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tx, err := tv.Ix.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
}
