package memindex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"github.com/lore-memory/lore/internal/mmap"
)

// The in-memory copy of the postings is kept in a file beside index.db
// (postings.copy) so that a new long-running process maps it instead of
// reading and tokenizing every unit again: at 100,000 generated notes the
// build took 50 s on the development machine, and a person opening an agent
// window waited that long for full speed. The file holds the copy as a
// freeze leaves it (frozen tokens, their postings, unit keys, the docs and
// their resources), the index it was made from (index.db's stat_salt, its
// format) and the last unit_log entry it reflects. A process that finds it
// maps it, checks it whole (a CRC-32C over every byte),
// applies the unit_log entries written since, and checks that it then holds
// as many units as the index; anything else — no file, another index's,
// another format's, a torn or damaged one, a log trimmed past it, a count
// that does not match — and the copy is built from the index as before.
// The file is written whole under a temporary name, synced and renamed over
// the old one, so a crash leaves the old file or the new one, never a part;
// a temporary file left by a killed process is removed by a later save.
// See docs/decisions/in-memory-copies.md.

const (
	FileName    = "postings.copy" // in the index's folder
	copyMagic   = "lore postings copy\n"
	copyVersion = 1
)

// HeaderAt is where the header starts in the file: after the magic, at
// an offset that keeps it aligned.
const HeaderAt = (len(copyMagic) + 7) &^ 7

// copyHeader is the file's first bytes after the magic: what the copy was
// made from and the sizes of the arrays that follow, in order.
type copyHeader struct {
	Version                      uint32
	LittleEndian                 uint32
	Format, Salt                 [32]byte
	LastSeq                      int64
	NLive, NTokens, NDead, NPost int64
	Docs, Ends, Lists, Res       int64
	Text, Arena, Keys, ResBytes  int64
	CRC                          uint32
	_                            uint32
}

// copyDoc is a doc as the file keeps it: its resource by number.
type copyDoc struct {
	uid     int64
	emb     uint64
	res     int32
	nextEmb int32
	keyOff  uint32
	_       uint32
}

// Path is the saved copy's path in dir.
func Path(dir string) string { return filepath.Join(dir, FileName) }

func fixed32(s string) (b [32]byte) {
	copy(b[:], s)
	return b
}

func nativeLittle() uint32 {
	x := uint16(1)
	return uint32(*(*byte)(unsafe.Pointer(&x)))
}

// asBytes views a slice of fixed-size values as its bytes.
func asBytes[E any](s []E) []byte {
	if len(s) == 0 {
		return nil
	}
	var e E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(e)))
}

