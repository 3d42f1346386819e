package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A long-running lore (lore mcp) holds the in-memory copies of a vault's
// postings and vectors: most of its heap is live and stays so. At Go's
// default GOGC=100 the collector lets the heap grow to twice what is live
// before it collects, and gives freed memory back slowly. holdMemory sets a
// soft memory limit half above the live heap (at least 128 MB of room) and
// follows the live heap every 2 s, from before the copies are built (their
// build's garbage made most of the peak). On 100,000 generated notes
// (`scripts/bench/serve.py`): resident 816 → 550 MB after the queries, peak
// 1,072–1,160 → 768 MB, copies ready in 38 s instead of 33; activate and
// search p50 within the run-to-run noise (35–64 ms either way). It leaves the
// collector alone when the user set GOGC or GOMEMLIMIT.

const (
	memRoomFraction = 2         // room above the live heap: half of it…
	memRoomMin      = 128 << 20 // …and at least this
	memLimitEvery   = 2 * time.Second
)

// memoryLimitFor is the soft limit for a live heap of live bytes.
func memoryLimitFor(live uint64) int64 {
	return int64(live + max(live/memRoomFraction, memRoomMin))
}

// holdMemory keeps the soft memory limit near the live heap until ctx ends.
func holdMemory(ctx context.Context, getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(memLimitEvery)
	defer t.Stop()
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if live := sample[0].Value.Uint64(); live > 0 {
				debug.SetMemoryLimit(memoryLimitFor(live))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
