package mmap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A mapping reads the file's bytes, outlives the file's descriptor, and
// reads them again after its pages are dropped.
func TestRead_OutlivesTheFileAndSurvivesDroppedPages(t *testing.T) {
	want := bytes.Repeat([]byte("lore mapped page "), 2*os.Getpagesize()/17+100)
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(f, len(want))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatal("the mapping does not hold the file's bytes")
	}
	DropPages(b[1:]) // not page-aligned at its start: the whole pages inside
	DropPages(nil)
	if !bytes.Equal(b, want) {
		t.Fatal("dropped pages did not read back as the file's bytes")
	}
	if err := Unmap(b); err != nil {
		t.Fatal(err)
	}
}
