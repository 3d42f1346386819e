package signbits

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand"
	"slices"
	"sort"
	"testing"
)

func blobOf(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = r.Float32() - 0.5
	}
	return v
}

// nearestByHand is the oracle: every vector's Hamming distance to q's
// signs, counted dimension by dimension, sorted by distance then row id.
func nearestByHand(vs map[int64][]float32, q []float32, k int) []int64 {
	type cand struct {
		d  int
		id int64
	}
	var cs []cand
	for id, v := range vs {
		d := 0
		for i := range v {
			if (v[i] > 0) != (q[i] > 0) {
				d++
			}
		}
		cs = append(cs, cand{d, id})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].id < cs[j].id })
	var out []int64
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.id)
	}
	return out
}

// Nearest finds what counting by hand finds, for the built-in model's 512
// dimensions (the unrolled path) and another size, through removals and
// the compaction they cause; keys follow their rows.
func TestNearest_MatchesCountingByHand(t *testing.T) {
	for _, dim := range []int{512, 100} {
		r := rand.New(rand.NewSource(int64(dim)))
		s := New(dim)
		vs := map[int64][]float32{}
		for id := int64(1); id <= 300; id++ {
			v := randomVector(r, dim)
			vs[id] = v
			s.Add(id, blobOf(v), uint64(id)*7)
		}
		s.Add(5, blobOf(randomVector(r, dim)), 1) // held already: left as it is
		for id := int64(1); id <= 300; id += 2 {
			s.Remove(id)
			delete(vs, id)
		}
		s.Remove(9999) // not held: nothing
		if s.Len() != len(vs) {
			t.Fatalf("dim %d: Len %d, want %d", dim, s.Len(), len(vs))
		}
		for trial := range 20 {
			q := randomVector(r, dim)
			if got, want := s.Nearest(q, 17), nearestByHand(vs, q, 17); !slices.Equal(got, want) {
				t.Fatalf("dim %d, query %d: Nearest = %v, by hand %v", dim, trial, got, want)
			}
		}
		if s.Key(6) != 42 || s.Key(5) != 0 || s.Has(5) || !s.Has(6) {
			t.Errorf("dim %d: keys or membership lost: Key(6)=%d Key(5)=%d", dim, s.Key(6), s.Key(5))
		}
	}
}

// A vector's bit i is dimension i's sign, as sqlite-vec's
// vec_quantize_binary sets it; a blob longer than the set's dimensions
// gives only its first ones.
func TestAdd_BitOrder(t *testing.T) {
	s := New(64)
	v := make([]float32, 70)
	v[0], v[3], v[63], v[65] = 1, 0.5, 2, 3
	s.Add(1, blobOf(v), 0)
	if got := s.codes[0]; got != 1|1<<3|1<<63 || bits.OnesCount64(got) != 3 {
		t.Errorf("bits %064b", got)
	}
}

// BenchmarkNearest is the vector stage's first pass over 60,000 vectors of
// 512 dimensions (10,000 notes), keeping 160.
func BenchmarkNearest(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	s := New(512)
	for i := 0; i < 60000; i++ {
		s.at[int64(i+1)] = i
		s.rowids = append(s.rowids, int64(i+1))
		s.keys = append(s.keys, 0)
		for w := 0; w < 8; w++ {
			s.codes = append(s.codes, r.Uint64())
		}
	}
	q := randomVector(r, 512)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Nearest(q, 160)
	}
}
