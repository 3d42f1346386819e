package fts

import (
	"context"
	"os"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// benchIndex indexes a generated vault of testvault.BenchNotes() notes.
func benchIndex(b *testing.B) (*Index, []string) {
	return testvault.Indexed[RefreshStats](b, Open)
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

// BenchmarkRefreshWatchedIdle is the freshness check of a long-running
// process whose watcher saw nothing: what every search and activate of lore
// mcp pays first.
func BenchmarkRefreshWatchedIdle(b *testing.B) {
	ix, _ := benchIndex(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := ix.Watch(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the first refresh after Watch walks the vault
		if _, err := ix.Refresh(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Refresh(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkColdIndex(b *testing.B) {
	root, _ := testvault.Generated(b, testvault.BenchNotes())
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
	t.Parallel()
	tv := newTestVault(t, nil)
	if _, err := synth.GenerateVault(tv.Root, 300, 1); err != nil {
		t.Fatal(err)
	}
	st, err := tv.Ix.Stats(context.Background())
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

// BenchmarkNearestSQL is the vector stage of a one-shot command (no
// in-memory copies): sqlite-vec's first pass over the generated vault's
// binary vectors (a 64-dimension hash model), the exact cosines, and the
// units the view sees.
func BenchmarkNearestSQL(b *testing.B) {
	ix, qs := benchIndex(b)
	ctx := context.Background()
	if err := ix.Vectors().Use(ctx, &embed.HashEmbedder{Dims: 64}); err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Vectors().Embed(ctx, nil); err != nil {
		b.Fatal(err)
	}
	vs, err := ix.Vectors().Embedder().Embed(ctx, qs)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Lookups().Nearest(ctx, vs[i%len(vs)], "", 40); err != nil {
			b.Fatal(err)
		}
	}
}
