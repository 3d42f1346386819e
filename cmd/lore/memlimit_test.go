package main

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryLimitFor_LeavesRoomAboveTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live, overhead uint64
		want           int64
		building       bool
	}{
		{0, 0, memRoomMin, false},
		{10 << 20, 0, 10<<20 + memRoomMin, false},
		{100 << 20, 0, 100<<20 + memRoomMin, false}, // a quarter of 100 MB is less than the least room
		{400 << 20, 0, 500 << 20, false},
		{400 << 20, 50 << 20, 550 << 20, false}, // the runtime's own overhead is room it does not give
		{100 << 20, 0, 100<<20 + buildRoomMin, true},
		{400 << 20, 0, 600 << 20, true}, // a copy being built: half the live heap
	} {
		if got := memoryLimitFor(c.live, c.overhead, c.building); got != c.want {
			t.Errorf("memoryLimitFor(%d MB, %d MB, %v) = %d MB, want %d MB", c.live>>20, c.overhead>>20, c.building, got>>20, c.want>>20)
		}
	}
}

// TestHoldMemory_SetsALimitUnlessTheUserSetOne: a long-running lore sets a
// soft memory limit above its live heap, and leaves the collector as the
// user set it with GOGC or GOMEMLIMIT.
func TestHoldMemory_SetsALimitUnlessTheUserSetOne(t *testing.T) {
	old := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(old)
	done, cancel := context.WithCancel(context.Background())
	cancel() // one pass, then return

	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		holdMemory(done, func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("with %s set, the limit became %d", name, got)
		}
	}
	runtime.GC() // the live heap is measured by a collection
	holdMemory(done, func(string) string { return "" })
	got := debug.SetMemoryLimit(-1)
	if got == math.MaxInt64 || got < memRoomMin {
		t.Errorf("no limit set, or one below the room it leaves: %d", got)
	}
}

// gcNow reads the collector's percentage and soft limit without changing them.
func gcNow() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// collectLate turns the collector's percentage off under a soft limit for
// a one-shot query, and gives both back afterwards; a user's GOGC or
// GOMEMLIMIT, and a process that is not lore's own main (a test's), are
// left alone.
func TestCollectLate(t *testing.T) {
	defer func(v bool) { collectLateInMain = v }(collectLateInMain)
	percent, limit := gcNow()
	collectLateInMain = false
	collectLate(func(string) string { return "" })
	if p, l := gcNow(); p != percent || l != limit {
		t.Fatalf("not lore's main: collector changed to %d%%, limit %d", p, l)
	}
	collectLateInMain = true
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
		collectLate(func(name string) string {
			if name == k {
				return "50"
			}
			return ""
		})
		if p, l := gcNow(); p != percent || l != limit {
			t.Fatalf("%s set by the user: collector changed to %d%%, limit %d", k, p, l)
		}
	}
	collectLate(func(string) string { return "" })
	if p, l := gcNow(); p != -1 || l != oneShotLimit {
		t.Fatalf("a one-shot query: collector at %d%%, limit %d; want off, limit %d", p, l, int64(oneShotLimit))
	}
	deadline := time.Now().Add(10 * time.Second) // a bound on waiting, not a timing claim
	for {
		if p, l := gcNow(); p == percent && l == limit {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcNow()
			t.Fatalf("after the query's time: collector at %d%%, limit %d; want %d%%, limit %d back", p, l, percent, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
