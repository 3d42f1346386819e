package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A long-running lore (lore mcp, lore serve) holds the in-memory copies of a
// vault's postings and vectors: most of its heap is live and stays so. At
// Go's default GOGC=100 the collector lets the heap grow to twice what is
// live before it collects, and gives freed memory back slowly: on 100,000
// generated notes, a copy of 380 MB held the process at 940 MB resident.
// holdMemory sets a soft memory limit a little above the live heap (a
// quarter more, and at least 64 MB of room), and follows the live heap as
// the vault grows or shrinks. It leaves the collector alone when the user
// set GOGC or GOMEMLIMIT.

const (
	memRoomFraction = 2         // room above the live heap: half of it…
	memRoomMin      = 128 << 20 // …and at least this
	memLimitEvery   = 10 * time.Second
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
