package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiled runs f with the profiles the environment asks for, for people
// measuring where lore's time and memory go (docs/BENCHMARKS.md):
// LORE_CPUPROFILE=FILE writes a CPU profile of the whole command,
// LORE_HEAPPROFILE=FILE a heap profile at its end (after a GC: what is
// still held) and LORE_ALLOCPROFILE=FILE the allocations over its life.
// Without them it is f.
func profiled(f func() int) int {
	cpu, heap, allocs := os.Getenv("LORE_CPUPROFILE"), os.Getenv("LORE_HEAPPROFILE"), os.Getenv("LORE_ALLOCPROFILE")
	if cpu == "" && heap == "" && allocs == "" {
		return f()
	}
	if cpu != "" {
		if out, err := os.Create(cpu); err == nil {
			if err := pprof.StartCPUProfile(out); err == nil {
				defer func() { pprof.StopCPUProfile(); out.Close() }()
			}
		} else {
			fmt.Fprintln(os.Stderr, "lore: LORE_CPUPROFILE:", err)
		}
	}
	code := f()
	for _, p := range []struct{ file, name string }{{heap, "heap"}, {allocs, "allocs"}} {
		if p.file == "" {
			continue
		}
		runtime.GC()
		out, err := os.Create(p.file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "lore: %s profile: %v\n", p.name, err)
			continue
		}
		pprof.Lookup(p.name).WriteTo(out, 0)
		out.Close()
	}
	return code
}
