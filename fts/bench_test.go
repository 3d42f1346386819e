package fts

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/vault"
)

// benchNotes is how many notes the benchmarks generate; LORE_BENCH_NOTES
// overrides it (the README figures use 10,000).
func benchNotes() int {
	if n, err := strconv.Atoi(os.Getenv("LORE_BENCH_NOTES")); err == nil && n > 0 {
		return n
	}
	return 2000
}

func benchIndex(b *testing.B) (*Index, []string) {
	b.Helper()
	root := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	paths, err := synth.GenerateVault(root, benchNotes(), 1)
	if err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	ix, err := Open(context.Background(), v)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if _, err := ix.Refresh(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return ix, paths
}

func BenchmarkRefreshUnchanged(b *testing.B) {
	ix, _ := benchIndex(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Refresh(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkColdIndex(b *testing.B) {
	root := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	if _, err := synth.GenerateVault(root, benchNotes(), 1); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(v.DataDir())
		ix, err := Open(ctx, v)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ix.Refresh(ctx, nil); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

// TestGenerateVault_AllNotesIndex guards the benchmarks: every generated note
// must be valid memory (an earlier generator cut runes in half).
func TestGenerateVault_AllNotesIndex(t *testing.T) {
	tv := newTestVault(t, nil)
	if _, err := synth.GenerateVault(tv.root, 300, 1); err != nil {
		t.Fatal(err)
	}
	st, err := tv.ix.Stats(context.Background())
	if err != nil || st.Resources != 300 || st.Skipped != 0 || len(st.Problems) != 0 {
		t.Errorf("stats %+v, %v: want 300 clean notes", st, err)
	}
}

// BenchmarkInMemoryCopyOf measures the in-memory copy of an existing vault
// (LORE_SCALE_VAULT, e.g. one `lore bench -n 100000 -dir DIR` kept): the
// heap it adds, and search and activate latency with it and a watcher, as
// lore mcp runs. Skipped without the variable.
//
//	LORE_SCALE_VAULT=/tmp/bench100k go test -tags sqlite_fts5 -run '^$' -bench InMemoryCopyOf -benchtime 1x -timeout 30m ./fts
