// Package signbits keeps the sign bits of float32 vectors and finds the
// nearest to a query by Hamming distance: the in-memory first pass of the
// index's vector stage (package fts rescores what it finds with sqlite-vec's
// own cosine distance, and keeps the set in step with the index's vector
// log). 8 bytes of bits per 64 dimensions: a scan is a fraction of what
// sqlite-vec's binary k-NN over the same vectors costs (BenchmarkNearest).
//
// A Set is not safe for concurrent use; its owner locks it.
package signbits

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sort"
)

// Set holds vectors' sign bits by row id, with a 64-bit key each (the
// index keeps its embedding input's hash there).
type Set struct {
	words  int // uint64 words per vector
	rowids []int64
	keys   []uint64
	codes  []uint64 // len(rowids) * words
	at     map[int64]int
	dead   int
}

// New returns an empty set for vectors of dim dimensions.
func New(dim int) *Set { return &Set{words: WordsFor(dim), at: map[int64]int{}} }

// WordsFor is the number of 64-bit words the bits of a vector of dim
// dimensions take: sets of the same words are interchangeable.
func WordsFor(dim int) int { return (dim + 63) / 64 }

// Words is WordsFor of the set's dimensions.
func (s *Set) Words() int { return s.words }

// Has reports whether the set holds row id.
func (s *Set) Has(id int64) bool { _, ok := s.at[id]; return ok }

// Len is the number of vectors held.
func (s *Set) Len() int { return len(s.at) }

// Add keeps the sign bits of a little-endian float32 vector, in the bit
// order of sqlite-vec's vec_quantize_binary (bit i of byte i/8 is dimension
// i; Hamming distances do not depend on the order anyway). A row id held
// already is left as it is.
func (s *Set) Add(id int64, blob []byte, key uint64) {
	if s.Has(id) {
		return
	}
	code := make([]uint64, s.words)
	for d := 0; d+4 <= len(blob) && d/4 < s.words*64; d += 4 {
		if math.Float32frombits(binary.LittleEndian.Uint32(blob[d:])) > 0 {
			k := d / 4
			code[k/64] |= 1 << (k % 64)
		}
	}
	s.at[id] = len(s.rowids)
	s.rowids = append(s.rowids, id)
	s.keys = append(s.keys, key)
	s.codes = append(s.codes, code...)
}

// Remove drops row id; its place is reclaimed when a third of the places
// are dead.
func (s *Set) Remove(id int64) {
	i, ok := s.at[id]
	if !ok {
		return
	}
	delete(s.at, id)
	s.rowids[i] = -1
	s.dead++
	if s.dead*3 > len(s.rowids) {
		s.compact()
	}
}

func (s *Set) compact() {
	k := 0
	for i, id := range s.rowids {
		if id < 0 {
			continue
		}
		s.rowids[k], s.keys[k] = id, s.keys[i]
		copy(s.codes[k*s.words:(k+1)*s.words], s.codes[i*s.words:(i+1)*s.words])
		s.at[id] = k
		k++
	}
	s.rowids, s.keys, s.codes, s.dead = s.rowids[:k], s.keys[:k], s.codes[:k*s.words], 0
}

// Key returns row id's key (0 when the set does not hold it).
func (s *Set) Key(id int64) uint64 {
	if i, ok := s.at[id]; ok {
		return s.keys[i]
	}
	return 0
}

// Nearest returns the k row ids whose sign bits are closest to q's in
// Hamming distance, closest first (ties by row id).
func (s *Set) Nearest(qv []float32, k int) []int64 {
	q := make([]uint64, max(s.words, 8))
	for d, x := range qv {
		if d < s.words*64 && x > 0 {
			q[d/64] |= 1 << (d % 64)
		}
	}
	type cand struct {
		dist int
		id   int64
	}
	// A bounded max-heap would do; with k in the hundreds a sorted insert
	// into a small slice is as fast and simpler.
	top := make([]cand, 0, k+1)
	worst := math.MaxInt
	codes, words := s.codes, s.words
	for i, id := range s.rowids {
		var dist int
		if words == 8 { // 512 dimensions, the built-in model's: unrolled
			c := codes[i*8 : i*8+8 : i*8+8]
			dist = bits.OnesCount64(c[0]^q[0]) + bits.OnesCount64(c[1]^q[1]) +
				bits.OnesCount64(c[2]^q[2]) + bits.OnesCount64(c[3]^q[3]) +
				bits.OnesCount64(c[4]^q[4]) + bits.OnesCount64(c[5]^q[5]) +
				bits.OnesCount64(c[6]^q[6]) + bits.OnesCount64(c[7]^q[7])
		} else {
			for w, x := range codes[i*words : (i+1)*words] {
				dist += bits.OnesCount64(x ^ q[w])
			}
		}
		if dist >= worst || id < 0 {
			continue
		}
		c := cand{dist, id}
		j := sort.Search(len(top), func(j int) bool {
			return top[j].dist > c.dist || top[j].dist == c.dist && top[j].id > c.id
		})
		top = append(top, cand{})
		copy(top[j+1:], top[j:])
		top[j] = c
		if len(top) > k {
			top = top[:k]
		}
		if len(top) == k {
			worst = top[k-1].dist
		}
	}
	out := make([]int64, len(top))
	for i, c := range top {
		out[i] = c.id
	}
	return out
}
