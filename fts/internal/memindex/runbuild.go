package memindex

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unsafe"
)

// A runBuilder makes a copy's frozen vocab (vocab.go) from docs added in
// ascending order, holding only a run of them in memory, as search engines
// build an inverted index: the postings of a run of docs are gathered by
// token, written out sorted to an unnamed file, and when every doc is in,
// the runs are merged token by token into the frozen arrays, the postings
// streamed into a second file that is then mapped (spill.go).
//
// Filling a vocab directly kept a growing tail of postings for each of its
// tokens and a map of every token until the end: building the copy of
// 100,000 generated notes (1.1 million tokens, 58 million postings) peaked
// at most of a gigabyte. The result is the same vocab, byte for byte
// (TestRunBuilderMakesTheFrozenVocab); a run that cannot be written (no
// room in the index's folder) fails the builder and its caller builds the
// copy the old way.
type runBuilder struct {
	dir   string
	f     *os.File
	w     *bufio.Writer
	spans []runSpan
	off   int64
	cur   map[string]*runList // the run being gathered
	order []*runList
	held  int // postings in cur
	err   error
}

type runSpan struct{ off, n int64 }

type runList struct {
	t    string
	b    []byte // packed postings, the first one's gap from doc 0
	last int32
	n    int32
}

// runPostings is how many postings a run gathers before it is written:
// about 2 MB of packed postings and a map of the run's tokens (4 times
// as many cost the 10,000-note cold index ~20 MB more at its peak).
var runPostings = 1 << 20

func newRunBuilder(dir string) (*runBuilder, error) {
	if dir == "" {
		return nil, errors.New("no folder for the runs")
	}
	f, err := unnamedFile(dir, "runs-*.tmp")
	if err != nil {
		return nil, err
	}
	return &runBuilder{dir: dir, f: f, w: bufio.NewWriterSize(f, 1<<20), cur: map[string]*runList{}}, nil
}

// add appends doc d with frequency f to t's postings; d is at least every
// doc added before.
func (rb *runBuilder) add(t string, d int32, f uint16) {
	l := rb.cur[t]
	if l == nil {
		l = &runList{t: strings.Clone(t)}
		rb.cur[l.t] = l
		rb.order = append(rb.order, l)
	}
	l.b = appendPosting(l.b, l.last, d, f)
	l.last = d
	l.n++
	if rb.held++; rb.held >= runPostings {
		rb.flush()
	}
}

// flush writes the run gathered so far, its tokens in order: for each, the
// token, its postings' count, its last doc and the packed postings.
func (rb *runBuilder) flush() {
	if len(rb.order) == 0 || rb.err != nil {
		return
	}
	sort.Slice(rb.order, func(a, b int) bool { return rb.order[a].t < rb.order[b].t })
	start := rb.off
	var hdr [4 * binary.MaxVarintLen64]byte
	for _, l := range rb.order {
		h := binary.AppendUvarint(hdr[:0], uint64(len(l.t)))
		h = binary.AppendUvarint(h, uint64(l.n))
		h = binary.AppendUvarint(h, uint64(l.last))
		h = binary.AppendUvarint(h, uint64(len(l.b)))
		for _, p := range [][]byte{h, []byte(l.t), l.b} {
			n, err := rb.w.Write(p)
			rb.off += int64(n)
			if err != nil {
				rb.err = err
				return
			}
		}
	}
	rb.spans = append(rb.spans, runSpan{start, rb.off - start})
	rb.cur, rb.order, rb.held = map[string]*runList{}, rb.order[:0], 0
}

func (rb *runBuilder) close() {
	if rb.f != nil {
		rb.f.Close()
		rb.f = nil
	}
}

// runReader reads one run's tokens in order.
type runReader struct {
	r    *bufio.Reader
	t    string
	n    int32
	last int32
	b    []byte
	run  int
}

