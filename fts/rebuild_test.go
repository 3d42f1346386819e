package fts

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/vault"
)

// TestRebuild_DoesNotGrowTheFullTextIndex rebuilds a 2,500-note vault three
// times (in batches of 1,000 notes: bulk refreshes, which defer FTS5's
// merging): the full-text index must stay the size a first index made. A
// rebuild writes every unit again over the old rows, and FTS5 keeps the old
// entries (and its deletion markers) in its segments until they are merged:
// without the merge after a rebuild, this vault's units_fts_data went from
// 8.2 to 33.8 MB in three rebuilds (100,000 generated notes': ~320 to 831
// MB).
func TestRebuild_DoesNotGrowTheFullTextIndex(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, nil)
	if _, err := synth.GenerateVault(tv.Root, 2500, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A merged index is the baseline: what a first index of the vault
	// holds once FTS5 has merged its segments.
	if err := tv.Ix.mergeFTS(ctx); err != nil {
		t.Fatal(err)
	}
	first := ftsBytes(t, tv.Ix)
	for i := 0; i < 3; i++ {
		if _, err := tv.Ix.Rebuild(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if after := ftsBytes(t, tv.Ix); after > first*11/10 {
		t.Errorf("units_fts_data holds %d bytes after three rebuilds, %d after the first index", after, first)
	}
	// The pages the rebuilds freed went back to the file system.
	var free, pages int
	tv.Ix.db.QueryRow("PRAGMA freelist_count").Scan(&free)
	tv.Ix.db.QueryRow("PRAGMA page_count").Scan(&pages)
	if free > pages/20 {
		t.Errorf("%d of the file's %d pages are free after the rebuilds", free, pages)
	}
	// And it still answers.
	if hits := tv.search("deploy", vault.SearchOptions{Limit: 10}); len(hits) == 0 {
		t.Error("no hit after the rebuilds")
	}
}

func ftsBytes(t *testing.T, ix *Index) int64 {
	t.Helper()
	var n int64
	if err := ix.db.QueryRow("SELECT coalesce(sum(length(block)), 0) FROM units_fts_data").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