// fromBytes views b, which must be aligned for E, as n values of E.
func fromBytes[E any](b []byte, n int) []E {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// pad8 rounds n up to a multiple of 8, so every array starts aligned.
func pad8(n int) int { return (n + 7) &^ 7 }

// Origin is what a saved copy was made from: the index's format and salt
// (which tell one index file from another), and the last entry of the
// index's unit_log the copy reflects.
type Origin struct {
	Format, Salt string
	LastSeq      int64
}

// Save writes m, frozen, to dir's postings.copy, whole or not at all. The
// copy must be frozen (Freeze); Save read-locks it while it writes.
func (m *Index) Save(ctx context.Context, dir string, o Origin) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.terms.tails) > 0 || len(m.terms.added) > 0 || len(m.keys.tail) > 0 {
		return errors.New("the copy has unfrozen parts")
	}
	// The docs' resources, numbered.
	resIdx := map[*Res]int32{}
	var resBuf bytes.Buffer
	putStr := func(s string) {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(s)))
		resBuf.Write(n[:])
		resBuf.WriteString(s)
	}
	docs := make([]copyDoc, len(m.docs))
	for i, d := range m.docs {
		r, ok := resIdx[d.res]
		if !ok {
			r = int32(len(resIdx))
			resIdx[d.res] = r
			putStr(d.res.Path)
			putStr(d.res.Project)
			putStr(d.res.Draft)
			putStr(d.res.DProject)
		}
		docs[i] = copyDoc{uid: d.uid, emb: d.emb, res: r, nextEmb: d.nextEmb, keyOff: d.keyOff}
	}
	parts := [][]byte{asBytes(docs), asBytes(m.terms.ends), asBytes(m.terms.lists), asBytes(m.lens),
		unsafe.Slice(unsafe.StringData(m.terms.text), len(m.terms.text)), m.terms.arena, m.keys.frozen, resBuf.Bytes()}
	h := copyHeader{Version: copyVersion, LittleEndian: nativeLittle(), Format: fixed32(o.Format), Salt: fixed32(o.Salt),
		LastSeq: o.LastSeq, NLive: m.nLive, NTokens: m.nTokens, NDead: m.nDead, NPost: m.nPost,
		Docs: int64(len(docs)), Ends: int64(len(m.terms.ends)), Lists: int64(len(m.terms.lists)), Res: int64(len(resIdx)),
		Text: int64(len(m.terms.text)), Arena: int64(len(m.terms.arena)), Keys: int64(len(m.keys.frozen)), ResBytes: int64(resBuf.Len())}
	// Mapped parts (the frozen vocab and keys, spill.go) are read once, a
	// piece at a time, each piece summed, written and its pages given back:
	// reading 200 MB of a mapping otherwise counts all of it in the
	// process's resident memory. The header, with the sum, goes in last.
	mapped := [][]byte{nil, nil, nil, nil, nil, nil, nil, nil}
	if m.terms.mapped != nil {
		mapped[1], mapped[4], mapped[5] = parts[1], parts[4], parts[5]
	}
	if m.keys.mapped != nil {
		mapped[6] = parts[6]
	}
	removeStaleCopies(dir)
	f, err := os.CreateTemp(dir, FileName+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	hb := make([]byte, HeaderAt+int(unsafe.Sizeof(h)))
	if _, err := f.Write(hb); err != nil {
		return err
	}
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	crc.Write(asBytes([]copyHeader{h})) // CRC 0 while it is summed
	w := bufio.NewWriterSize(f, 1<<20)
	for i, p := range parts {
		for len(p) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			piece := p[:min(len(p), 8<<20)]
			crc.Write(piece)
			if _, err := w.Write(piece); err != nil {
				return err
			}
			if mapped[i] != nil {
				mmap.DropPages(piece)
			}
			p = p[len(piece):]
		}
		zeros := make([]byte, pad8(len(parts[i]))-len(parts[i]))
		crc.Write(zeros)
		if _, err := w.Write(zeros); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	h.CRC = crc.Sum32()
	copy(hb, copyMagic)
	copy(hb[HeaderAt:], asBytes([]copyHeader{h}))
	if _, err := f.WriteAt(hb, 0); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	f = nil
	if err := os.Rename(tmp, Path(dir)); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// removeStaleCopies removes temporary copies an hour old: a process killed
// while saving left them (a younger one may be another process's save),
// or killed in the instant between making a spill or run file (spill.go,
// runbuild.go) and taking its name away.
func removeStaleCopies(dir string) {
	var tmps []string
	for _, pat := range []string{FileName + ".*.tmp", "copy-*.tmp", "runs-*.tmp"} {
		more, _ := filepath.Glob(filepath.Join(dir, pat))
		tmps = append(tmps, more...)
	}
	for _, t := range tmps {
		if st, err := os.Stat(t); err == nil && time.Since(st.ModTime()) > time.Hour {
			os.Remove(t)
		}
	}
}

// Load maps dir's postings.copy and returns the copy it holds, with the
// unit_log entry it reflects, or an error saying why it cannot be used: a
// copy of another index than o's format and salt is not. The caller brings
// the copy up to date.
func Load(dir string, o Origin) (*Index, int64, error) {
	f, err := os.Open(Path(dir))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	var h copyHeader
	head := HeaderAt + int(unsafe.Sizeof(h))
	if st.Size() < int64(head) || st.Size() > 1<<40 {
		return nil, 0, errors.New("too short")
	}
	mapped, err := mapFile(f, int(st.Size()))
	if err != nil {
		return nil, 0, err
	}
	b := mapped.b
	if string(b[:len(copyMagic)]) != copyMagic {
		return nil, 0, errors.New("not a postings copy")
	}
	h = fromBytes[copyHeader](b[HeaderAt:], 1)[0]
	switch {
	case h.Version != copyVersion || h.LittleEndian != nativeLittle():
		return nil, 0, fmt.Errorf("version %d", h.Version)
	case h.Format != fixed32(o.Format):
		return nil, 0, errors.New("another index format's")
	case h.Salt != fixed32(o.Salt):
		return nil, 0, errors.New("another index's")
	}
	for _, n := range []int64{h.Docs, h.Ends, h.Lists, h.Res, h.Text, h.Arena, h.Keys, h.ResBytes} {
		if n < 0 || n > st.Size() { // before any of them is multiplied or allocated
			return nil, 0, errors.New("its header's counts do not fit the file")
		}
	}
	sizes := []int64{h.Docs * int64(unsafe.Sizeof(copyDoc{})), h.Ends * 4, h.Lists * int64(unsafe.Sizeof(plist{})), h.Docs * 4,
		h.Text, h.Arena, h.Keys, h.ResBytes}
	parts := make([][]byte, len(sizes))
	off := int64(head)
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	unsummed := h
	unsummed.CRC = 0
	crc.Write(asBytes([]copyHeader{unsummed}))
	for i, n := range sizes {
		if n < 0 || off+int64(pad8(int(n))) > int64(len(b)) {
			return nil, 0, errors.New("shorter than its header says")
		}
		parts[i] = b[off : off+n : off+n]
		crc.Write(b[off : off+int64(pad8(int(n)))])
		off += int64(pad8(int(n)))
	}
	if off != int64(len(b)) {
		return nil, 0, errors.New("longer than its header says")
	}
	if crc.Sum32() != h.CRC {
		return nil, 0, errors.New("damaged (its checksum does not match)")
	}
	// The check read every page; the process needs only those its queries
	// read, so the rest leave its resident set (they stay in the page cache).
	syscall.Madvise(b, syscall.MADV_DONTNEED)
	// The resources.
	rb := parts[7]
	getStr := func() (string, bool) {
		if len(rb) < 4 {
			return "", false
		}
		n := binary.LittleEndian.Uint32(rb)
		if uint64(len(rb)-4) < uint64(n) {
			return "", false
		}
		s := string(rb[4 : 4+n])
		rb = rb[4+n:]
		return s, true
	}
	res := make([]*Res, h.Res)
	for i := range res {
		r := &Res{}
		var ok [4]bool
		r.Path, ok[0] = getStr()
		r.Project, ok[1] = getStr()
		r.Draft, ok[2] = getStr()
		r.DProject, ok[3] = getStr()
		if ok != [4]bool{true, true, true, true} {
			return nil, 0, errors.New("damaged resources")
		}
		res[i] = r
	}
	m := New(int(h.Docs), dir)
	m.docs = make([]doc, h.Docs)
	for i, d := range fromBytes[copyDoc](parts[0], int(h.Docs)) {
		if d.res < 0 || int64(d.res) >= h.Res || d.nextEmb < -1 || int64(d.nextEmb) >= h.Docs || int64(d.keyOff) > h.Keys {
			return nil, 0, errors.New("damaged docs")
		}
		m.docs[i] = doc{uid: d.uid, emb: d.emb, res: res[d.res], nextEmb: d.nextEmb, keyOff: d.keyOff}
	}
	m.terms.ends = fromBytes[uint32](parts[1], int(h.Ends))
	m.terms.lists = append([]plist(nil), fromBytes[plist](parts[2], int(h.Lists))...)
	m.lens = append([]int32(nil), fromBytes[int32](parts[3], int(h.Docs))...)
	if len(parts[4]) > 0 {
		m.terms.text = unsafe.String(&parts[4][0], len(parts[4]))
	}
	if err := checkVocab(m.terms.ends, m.terms.lists, len(m.terms.text), len(parts[5])); err != nil {
		return nil, 0, err
	}
	m.terms.arena, m.terms.mapped = parts[5], mapped
	m.keys.frozen, m.keys.mapped = parts[6], mapped
	for i := range m.docs {
		if m.lens[i] >= 0 {
			m.byUID.set(int32(i))
		}
	}
	// byEmb's chains are the saved ones: each head is the last doc of its emb.
	for i := len(m.docs) - 1; i >= 0; i-- {
		if _, ok := m.byEmb.find(m.docs[i].emb); !ok {
			m.byEmb.set(int32(i))
		}
	}
	m.nLive, m.nTokens, m.nDead, m.nPost = h.NLive, h.NTokens, h.NDead, h.NPost
	return m, h.LastSeq, nil
}

// checkVocab checks that the saved tokens' ends and postings stay inside
// their arrays and in order, so that a damaged file that passed its
// checksum cannot send a read out of bounds.
func checkVocab(ends []uint32, lists []plist, text, arena int) error {
	if len(ends) != len(lists) {
		return errors.New("damaged vocabulary")
	}
	prev := uint32(0)
	for i, e := range ends {
		p := lists[i]
		if e < prev || int(e) > text || p.off > p.end || int(p.end) > arena || p.tail != 0 {
			return errors.New("damaged vocabulary")
		}
		prev = e
	}
	return nil
}
