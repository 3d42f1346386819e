package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestEnterBulkGC_RestoresTheCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	exit1 := enterBulkGC()
	exit2 := enterBulkGC() // a second bulk refresh at the same time
	if got := debug.SetGCPercent(-1); got != bulkGCPercent {
		t.Errorf("GC percent during a bulk refresh = %d, want %d", got, bulkGCPercent)
	}
	debug.SetGCPercent(bulkGCPercent)
	if got := debug.SetMemoryLimit(-1); got != bulkMemoryLimit {
		t.Errorf("memory limit during a bulk refresh = %d, want %d", got, bulkMemoryLimit)
	}
	exit1()
	if got := debug.SetGCPercent(-1); got != bulkGCPercent {
		t.Errorf("GC percent after the first of two bulk refreshes = %d, want %d", got, bulkGCPercent)
	}
	debug.SetGCPercent(bulkGCPercent)
	exit2()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after both = %d, want 100 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after both = %d, want none", got)
	}

	// A limit the program set stays; a GOGC the user set leaves both alone.
	debug.SetMemoryLimit(64 << 20)
	enterBulkGC()()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("memory limit after a bulk refresh = %d, want the program's 64 MiB", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOGC", "100")
	exit := enterBulkGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC set = %d, want it left at 100", got)
	}
	exit()
}

// The bulk limit follows the live heap, bulkRoom above it, never below
// bulkMemoryLimit; it moves only a limit the bulk refresh set.
func TestBulkGCFollow_TheLiveHeap(t *testing.T) {
	if got := bulkLimitFor(10 << 20); got != bulkMemoryLimit {
		t.Errorf("10 MiB live: limit %d, want the floor %d", got, bulkMemoryLimit)
	}
	if got := bulkLimitFor(400 << 20); got != 400<<20+bulkRoom {
		t.Errorf("400 MiB live: limit %d", got)
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	exit := enterBulkGC()
	bulkGCFollow()
	if got := debug.SetMemoryLimit(-1); got < bulkMemoryLimit || got == math.MaxInt64 {
		t.Errorf("limit after following: %d", got)
	}
	exit()
	debug.SetMemoryLimit(64 << 20) // the program's own
	exit = enterBulkGC()
	bulkGCFollow()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("a limit the program set was moved: %d", got)
	}
	exit()
}
