package main

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
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
