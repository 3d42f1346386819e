package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/lore-memory/lore/fts"
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
	if pos, err := parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError{"bench takes no arguments"}
	}
	root := *dir
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "lore-bench-*"); err != nil {
			return err
		}
		defer os.RemoveAll(root)
	}
	if _, err := git.PlainInit(root, false); err != nil && err != git.ErrRepositoryAlreadyExists {
		return err
	}
	paths, err := fts.GenerateVault(root, *n, 1)
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
	ix, err := fts.Open(ctx, v)
	if err != nil {
		return err
	}
	defer ix.Close()
	out := e.stdout
	fmt.Fprintf(out, "lore bench: %d notes, %.1f MB, GOMAXPROCS=%d\n", *n, float64(bytes)/1e6, runtime.GOMAXPROCS(0))

	start := time.Now()
	if _, err := ix.Refresh(ctx, progressPrinter(e.stderr, "indexing")); err != nil {
		return err
	}
	cold := time.Since(start)
	fmt.Fprintf(out, "cold index            %8s  (%.0f notes/s, %.1f MB/s)\n", cold.Round(time.Millisecond),
		float64(*n)/cold.Seconds(), float64(bytes)/1e6/cold.Seconds())

	unchanged, err := timeN(21, func(int) error { _, err := ix.Refresh(ctx, nil); return err })
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "freshness, unchanged   p50 %s  p95 %s\n", pct(unchanged, 50), pct(unchanged, 95))

	oneChanged, err := timeN(11, func(i int) error {
		f, err := os.OpenFile(filepath.Join(root, paths[(i*7919)%len(paths)]), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "\nEdited line %d.\n", i)
		f.Close()
		_, err = ix.Refresh(ctx, nil)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "freshness, one edited  p50 %s  p95 %s\n", pct(oneChanged, 50), pct(oneChanged, 95))

	queries := fts.SynthQueries(*nq, 1)
	queryOnly, err := timeN(len(queries), func(i int) error {
		_, err := ix.SearchFresh(ctx, queries[i], fts.SearchOptions{Limit: 10})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "search (query only)    p50 %s  p95 %s\n", pct(queryOnly, 50), pct(queryOnly, 95))
	withCheck, err := timeN(len(queries), func(i int) error {
		_, err := ix.Search(ctx, queries[i], fts.SearchOptions{Limit: 10})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "search + freshness     p50 %s  p95 %s\n", pct(withCheck, 50), pct(withCheck, 95))
	return nil
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
	i := (len(sorted) - 1) * p / 100
	d := sorted[i]
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
