package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "[-n NOTES] [-queries Q] [-dir DIR]", `Generate a deterministic synthetic vault (about 4 KB a note, with frontmatter,
headings, wikilinks, code identifiers and some Chinese) and measure: cold
index throughput, the freshness check with nothing changed and with one file
changed, and search latency (p50/p95), all in this process.

Example: lore bench -n 10000`)
	n := fs.Int("n", 10000, "notes to generate")
	nq := fs.Int("queries", 300, "search queries to time")
	dir := fs.String("dir", "", "build the vault in DIR and keep it (default: temporary)")
	vectors := fs.Bool("vectors", true, "also time activate with a vector for every unit")
	if pos, err := e.parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError{"bench takes no arguments"}
	}
	root, cleanup, err := scratchVault(*dir, "lore-bench-*")
	if err != nil {
		return err
	}
	defer cleanup()
	paths, err := synth.GenerateVault(root, *n, 1)
	if err != nil {
		return err
	}
	var bytes int64
	for _, p := range paths {
		if st, err := os.Stat(filepath.Join(root, p)); err == nil {
			bytes += st.Size()
		}
	}
	v, err := vault.Open(root)
	if err != nil {
		return err
	}
	defer v.Close()
	os.RemoveAll(v.DataDir())
	ix, err := openIndexOf(ctx, v)
	if err != nil {
		return err
	}
	defer ix.Close()
	fmt.Fprintf(e.stdout, "lore bench: %d notes, %.1f MB, GOMAXPROCS=%d\n", *n, float64(bytes)/1e6, runtime.GOMAXPROCS(0))
	// The watcher one step starts runs until here, before the index closes.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := &bencher{ctx: ctx, out: e.stdout, stderr: e.stderr, ix: ix, root: root, paths: paths, bytes: bytes, queries: synth.Queries(*nq, 1)}
	for _, step := range []func() error{b.freshness, b.searchSQL, b.watched, b.searchMemory} {
		if err := step(); err != nil {
			return err
		}
	}
	if *vectors {
		return benchActivate(ctx, e, ix, b.queries)
	}
	return nil
}

// bencher holds what the steps of lore bench share.
type bencher struct {
	ctx         context.Context
	out, stderr io.Writer
	ix          *retrieve.Memory
	root        string
	paths       []string
	bytes       int64
	queries     []string
}

