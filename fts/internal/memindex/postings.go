package memindex

import "encoding/binary"

// Postings are packed: for each doc, in ascending order, the gap from the
// doc before it (from 0 for the first) as a uvarint, then the weighted term
// frequency in one byte, or 0xff followed by the frequency as a uvarint
// when it is 255 or more.
//
// Most gaps of a common token fit in one byte and most frequencies are
// small (a body word counts 1, a heading word 4), so a posting takes about
// two bytes where an int32 doc and a uint16 frequency took six. Decoding
// costs a few nanoseconds a posting.
//
// A vocab (vocab.go) keeps every token's packed postings in one arena, and
// those appended since its last freeze in a tail of their own: so the
// copy's heap holds a few large pointer-free arrays rather than a million
// small lists, and a garbage collection has almost nothing to mark in it
// (docs/decisions/in-memory-copies.md has what one list per token cost;
// BenchmarkInMemoryCopyOf measures the copy).

// plist is one token's postings: vocab.arena[off:end], then vocab.tails[tail-1]
// when tail > 0.
type plist struct {
	off, end uint32
	n        int32 // postings
	last     int32 // the last doc appended
	tail     int32 // 1 + its index in vocab.tails; 0: none
}

const freqEscape = 0xff

// appendPosting packs doc d with frequency f after the doc last.
func appendPosting(b []byte, last, d int32, f uint16) []byte {
	b = binary.AppendUvarint(b, uint64(d-last))
	if f < freqEscape {
		return append(b, byte(f))
	}
	b = append(b, freqEscape)
	return binary.AppendUvarint(b, uint64(f))
}

// postingIter walks packed postings: for it := …; it.next(); { it.d, it.f }.
type postingIter struct {
	data, rest []byte // the bytes being read; the tail after them
	d          int32
	f          uint16
}

func (it *postingIter) next() bool {
	if len(it.data) == 0 {
		if len(it.rest) == 0 {
			return false
		}
		it.data, it.rest = it.rest, nil
	}
	// The one-byte gap and frequency, the common case, without a loop.
	if g := it.data[0]; g < 0x80 && len(it.data) > 1 && it.data[1] != freqEscape {
		it.d += int32(g)
		it.f = uint16(it.data[1])
		it.data = it.data[2:]
		return true
	}
	g, n := binary.Uvarint(it.data)
	it.d += int32(g)
	it.data = it.data[n:]
	if it.data[0] != freqEscape {
		it.f = uint16(it.data[0])
		it.data = it.data[1:]
		return true
	}
	f, n := binary.Uvarint(it.data[1:])
	it.f = uint16(f)
	it.data = it.data[1+n:]
	return true
}
