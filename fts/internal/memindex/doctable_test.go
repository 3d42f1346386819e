package memindex

import (
	"math/rand"
	"testing"
)

// TestDocTable_MatchesAMap runs random sets and deletions against a Go map,
// with keys that collide in a small table (so probes wrap around the end and
// deletions move slots back), and checks every key after each step.
func TestDocTable_MatchesAMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	var keys []uint64 // doc d's key
	tab := newDocTable(0, func(d int32) uint64 { return keys[d] })
	want := map[uint64]int32{}
	for step := 0; step < 20000; step++ {
		k := uint64(r.Intn(300)) // few keys: many replacements and deletions
		if step%7 == 0 {
			k = uint64(r.Int63()) // and some far apart
		}
		if r.Intn(3) == 0 {
			tab.del(k)
			delete(want, k)
		} else {
			keys = append(keys, k)
			d := int32(len(keys) - 1)
			tab.set(d)
			want[k] = d
		}
		if step%97 == 0 || step > 19900 {
			for k, d := range want {
				if got, ok := tab.find(k); !ok || got != d {
					t.Fatalf("step %d: key %d → %d %v, want %d", step, k, got, ok, d)
				}
			}
			for i := 0; i < 50; i++ {
				k := uint64(300 + r.Intn(1000))
				if _, in := want[k]; !in {
					if d, ok := tab.find(k); ok {
						t.Fatalf("step %d: absent key %d found at %d", step, k, d)
					}
				}
			}
			if tab.n != len(want) {
				t.Fatalf("step %d: %d entries, want %d", step, tab.n, len(want))
			}
		}
	}
}
