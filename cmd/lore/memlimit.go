package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// A long-running lore (lore mcp) holds the in-memory copies of a vault's
// postings and vectors: most of its heap is live and stays so. At Go's
// default GOGC=100 the collector lets the heap grow to twice what is live
// before it collects, and gives freed memory back slowly. holdMemory sets a
// soft memory limit a quarter above the live heap (at least 32 MB of room;
// half, at least 128 MB, while a copy is being built), plus what the
// runtime holds beside its objects, and follows them every 2 s from before
// the copies are built (their build's garbage made most of the peak). What
// it saves and costs, resident memory and collections under load, is in
// docs/BENCHMARKS.md, "One warm lore" (scripts/bench/serve.py). It leaves
// the collector alone when the user set GOGC or GOMEMLIMIT. The copy's
// large arrays hold no pointers, so a collection marks little of it.

const (
	memRoomFraction = 4        // room above the live heap: a quarter of it…
	memRoomMin      = 32 << 20 // …and at least this
	memLimitEvery   = 2 * time.Second

	// While a copy is built its live heap grows fast, and a limit set 2 s
	// before is soon reached: with the room above, the collector ran back
	// to back and the 100,000-note build took longer (docs/BENCHMARKS.md,
	// "One warm lore"). Building, the room is half the live heap, at least
	// 128 MB.
	buildRoomFraction = 2
	buildRoomMin      = 128 << 20
)

// memBuilding counts the in-memory copies being built (holdMemory gives
// the heap more room meanwhile).
var memBuilding atomic.Int32

// memoryLimitFor is the soft limit for a live heap of live bytes (objects)
// in a process whose runtime holds overhead bytes beside its objects that
// the limit counts too (space unused in spans, stacks, metadata). Without
// the overhead in it, the 100,000-note server was left too little room and
// collected back to back under load (docs/BENCHMARKS.md, "One warm lore").
func memoryLimitFor(live, overhead uint64, building bool) int64 {
	if building {
		return int64(live + max(live/buildRoomFraction, buildRoomMin) + overhead)
	}
	return int64(live + max(live/memRoomFraction, memRoomMin) + overhead)
}

// The runtime's measures holdMemory reads.
var memSamples = []string{
	"/gc/heap/live:bytes",                 // objects marked live by the last collection
	"/memory/classes/total:bytes",         // all the runtime mapped…
	"/memory/classes/heap/released:bytes", // …less what it gave back,
	"/memory/classes/heap/free:bytes",     // what is free to reuse,
	"/memory/classes/heap/objects:bytes",  // and the objects themselves (live or not yet collected)
}

// limitNow reads the runtime's measures and returns the limit for them, or
// 0 before the first collection.
func limitNow(sample []metrics.Sample) int64 {
	metrics.Read(sample)
	var v [5]uint64
	for i := range sample {
		if sample[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		v[i] = sample[i].Value.Uint64()
	}
	live, total, released, free, objects := v[0], v[1], v[2], v[3], v[4]
	if live == 0 || total < released+free+objects {
		return 0
	}
	return memoryLimitFor(live, total-released-free-objects, memBuilding.Load() > 0)
}

// holdMemory keeps the soft memory limit near the live heap until ctx ends.
func holdMemory(ctx context.Context, getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := make([]metrics.Sample, len(memSamples))
	for i, name := range memSamples {
		sample[i].Name = name
	}
	t := time.NewTicker(memLimitEvery)
	defer t.Stop()
	for {
		if limit := limitNow(sample); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// A one-shot query (lore search, activate, load without a warm server)
// allocates a few MB and exits. At GOGC=100 the collector ran twice during
// a 10,000-note `lore activate` (its first goal is 4 MB), on the cores the
// query's own stages run on. collectLate turns the percentage off, with a
// soft limit in its place, for the first quarter second: a query is done by
// then, while a command that found the index far behind (a first search of
// a new vault indexes it) goes on with the collector as usual, so its peak
// is that of `lore index`. What it saves a query, and what it adds to its
// peak, is in docs/BENCHMARKS.md, "One warm lore" (one binary run with
// GOGC=100, which turns it off, and without). It leaves the
// collector alone when the user set GOGC or GOMEMLIMIT, and does nothing
// unless main asked for it: tests run commands in their own process, whose
// collector is theirs.
const (
	oneShotLimit = 256 << 20
	oneShotFor   = 250 * time.Millisecond
)

// collectLateInMain is set by main: only a process of its own may change
// how its collector runs.
var collectLateInMain bool

func collectLate(getenv func(string) string) {
	if !collectLateInMain || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := debug.SetMemoryLimit(oneShotLimit)
	percent := debug.SetGCPercent(-1)
	time.AfterFunc(oneShotFor, func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}
