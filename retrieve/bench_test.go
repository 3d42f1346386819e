package retrieve

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/shareddata"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// benchIndex indexes a generated vault of testvault.BenchNotes() notes.
func benchIndex(b *testing.B) (*Memory, []string) {
	ix, paths := testvault.Indexed[fts.RefreshStats](b, fts.Open)
	return &Memory{Index: ix, Pipeline: New(ix)}, paths
}

func BenchmarkSearchQueryOnly(b *testing.B) {
	ix, _ := benchIndex(b)
	ctx := context.Background()
	qs := synth.Queries(200, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Pipeline.SearchFresh(ctx, qs[i%len(qs)], vault.SearchOptions{Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchInMemory is BenchmarkSearchQueryOnly as lore mcp runs it:
// BM25 scored from the in-memory postings.
func BenchmarkSearchInMemory(b *testing.B) {
	ix, _ := benchIndex(b)
	ctx := context.Background()
	if err := ix.Index.Resident().Keep(ctx); err != nil {
		b.Fatal(err)
	}
	qs := synth.Queries(200, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Pipeline.SearchFresh(ctx, qs[i%len(qs)], vault.SearchOptions{Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkActivateInMemory is an activate as lore mcp answers it, lexical
// (the generated vault has no vectors): ranked from the in-memory postings,
// freshness followed by the watcher, assembled and recorded as a run. Its allocations are
// what the server's collector works through.
func BenchmarkActivateInMemory(b *testing.B) {
	ix, _ := benchIndex(b)
	ctx := context.Background()
	if err := ix.Index.Resident().Keep(ctx); err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := ix.Index.Watch(wctx); err != nil { // as lore mcp: the watcher keeps the index fresh
		b.Fatal(err)
	}
	if _, err := ix.Index.Refresh(ctx, nil); err != nil { // the first refresh after Watch walks the vault
		b.Fatal(err)
	}
	qs := synth.Queries(200, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Activate(ctx, vault.ActivateRequest{Query: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkActivate_ObsidianHub is BenchmarkActivateInMemory on a real
// vault, whose sections are long and full of links, comments and HTML: the
// Obsidian Hub's 6,591 notes asked the questions of its first, second and
// fifth sets, lexical. It skips with one line when the shared data is
// absent.
func BenchmarkActivate_ObsidianHub(b *testing.B) {
	root := testvault.New(b, nil)
	shareddata.WriteHub(b, root)
	_, m := testvault.Open(b, root, Open)
	ctx := context.Background()
	if err := m.Index.Resident().Keep(ctx); err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := m.Index.Watch(wctx); err != nil {
		b.Fatal(err)
	}
	if _, err := m.Index.Refresh(ctx, nil); err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, set := range []string{"questions.jsonl", "questions-2.jsonl", "questions-5.jsonl"} {
		f, err := os.Open(filepath.Join("..", "testdata", "hub", set))
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var q struct{ Query string }
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				b.Fatal(err)
			}
			qs = append(qs, q.Query)
		}
		f.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Activate(ctx, vault.ActivateRequest{Query: qs[i%len(qs)], Mode: "lexical"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInMemoryCopyOf(b *testing.B) {
	dir := os.Getenv("LORE_SCALE_VAULT")
	if dir == "" {
		b.Skip("LORE_SCALE_VAULT names no vault")
	}
	ctx := context.Background()
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := Open(ctx, v)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Index.Refresh(ctx, nil); err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	t0 := time.Now()
	if err := ix.Index.Resident().Keep(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(time.Since(t0).Seconds(), "s-build")
	runtime.GC()
	runtime.ReadMemStats(&ms)
	st, kept := ix.Index.Resident().Stats()
	if !kept {
		b.Fatal("the vault is larger than the in-memory copy allows")
	}
	b.ReportMetric(float64(ms.HeapInuse-before)/(1<<20), "MB-heap")
	b.ReportMetric(float64(st.Units), "units")
	b.ReportMetric(float64(st.Postings), "postings")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := ix.Index.Watch(wctx); err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Index.Refresh(ctx, nil); err != nil { // the first refresh after Watch walks the vault
		b.Fatal(err)
	}
	qs := []string{"retry budget sync", "deploy the service to staging", "cache invalidation after writes", "并发 控制",
		"parseConfigFile defaults", "why did the backup job fail", "rate limit per token"}
	for _, op := range []string{"search", "activate"} {
		var ts []time.Duration
		for i := 0; i < 10*len(qs); i++ {
			t1 := time.Now()
			if op == "search" {
				_, err = ix.Search(ctx, qs[i%len(qs)], vault.SearchOptions{Limit: 10})
			} else {
				_, err = ix.Activate(ctx, vault.ActivateRequest{Query: qs[i%len(qs)]})
			}
			if err != nil {
				b.Fatal(err)
			}
			if i >= len(qs) { // the first round warms up
				ts = append(ts, time.Since(t1))
			}
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		b.ReportMetric(float64(ts[len(ts)/2].Microseconds())/1000, "ms-"+op+"-p50")
		b.ReportMetric(float64(ts[len(ts)*95/100].Microseconds())/1000, "ms-"+op+"-p95")
	}
}
