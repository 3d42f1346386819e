package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/lore-memory/lore/fts"
)

// A refresh of many batches (a cold index, a rebuild, a large pull) makes
// garbage as it goes (the index tells of it: fts.BulkMemory): the parsers'
// trees, units, terms. At Go's default GOGC of 100 the collector took a
// large share of a cold index's CPU. While such a refresh runs, the target
// is raised to bulkGCPercent, so the collector runs a quarter as often,
// under a soft memory limit that follows the live heap: bulkRoom above what
// the last collection kept (at least bulkMemoryLimit), set again after each
// batch (bulkGCFollow). A fixed limit let a cold index peak far above its
// live heap; following it, the peak stays near the live heap for a little
// more CPU, and a larger vault, whose batches keep more alive, gets more
// room instead of a collector running back to back (the figures:
// docs/BENCHMARKS.md, "The index's footprint", `lore bench` in alternating
// runs). A GOGC or GOMEMLIMIT set by the user is left as it is.
const (
	bulkGCPercent   = 400
	bulkMemoryLimit = 128 << 20
	bulkRoom        = 96 << 20
)

// bulkGC is the process's fts.BulkMemory: one for the whole process, as
// the collector is.
var bulkGC fts.BulkMemory = bulkMemory{}

// bulkMemory tunes the collector for the index's bulk refreshes.
type bulkMemory struct{}

// Start raises the collector's target (enterBulkGC).
func (bulkMemory) Start() func() { return enterBulkGC() }

// Batch follows the live heap (bulkGCFollow).
func (bulkMemory) Batch() { bulkGCFollow() }

var bulkState struct {
	sync.Mutex
	users      int
	oldPercent int
	oldLimit   int64
	owned      bool // the limit is the bulk refresh's (bulkGCFollow moves it)
}

// enterBulkGC raises the collector's target for a bulk refresh; the function
// it returns puts it back once the last concurrent bulk refresh ends.
func enterBulkGC() (exit func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	bulkState.Lock()
	defer bulkState.Unlock()
	if bulkState.users == 0 {
		bulkState.oldPercent = debug.SetGCPercent(bulkGCPercent)
		bulkState.oldLimit = debug.SetMemoryLimit(-1) // reads it
		if bulkState.owned = bulkState.oldLimit == math.MaxInt64; bulkState.owned {
			debug.SetMemoryLimit(bulkMemoryLimit)
		}
	}
	bulkState.users++
	return func() {
		bulkState.Lock()
		defer bulkState.Unlock()
		if bulkState.users--; bulkState.users == 0 {
			debug.SetGCPercent(bulkState.oldPercent)
			debug.SetMemoryLimit(bulkState.oldLimit)
			bulkState.owned = false
		}
	}
}

// liveSample reads the bytes the last collection kept.
var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// bulkGCFollow sets the bulk refresh's memory limit bulkRoom above the
// live heap (at least bulkMemoryLimit), when the limit is the refresh's.
func bulkGCFollow() {
	bulkState.Lock()
	defer bulkState.Unlock()
	if !bulkState.owned {
		return
	}
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(bulkLimitFor(liveSample[0].Value.Uint64()))
	}
}

// bulkLimitFor is the bulk refresh's memory limit for a live heap.
func bulkLimitFor(live uint64) int64 { return max(int64(live)+bulkRoom, bulkMemoryLimit) }
