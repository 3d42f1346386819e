package fts

import (
	"math/rand/v2"
	"testing"
)

type posting struct {
	d int32
	f uint16
}

func collect(p *plist) []posting {
	var out []posting
	for it := p.iter(); it.next(); {
		out = append(out, posting{it.d, it.f})
	}
	return out
}

// TestPlist_RoundTrip packs postings of every shape — doc 0 first, gaps of
// one to four varint bytes, frequencies of 0 to 65535 (254 fits a byte, 255
// is the escape byte's own value) — and reads back exactly what was added.
func TestPlist_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var p plist
	var want []posting
	d := int32(0)
	for i := 0; i < 20_000; i++ {
		switch i % 5 {
		case 0:
			d += 1
		case 1:
			d += int32(r.IntN(127) + 1)
		case 2:
			d += int32(r.IntN(1<<14) + 128)
		case 3:
			d += int32(r.IntN(1<<20) + 1<<14)
		case 4:
			d += 0x7f
		}
		if i == 0 {
			d = 0
		}
		f := []uint16{0, 1, 4, 254, 255, 256, 1000, 65535, uint16(r.IntN(65536))}[i%9]
		p.add(d, f)
		want = append(want, posting{d, f})
	}
	got := collect(&p)
	if len(got) != len(want) || int(p.n) != len(want) {
		t.Fatalf("read %d postings (n=%d), added %d", len(got), p.n, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("posting %d: read %+v, added %+v", i, got[i], want[i])
		}
	}
	if bytes := float64(len(p.data)) / float64(p.n); bytes > 4 {
		t.Errorf("%.1f bytes a posting for these gaps; the packing is not working", bytes)
	}
}

// TestPlist_Renumber keeps and renumbers the postings compaction keeps,
// with their frequencies, and drops the rest.
func TestPlist_Renumber(t *testing.T) {
	var p plist
	for _, x := range []posting{{0, 1}, {3, 300}, {200, 2}, {201, 7}, {70000, 255}} {
		p.add(x.d, x.f)
	}
	renum := make([]int32, 70001)
	for i := range renum {
		renum[i] = -1
	}
	renum[3], renum[201], renum[70000] = 0, 1, 2
	p.renumber(renum)
	got := collect(&p)
	want := []posting{{0, 300}, {1, 7}, {2, 255}}
	if len(got) != len(want) || p.n != 3 {
		t.Fatalf("after renumbering: %+v (n=%d), want %+v", got, p.n, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after renumbering: %+v, want %+v", got, want)
		}
	}
	// Appending after a renumbering continues from the last kept doc.
	p.add(5, 9)
	if got := collect(&p); got[3] != (posting{5, 9}) {
		t.Fatalf("appended after renumbering: %+v", got)
	}
}