// freshness times the cold index, then the freshness check with nothing
// changed and with one file edited.
func (b *bencher) freshness() error {
	start := time.Now()
	if _, err := b.ix.Index.Refresh(b.ctx, progressPrinter(b.stderr, "indexing")); err != nil {
		return err
	}
	cold := time.Since(start)
	fmt.Fprintf(b.out, "cold index            %8s  (%.0f notes/s, %.1f MB/s)\n", cold.Round(time.Millisecond),
		float64(len(b.paths))/cold.Seconds(), float64(b.bytes)/1e6/cold.Seconds())

	unchanged, err := timeN(21, func(int) error { _, err := b.ix.Index.Refresh(b.ctx, nil); return err })
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "freshness, unchanged   p50 %s  p95 %s\n", pct(unchanged, 50), pct(unchanged, 95))
	// A one-shot command has no snapshot in memory: it opens the index and
	// compares digests before it would read one (fts/digest.go).
	oneShot, err := timeN(21, func(int) error {
		ix, err := fts.Open(b.ctx, b.ix.Vault())
		if err != nil {
			return err
		}
		ix.UseBulkMemory(bulkGC)
		defer ix.Close()
		_, err = ix.Refresh(b.ctx, nil)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "freshness, new handle  p50 %s  p95 %s  (as a one-shot command: open, digests, walk)\n", pct(oneShot, 50), pct(oneShot, 95))

	oneChanged, err := timeN(11, func(i int) error {
		f, err := os.OpenFile(filepath.Join(b.root, b.paths[(i*7919)%len(b.paths)]), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "\nEdited line %d.\n", i)
		f.Close()
		_, err = b.ix.Index.Refresh(b.ctx, nil)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "freshness, one edited  p50 %s  p95 %s\n", pct(oneChanged, 50), pct(oneChanged, 95))

	return nil
}

// searchSQL times search in FTS5, as one-shot commands run it.
func (b *bencher) searchSQL() error {
	queryOnly, err := timeN(len(b.queries), func(i int) error {
		_, err := b.ix.Pipeline.SearchFresh(b.ctx, b.queries[i], vault.SearchOptions{Limit: 10})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "search, FTS5 bm25 (one-shot commands)\n")
	fmt.Fprintf(b.out, "  query only           p50 %s  p95 %s\n", pct(queryOnly, 50), pct(queryOnly, 95))
	withCheck, err := timeN(len(b.queries), func(i int) error {
		_, err := b.ix.Search(b.ctx, b.queries[i], vault.SearchOptions{Limit: 10})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "  + freshness walk     p50 %s  p95 %s\n", pct(withCheck, 50), pct(withCheck, 95))
	return nil
}

// watched times the freshness check with the watcher on, as lore mcp runs;
// the watcher runs until b.ctx ends (runBench's end).
func (b *bencher) watched() error {
	// A long-running process (lore mcp) watches the vault instead of walking it.
	if err := b.ix.Index.Watch(b.ctx); err != nil {
		return err
	}
	b.ix.Index.Refresh(b.ctx, nil) // the watcher's first refresh walks once
	watched, err := timeN(21, func(int) error { _, err := b.ix.Index.Refresh(b.ctx, nil); return err })
	if err != nil {
		return err
	}
	fmt.Fprintf(b.out, "freshness, watched     p50 %s  p95 %s  (fsnotify, as lore mcp runs)\n", pct(watched, 50), pct(watched, 95))

	return nil
}

// searchMemory times search with the postings in memory, as lore mcp runs.
func (b *bencher) searchMemory() error {
	// lore mcp keeps the postings in memory and scores BM25 in Go.
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	if err := b.ix.Index.Resident().Keep(b.ctx); err != nil {
		return err
	}
	built := time.Since(start)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if ps, ok := b.ix.Index.Resident().Stats(); ok {
		fmt.Fprintf(b.out, "search, postings in memory (lore mcp): built in %s; %d units, %d postings, heap +%.0f MB\n",
			built.Round(time.Millisecond), ps.Units, ps.Postings, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1e6)
		memOnly, err := timeN(len(b.queries), func(i int) error {
			_, err := b.ix.Pipeline.SearchFresh(b.ctx, b.queries[i], vault.SearchOptions{Limit: 10})
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "  query only           p50 %s  p95 %s\n", pct(memOnly, 50), pct(memOnly, 95))
		memWatched, err := timeN(len(b.queries), func(i int) error {
			_, err := b.ix.Search(b.ctx, b.queries[i], vault.SearchOptions{Limit: 10})
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "  + watched freshness  p50 %s  p95 %s\n", pct(memWatched, 50), pct(memWatched, 95))
	} else {
		fmt.Fprintf(b.out, "search, postings in memory: not kept (more than the in-memory bound of units)\n")
	}
	return nil
}

// benchActivate times activate with a vector for every unit. Embedding 60,000
// units with the built-in model takes about 25 minutes on 2 cores, so the
// units get vectors of the same dimension (512) from the deterministic hash
// model — the k-NN costs the same — and then queries are embedded by the real
// built-in model, exactly as activate does it (concurrently with BM25).
func benchActivate(ctx context.Context, e *env, ix *retrieve.Memory, queries []string) error {
	out := e.stdout
	be := &benchEmbedder{hash: &embed.HashEmbedder{Dims: 512}}
	if err := ix.Index.Vectors().Use(ctx, be); err != nil {
		return err
	}
	start := time.Now()
	n, err := ix.Index.Vectors().Embed(ctx, progressPrinter(e.stderr, "vectors"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "vectors (hash model)   %d unit texts stored in %s\n", n, time.Since(start).Round(time.Millisecond))
	if err := ix.Index.Resident().Keep(ctx); err != nil { // the sign bits too, as lore mcp holds them
		return err
	}
	activate := func(i int) error {
		_, err := ix.Activate(ctx, vault.ActivateRequest{Query: queries[i]})
		return err
	}
	noEmbed, err := timeN(len(queries), activate)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "activate, no query embedding    p50 %s  p95 %s  (as lore mcp: watched freshness, data in memory)\n", pct(noEmbed, 50), pct(noEmbed, 95))
	dir, err := embed.DefaultModelDir()
	if err != nil {
		return err
	}
	m, err := embed.LoadUSELite(dir)
	if err != nil {
		fmt.Fprintf(out, "built-in model: %v\n", err)
		return nil
	}
	be.query = m
	withEmbed, err := timeN(len(queries), activate)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "activate, built-in query embedding p50 %s  p95 %s\n", pct(withEmbed, 50), pct(withEmbed, 95))
	qe, err := timeN(len(queries), func(i int) error {
		_, err := m.Embed(ctx, []string{queries[i]})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "query embedding alone           p50 %s  p95 %s\n", pct(qe, 50), pct(qe, 95))
	passages := make([]string, 64)
	for i := range passages {
		passages[i] = strings.Repeat(queries[i%len(queries)]+" ", 12)
	}
	t := time.Now()
	if _, err := m.Embed(ctx, passages); err != nil {
		return err
	}
	fmt.Fprintf(out, "built-in embedding     %.1f passages/s (64 passages of 128 tokens)\n", 64/time.Since(t).Seconds())
	return nil
}

// benchEmbedder embeds units with the hash model and, once query is set,
// queries with the real one; one name, so the index keeps the vectors.
type benchEmbedder struct {
	hash  *embed.HashEmbedder
	query embed.Embedder
}

func (b *benchEmbedder) Name() string { return "bench:hash-units" }
func (b *benchEmbedder) Dim() int     { return 512 }
func (b *benchEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if b.query != nil && len(texts) == 1 {
		return b.query.Embed(ctx, texts)
	}
	return b.hash.Embed(ctx, texts)
}

func timeN(n int, f func(i int) error) ([]time.Duration, error) {
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		if err := f(i); err != nil {
			return nil, err
		}
		ds[i] = time.Since(start)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds, nil
}

// pct returns the p-th percentile of sorted durations.
func pct(sorted []time.Duration, p int) string {
	d := sorted[(len(sorted)-1)*p/100]
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
