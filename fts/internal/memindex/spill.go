package memindex

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/lore-memory/lore/internal/mmap"
)

// The frozen part of the in-memory copy's vocab (its tokens' text, their
// ends and their packed postings) never changes until the next freeze, and
// a query reads only its own tokens' part of it. On 100,000 generated notes
// it is 170 of the copy's 320 MB of heap. A long-running process therefore
// writes it, at each freeze, to a file beside index.db, removes the file's
// name at once and maps it read-only: the pages a query touches are read
// from the page cache, and the kernel can take back those it has not needed
// lately, where the heap's pages stay until the process ends. The file has
// no name from the moment it is mapped, so nothing is left behind when the
// process stops, however it stops; its space is freed when the mapping
// goes (a cleanup unmaps it once no vocab refers to it).
//
// Readers reach the mapped bytes only through a vocab under the copy's
// lock (Index.mu), and a freeze, which replaces them, holds it for
// writing; a vocab that is dropped whole keeps its mapping until the
// collector finds the vocab unreachable.

// spilled is one mapping; its cleanup unmaps it.
type spilled struct{ b []byte }

// mapFile maps size bytes of f read-only; the mapping lasts until the
// returned value is unreachable (its cleanup unmaps it), whether or not f
// stays open.
func mapFile(f *os.File, size int) (*spilled, error) {
	b, err := mmap.Read(f, size)
	if err != nil {
		return nil, err
	}
	m := &spilled{b: b}
	runtime.AddCleanup(m, func(b []byte) { mmap.Unmap(b) }, b)
	return m, nil
}

// unnamedFile creates a file in dir and removes its name before anything
// is written to it: a process killed from then on leaves nothing behind,
// and the file's space is freed when the last mapping or descriptor goes.
// (A kill between the two leaves a named one, which removeStaleCopies
// takes away an hour later.)
func unnamedFile(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// spill writes parts to an unnamed file in dir and returns them read from
// its mapping, in order. On any error it returns ok false and the caller
// keeps its heap copies (a read-only or full disk costs memory, not
// correctness).
func spill(dir string, parts ...[]byte) (m *spilled, mapped [][]byte, ok bool) {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if dir == "" || size == 0 {
		return nil, nil, false
	}
	f, err := unnamedFile(dir, "copy-*.tmp")
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return nil, nil, false
		}
	}
	m, err = mapFile(f, size)
	if err != nil {
		return nil, nil, false
	}
	b := m.b
	off := 0
	for _, p := range parts {
		mapped = append(mapped, b[off:off+len(p):off+len(p)])
		off += len(p)
	}
	return m, mapped, true
}

// spillFrozen spills a vocab's frozen part: its tokens' ends (first, so
// the array is aligned in the mapping), their text and their postings.
func spillFrozen(dir string, ends []uint32, text string, arena []byte) (m *spilled, e []uint32, t string, a []byte, ok bool) {
	endBytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ends))), 4*len(ends))
	m, parts, ok := spill(dir, endBytes, unsafe.Slice(unsafe.StringData(text), len(text)), arena)
	if !ok {
		return nil, ends, text, arena, false
	}
	if len(ends) > 0 {
		e = unsafe.Slice((*uint32)(unsafe.Pointer(&parts[0][0])), len(ends))
	}
	if len(text) > 0 {
		t = unsafe.String(&parts[1][0], len(text))
	}
	return m, e, t, parts[2], true
}
