package memindex

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

type posting struct {
	d int32
	f uint16
}

func collect(v *vocab, t string) []posting {
	p := v.find(t)
	if p == nil {
		return nil
	}
	var out []posting
	for it := v.iter(p); it.next(); {
		out = append(out, posting{it.d, it.f})
	}
	return out
}

// TestPostings_RoundTrip packs postings of every shape — doc 0 first, gaps
// of one to four varint bytes, frequencies of 0 to 65535 (254 fits a byte,
// 255 is the escape byte's own value) — and reads back exactly what was
// added: from the tail, from the arena after a freeze, and from both when
// more are added after it.
func TestPostings_RoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var v vocab
	var want []posting
	d := int32(0)
	add := func(count int) {
		for i := 0; i < count; i++ {
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
			if len(want) == 0 {
				d = 0
			}
			f := []uint16{0, 1, 4, 254, 255, 256, 1000, 65535, uint16(r.IntN(65536))}[i%9]
			v.add("tok", d, f)
			v.add("other", d, 1)
			want = append(want, posting{d, f})
		}
	}
	check := func(when string) {
		t.Helper()
		if got := collect(&v, "tok"); !reflect.DeepEqual(got, want) || int(v.find("tok").n) != len(want) {
			t.Fatalf("%s: read %d postings (n=%d), added %d; first difference at %d", when, len(got), v.find("tok").n, len(want), firstDiff(got, want))
		}
	}
	add(10_000)
	check("from the tail")
	v.freeze(nil, "")
	check("from the arena")
	if len(v.tails) != 0 {
		t.Fatal("the freeze left tails")
	}
	if bytes := float64(len(v.arena)) / float64(v.postings()); bytes > 4 {
		t.Errorf("%.1f bytes a posting for these gaps; the packing is not working", bytes)
	}
	add(10_000)
	check("from the arena and a tail")
	v.freeze(nil, "")
	check("after a second freeze")
}

func firstDiff(a, b []posting) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestPostings_Renumber keeps and renumbers the postings a compaction keeps,
// arena and tail alike, with their frequencies, and drops the rest and the
// tokens left without any.
func TestPostings_Renumber(t *testing.T) {
	t.Parallel()
	var v vocab
	for _, x := range []posting{{0, 1}, {3, 300}, {200, 2}} {
		v.add("tok", x.d, x.f)
	}
	v.add("gone", 200, 1)
	v.freeze(nil, "")
	for _, x := range []posting{{201, 7}, {70000, 255}} {
		v.add("tok", x.d, x.f)
	}
	renum := make([]int32, 70001)
	for i := range renum {
		renum[i] = -1
	}
	renum[3], renum[201], renum[70000] = 0, 1, 2
	v.freeze(renum, "")
	if got, want := collect(&v, "tok"), []posting{{0, 300}, {1, 7}, {2, 255}}; !reflect.DeepEqual(got, want) || v.find("tok").n != 3 {
		t.Fatalf("after renumbering: %+v, want %+v", got, want)
	}
	if v.find("gone") != nil || v.count() != 1 {
		t.Fatalf("a token without postings survived the compaction (%d tokens)", v.count())
	}
	// Appending after a renumbering continues from the last kept doc.
	v.add("tok", 5, 9)
	if got := collect(&v, "tok"); len(got) != 4 || got[3] != (posting{5, 9}) {
		t.Fatalf("appended after renumbering: %+v", got)
	}
}
