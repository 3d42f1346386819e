//go:build unix

package fts

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
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

// holdGate takes the gate file's lock as another process would (its own
// open file) and returns what lets it go; the test's end lets go too.
func holdGate(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	var once sync.Once
	letGo := func() { once.Do(func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }) }
	t.Cleanup(letGo)
	return letGo
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
		if gateFree(t, tv.Ix.gate.path) {
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
		if !gateFree(t, tv.Ix.gate.path) {
			t.Fatalf("%s: the gate is still held after the transaction ended", end)
		}
	}
}

// TestWriteGateWaiterThatGivesUpLetsGo: a writer that stops waiting (its
// context ends) gets an error and takes nothing; once the holder is done
// the gate is free again.
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
	for i := 0; !gateFree(t, tv.Ix.gate.path); i++ {
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

// TestWriteGateCoversSingleStatementWrites: the writes made outside a
// transaction (a retrieval run's record, an activation state) take their
// turn at the gate too. One that did not would poll SQLite's lock while the
// gate hands it from one writer straight to the next, and could wait out
// the busy time-out behind a stream of them: an activate answered "the
// index is busy" because its run could not be recorded.
func TestWriteGateCoversSingleStatementWrites(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	ctx := context.Background()
	// Another process holds the gate (SQLite's own lock is free).
	letGo := holdGate(t, tv.Ix.gate.path)
	r := tv.Ix.Records()
	writes := map[string]func(context.Context) error{
		"SaveRun": func(ctx context.Context) error {
			return r.SaveRun(ctx, Run{RunSummary: RunSummary{RunID: "run_test01", CreatedAt: "2026-12-01T00:00:00Z"}, Record: []byte("{}")})
		},
		"SaveState": func(ctx context.Context) error {
			return r.SaveState(ctx, []byte("0123456789abcdef"), []byte("[]"), time.Now(), time.Hour)
		},
	}
	for name, write := range writes {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		err := write(short)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s while another writer held the gate: %v, want it to wait its turn", name, err)
		}
	}
	letGo()
	for name, write := range writes {
		if err := write(ctx); err != nil {
			t.Errorf("%s once the gate was free: %v", name, err)
		}
	}
}

// TestWriteGateOneWaiterPerIndex: while another process holds the gate,
// writes that give up leave at most one goroutine waiting for it (the
// others wait for the process's turn and go when they give up), not one
// goroutine and one open file each.
func TestWriteGateOneWaiterPerIndex(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n"})
	ctx := context.Background()
	if tx, err := tv.Ix.beginWrite(ctx); err != nil { // the gate file exists, the pool is warm
		t.Fatal(err)
	} else {
		tx.Rollback()
	}
	letGo := holdGate(t, tv.Ix.gate.path)
	for i := 0; i < 20; i++ {
		short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		_, err := tv.Ix.beginWrite(short)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("write %d while the gate was held elsewhere: %v", i, err)
		}
	}
	// The waiters themselves are counted, not every goroutine of the
	// process: the race detector's run had database/sql and finished
	// tests' goroutines come and go beside them.
	if n := gateWaiters(); n != 1 {
		t.Errorf("20 writes that gave up left %d goroutines waiting for the gate, want 1 (the first, still waiting in the kernel)", n)
	}
	letGo()
	tx, err := tv.Ix.beginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
}

// gateWaiters counts the goroutines that lockGateFile started (through
// flock.Exclusive, which only the gate uses in this package) and that
// are still alive.
func gateWaiters() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "created by github.com/lore-memory/lore/internal/flock.Exclusive")
		}
		buf = make([]byte, 2*len(buf))
	}
}
