package fts

import "encoding/binary"

// A plist is one token's postings in the in-memory copy, packed: for each
// doc, in ascending order, the gap from the doc before it (from 0 for the
// first) as a uvarint, then the weighted term frequency in one byte, or
// 0xff followed by the frequency as a uvarint when it is 255 or more.
//
// Most gaps of a common token fit in one byte and most frequencies are
// small (a body word counts 1, a heading word 4), so a posting takes about
// two bytes where an int32 doc and a uint16 frequency took six: on 100,000
// generated notes (600,000 units, 58 million postings) that is the
// difference between a copy that fits the warm server's memory and one that
// does not. Decoding costs a few nanoseconds a posting.
type plist struct {
	data []byte
	n    int32 // postings
	last int32 // the last doc appended
}

const freqEscape = 0xff

// add appends doc d (greater than every doc before it) with frequency f.
func (p *plist) add(d int32, f uint16) {
	p.data = binary.AppendUvarint(p.data, uint64(d-p.last))
	if f < freqEscape {
		p.data = append(p.data, byte(f))
	} else {
		p.data = append(p.data, freqEscape)
		p.data = binary.AppendUvarint(p.data, uint64(f))
	}
	p.last = d
	p.n++
}

// postingIter walks a plist: for it := p.iter(); it.next(); { it.d, it.f }.
type postingIter struct {
	data []byte
	d    int32
	f    uint16
}

func (p *plist) iter() postingIter { return postingIter{data: p.data} }

func (it *postingIter) next() bool {
	if len(it.data) == 0 {
		return false
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

// clip gives the list its exact capacity.
func (p *plist) clip() {
	if cap(p.data) > len(p.data) {
		p.data = append([]byte(nil), p.data...)
	}
}

// renumber keeps the postings whose doc renum maps to a number ≥ 0, under
// that number (renum keeps the order of the docs it keeps).
func (p *plist) renumber(renum []int32) {
	var q plist
	for it := p.iter(); it.next(); {
		if nd := renum[it.d]; nd >= 0 {
			q.add(nd, it.f)
		}
	}
	q.clip()
	*p = q
}
