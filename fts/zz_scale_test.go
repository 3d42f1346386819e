package fts

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"testing"
	"time"

	"github.com/lore-memory/lore/vault"
)

func TestZZScale(t *testing.T) {
	dir := os.Getenv("LORE_SCALE_VAULT")
	if dir == "" {
		t.Skip()
	}
	ctx := context.Background()
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	t0 := time.Now()
	if err := ix.KeepInMemory(ctx); err != nil {
		t.Fatal(err)
	}
	build := time.Since(t0)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go ix.Watch(wctx)
	time.Sleep(2 * time.Second)
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&ms)
	if f, err := os.Create("/tmp/heap.prof"); err == nil {
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	st, ok := ix.PostingsStats()
	t.Logf("build %v kept=%v stats=%+v heap in use +%d MB (total %d MB, sys %d MB)", build, ok, st, (ms.HeapInuse-before)>>20, ms.HeapInuse>>20, ms.Sys>>20)
	qs := []string{"retry budget sync", "deploy the service to staging", "cache invalidation after writes", "并发 控制", "parseConfigFile defaults", "why did the backup job fail", "rate limit per token"}
	for _, op := range []string{"search", "activate"} {
		var ts []time.Duration
		for i := 0; i < 70; i++ {
			q := qs[i%len(qs)]
			t1 := time.Now()
			if op == "search" {
				_, err = ix.Search(ctx, q, vault.SearchOptions{Limit: 10})
			} else {
				_, err = ix.Activate(ctx, vault.ActivateRequest{Query: q})
			}
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, time.Since(t1))
		}
		ts = ts[7:]
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		t.Logf("%s p50 %v p95 %v", op, ts[len(ts)/2], ts[len(ts)*95/100])
	}
}
