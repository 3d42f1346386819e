package fts

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
)

// A refresh of many batches (a cold index, a rebuild, a large pull) makes
// ~75 KB of garbage a note: goldmark's and yaml.v3's trees, units, terms. At
// Go's default GOGC of 100 the collector ran about twenty times in a cold
// index of 10,000 notes and took ~12 % of its CPU (`lore bench`, alternating
// runs). While such a refresh runs, the target is raised to bulkGCPercent, so
// the collector runs a quarter as often: that vault's peak memory goes from
// ~180 to ~350 MB. A soft limit (bulkMemoryLimit) makes it collect sooner on
// larger vaults: `lore index --rebuild --no-embed` of 100,000 generated
// notes peaked at 560 MB resident with 512 MiB, at 368 MB with 300 MiB (2 m
// 11 s → 2 m 48 s); the cold index of 10,000 notes is no slower with it
// (alternating `lore bench` runs: 4.31 and 4.47 s against 5.03 and 4.35 s).
// A GOGC or GOMEMLIMIT set by the user is left as it is.
const (
	bulkGCPercent   = 400
	bulkMemoryLimit = 300 << 20
)

var bulkGC struct {
	sync.Mutex
	users      int
	oldPercent int
	oldLimit   int64
}

// enterBulkGC raises the collector's target for a bulk refresh; the function
// it returns puts it back once the last concurrent bulk refresh ends.
func enterBulkGC() (exit func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	bulkGC.Lock()
	defer bulkGC.Unlock()
	if bulkGC.users == 0 {
		bulkGC.oldPercent = debug.SetGCPercent(bulkGCPercent)
		bulkGC.oldLimit = debug.SetMemoryLimit(-1) // reads it
		if bulkGC.oldLimit == math.MaxInt64 {
			debug.SetMemoryLimit(bulkMemoryLimit)
		}
	}
	bulkGC.users++
	return func() {
		bulkGC.Lock()
		defer bulkGC.Unlock()
		if bulkGC.users--; bulkGC.users == 0 {
			debug.SetGCPercent(bulkGC.oldPercent)
			debug.SetMemoryLimit(bulkGC.oldLimit)
		}
	}
}
