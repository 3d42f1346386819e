package memindex

import (
	"path/filepath"
	"testing"
)

// TestSpill_UnwritableFolderKeepsTheHeapCopy checks that a freeze that
// cannot write its file keeps the frozen part in the heap, whole.
func TestSpill_UnwritableFolderKeepsTheHeapCopy(t *testing.T) {
	ends := []uint32{3, 7}
	text, arena := "catdogs", []byte{1, 2, 3, 4}
	m, e, tx, a, ok := spillFrozen(filepath.Join(t.TempDir(), "missing"), ends, text, arena)
	if ok || m != nil || len(e) != 2 || e[1] != 7 || tx != text || string(a) != string(arena) {
		t.Fatalf("spill into a missing folder: %v %v %q %v %v", m, e, tx, a, ok)
	}
	m, e, tx, a, ok = spillFrozen(t.TempDir(), ends, text, arena)
	if !ok || m == nil || len(e) != 2 || e[0] != 3 || e[1] != 7 || tx != text || string(a) != string(arena) {
		t.Fatalf("spill: %v %v %q %v %v", m, e, tx, a, ok)
	}
}
