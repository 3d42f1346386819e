package fts

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A rebuild in one process must never make an existing note missing for
// another: it once emptied the index first, and load answered "not in this
// project's memory" for notes that were there all along.
func TestAttack_RebuildNeverHidesANoteFromAnotherProcess(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 400; i++ {
		files[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("---\nid: mem_n%03d\n---\n# Note %d\n\nbody of note %d\n\n## More\n\ntext\n", i, i, i)
	}
	tv := newTestVault(t, files)
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A second index on the same file: another process.
	v2, err := vault.Open(tv.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	other, err := Open(ctx, v2)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 4; i++ {
			if _, err := other.Rebuild(ctx, nil); err != nil {
				t.Errorf("rebuild: %v", err)
			}
		}
		close(stop)
	}()
	missing, loads := 0, 0
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		for _, id := range []string{"mem_n000", "notes/n199.md", "mem_n399"} {
			loads++
			if _, err := tv.Ix.Load(ctx, []string{id}, ""); vault.ErrorCode(err) == vault.CodeNotFound {
				missing++
			} else if err != nil {
				t.Fatalf("load %s: %v", id, err)
			}
		}
	}
	wg.Wait()
	if missing > 0 {
		t.Fatalf("%d of %d loads during rebuilds answered not found", missing, loads)
	}
	if hits := tv.search("body of note 123", vault.SearchOptions{Limit: 3}); len(hits) == 0 || hits[0].Path != "notes/n123.md" {
		t.Fatalf("after the rebuilds the search finds %v", hits)
	}
}
