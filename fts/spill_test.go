package fts

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/tokenize"
)

// heapLive returns the bytes of live heap after a full collection.
func heapLive() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// keptCopy returns a generated vault of n notes (seed) whose index keeps
// its copies in memory, and the postings' copy.
func keptCopy(t *testing.T, n int, seed int64) (*testVault, *memCopy) {
	t.Helper()
	tv := newTestVault(t, map[string]string{})
	if _, err := synth.GenerateVault(tv.Root, n, seed); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := tv.Ix.memFor(ctx)
	if err != nil || m == nil {
		t.Fatalf("in-memory copy: %v, %v", m, err)
	}
	return tv, m
}

// TestSpill_FrozenPostingsLeaveTheHeap checks that a long-running process's
// copy keeps its frozen tokens and postings in a mapped file, not in the
// heap: the same copy frozen into the heap takes at least their size more;
// that no file is left with a name in the index's folder; and that the
// mapped copy still ranks as FTS5 does after edits that freeze it again.
func TestSpill_FrozenPostingsLeaveTheHeap(t *testing.T) {
	tv, m := keptCopy(t, 1500, 5)
	ctx := context.Background()
	toks, keys, n := m.Mapped()
	if !toks || !keys {
		t.Fatalf("the frozen part is not mapped: tokens %v, unit keys %v", toks, keys)
	}
	frozen := uint64(n)
	if frozen < 1<<20 {
		t.Fatalf("only %d frozen bytes: too few to tell", frozen)
	}
	mapped := heapLive()

	m.Refreeze(true)
	inHeap := heapLive()
	if toks, _, _ := m.Mapped(); toks {
		t.Fatal("a freeze without a folder kept a mapping")
	}
	if inHeap < mapped+frozen*9/10 {
		t.Fatalf("heap with the frozen part mapped %d, in the heap %d: the %d frozen bytes were in the heap either way", mapped, inHeap, frozen)
	}

	// Back to a mapping, then edits and a freeze while mapped.
	m.Refreeze(false)
	tv.Write("bench/000/note-000001.md", "# Rewritten\n\nrelease deploy rollback cache 检索 parseConfigFile\n")
	os.Remove(filepath.Join(tv.Root, "bench/000/note-000002.md"))
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if m, _ = tv.Ix.memFor(ctx); m == nil {
		t.Fatal("the copy went away")
	}
	m.Refreeze(false)
	compareScorers(t, tv, []string{""})
	checkKeys(t, tv, m)

	entries, err := os.ReadDir(tv.V.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "copy-") {
			t.Errorf("%s left in %s", e.Name(), tv.V.DataDir())
		}
	}
}

// checkKeys checks that every live doc's unit_key, from the mapped arena or
// its tail, is the one the index holds for its uid.
func checkKeys(t *testing.T, tv *testVault, m *memCopy) {
	t.Helper()
	rows, err := tv.Ix.db.Query("SELECT uid, unit_key FROM units")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var uid int64
		var key string
		if err := rows.Scan(&uid, &key); err != nil {
			t.Fatal(err)
		}
		got, ok := m.KeyOf(uid)
		if !ok {
			t.Fatalf("uid %d is not in the copy", uid)
		}
		if got != key {
			t.Fatalf("uid %d: key %q, want %q", uid, got, key)
		}
		n++
	}
	if n == 0 || int64(n) != m.Live() {
		t.Fatalf("%d units, %d live in the copy", n, m.Live())
	}
}

// TestKeepInMemory_OneIdleConnection checks that a process scoring in
// memory keeps one idle SQLite connection (each holds its own page cache,
// up to 16 MiB), not three.
func TestKeepInMemory_OneIdleConnection(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nwalrus\n"})
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		c, err := tv.Ix.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	if idle := tv.Ix.db.Stats().Idle; idle != 1 {
		t.Fatalf("%d idle connections after three were used at once, want 1", idle)
	}
}

// TestMemos_LastOneLoad checks that the tokenizing workers' memos (2 MiB
// each, with the tokens they hold) are let go after the refresh or the
// copy's load that used them: a server keeps its index for hours.
func TestMemos_LastOneLoad(t *testing.T) {
	tv, m := keptCopy(t, 700, 9)
	if m.Live() < memoChunk {
		t.Fatalf("copy %v: too small to load through memos", m)
	}
	if tv.Ix.memos != nil || m.memos != nil {
		t.Fatalf("memos kept: index %d, copy %d", len(tv.Ix.memos), len(m.memos))
	}
}

// TestSpill_QueriesWhileFreezing runs searches while the copy is frozen
// again and again (each freeze maps a new file, and the collector unmaps
// the old one): a reader must never see bytes of a mapping that is gone.
func TestSpill_QueriesWhileFreezing(t *testing.T) {
	_, m := keptCopy(t, 300, 11)
	want := m.Search(tokenize.QueryTerms("release deploy rollback cache"), memindex.View{}, 10)
	if len(want) == 0 {
		t.Fatal("the query finds nothing")
	}
	done := make(chan struct{})
	errs := make(chan string, 4)
	for r := 0; r < 3; r++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				got := m.Search(tokenize.QueryTerms("release deploy rollback cache"), memindex.View{}, 10)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					errs <- fmt.Sprintf("during freezes: %v, want %v", got, want)
					return
				}
			}
		}()
	}
	for i := 0; i < 40; i++ {
		m.Refreeze(false)
		runtime.GC()
	}
	close(done)
	for r := 0; r < 3; r++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
