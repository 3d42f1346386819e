package fts

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// TestConnections_MappedOnlyForQueries checks that an index's connections
// read through SQLite's page cache unless a one-shot command that only
// queries asks for the mapping (a rebuild mapping the file held every page
// it touched in its resident memory: 345 → 495 MB on 10,000 notes), that
// those it then opens map the file, and that once the process keeps its
// copies in memory they no longer do.
func TestConnections_MappedOnlyForQueries(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nwalrus\n"})
	ctx := context.Background()
	mmapSize := func() int64 {
		t.Helper()
		c, err := tv.Ix.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var n int64
		if err := c.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := mmapSize(); n != 0 {
		t.Fatalf("a connection maps %d bytes before any command asked, want 0", n)
	}
	tv.Ix.Resident().Map(ctx)
	if n := mmapSize(); n != mmapBytes {
		t.Fatalf("a query command's connection maps %d bytes, want %d", n, mmapBytes)
	}
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mmapSize(); n != 0 {
		t.Fatalf("after KeepInMemory a connection maps %d bytes, want 0", n)
	}
	if hits := tv.search("walrus", vault.SearchOptions{}); len(hits) != 1 {
		t.Fatalf("walrus: %v", hits)
	}
}