func (rr *runReader) next() (bool, error) {
	tl, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		return false, nil
	}
	var n, last, bl uint64
	if err == nil {
		n, err = binary.ReadUvarint(rr.r)
	}
	if err == nil {
		last, err = binary.ReadUvarint(rr.r)
	}
	if err == nil {
		bl, err = binary.ReadUvarint(rr.r)
	}
	if err != nil {
		return false, fmt.Errorf("a run of the copy's build is damaged: %w", err)
	}
	buf := make([]byte, int(tl)+int(bl))
	if _, err := io.ReadFull(rr.r, buf); err != nil {
		return false, fmt.Errorf("a run of the copy's build is damaged: %w", err)
	}
	rr.t, rr.n, rr.last, rr.b = string(buf[:tl]), int32(n), int32(last), buf[tl:]
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(a, b int) bool {
	if h[a].t != h[b].t {
		return h[a].t < h[b].t
	}
	return h[a].run < h[b].run // the earlier run holds the earlier docs
}
func (h runHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// finish merges the runs into a frozen vocab. Its postings, tokens' ends and
// text are mapped from an unnamed file in the builder's folder.
func (rb *runBuilder) finish() (vocab, error) {
	defer rb.close()
	rb.flush()
	if rb.err == nil {
		rb.err = rb.w.Flush()
	}
	if rb.err != nil {
		return vocab{}, rb.err
	}
	h := make(runHeap, 0, len(rb.spans))
	for i, s := range rb.spans {
		rr := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(rb.f, s.off, s.n), 64<<10), run: i}
		ok, err := rr.next()
		if err != nil {
			return vocab{}, err
		}
		if ok {
			h = append(h, rr)
		}
	}
	heap.Init(&h)
	out, err := unnamedFile(rb.dir, "copy-*.tmp")
	if err != nil {
		return vocab{}, err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	var text bytes.Buffer
	var ends []uint32
	var lists []plist
	var arena int64
	var first []byte
	write := func(b []byte) error {
		_, err := w.Write(b)
		arena += int64(len(b))
		return err
	}
	for len(h) > 0 {
		t := h[0].t
		p := plist{off: uint32(arena)}
		for len(h) > 0 && h[0].t == t {
			rr := h[0]
			b := rr.b
			if p.n > 0 { // the first posting's gap was from doc 0: from the list's last doc now
				it := postingIter{data: b}
				it.next()
				first = appendPosting(first[:0], p.last, it.d, it.f)
				if err := write(first); err != nil {
					return vocab{}, err
				}
				b = it.data
			}
			if err := write(b); err != nil {
				return vocab{}, err
			}
			p.n += rr.n
			p.last = rr.last
			ok, err := rr.next()
			if err != nil {
				return vocab{}, err
			}
			if ok {
				heap.Fix(&h, 0)
			} else {
				heap.Pop(&h)
			}
		}
		if arena > 1<<32-1 {
			return vocab{}, errors.New("the copy's postings pass 4 GiB")
		}
		p.end = uint32(arena)
		text.WriteString(t)
		ends = append(ends, uint32(text.Len()))
		lists = append(lists, p)
	}
	// The tokens' ends (4-aligned) and text follow the postings in the file.
	pad := int(-arena & 3)
	if err := write(make([]byte, pad)); err != nil {
		return vocab{}, err
	}
	endsAt := arena
	if err := write(asBytes(ends)); err != nil {
		return vocab{}, err
	}
	textAt := arena
	if err := write(text.Bytes()); err != nil {
		return vocab{}, err
	}
	if err := w.Flush(); err != nil {
		return vocab{}, err
	}
	v := vocab{lists: lists}
	if arena == 0 {
		return v, nil
	}
	m, err := mapFile(out, int(arena))
	if err != nil {
		return vocab{}, err
	}
	v.mapped = m
	v.arena = m.b[: endsAt-int64(pad) : endsAt-int64(pad)]
	if len(ends) > 0 {
		v.ends = fromBytes[uint32](m.b[endsAt:], len(ends))
		v.text = unsafe.String(&m.b[textAt], text.Len())
	}
	return v, nil
}
