// Package mmap maps files into memory read-only: the one wrapper of the
// system calls for the two places lore maps a file (the in-memory index's
// frozen postings, package fts; the embedding model's packed weights,
// package embed).
package mmap

import (
	"os"
	"syscall"
	"unsafe"
)

// Read maps the first size bytes of f read-only and shared. The mapping
// outlives f: it lasts until Unmap, or the process's end. Writing to the
// returned bytes faults.
func Read(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// Unmap removes a mapping Read made; b must be the whole of it and is not
// to be touched after.
func Unmap(b []byte) error { return syscall.Munmap(b) }

// DropPages gives back the pages wholly inside b, which must be part of a
// read-only file mapping (never the heap's memory, which this would zero):
// the kernel reads them from the file again if they are touched.
func DropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	ps := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	s := (start + ps - 1) &^ (ps - 1)
	e := (start + uintptr(len(b))) &^ (ps - 1)
	if e <= s {
		return
	}
	syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), s-start)), e-s), syscall.MADV_DONTNEED)
}
