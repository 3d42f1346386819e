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
	if _, err := tv.ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A second index on the same file: another process.
	v2, err := vault.Open(tv.root)
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
			if _, err := tv.ix.Load(ctx, []string{id}, ""); vault.ErrorCode(err) == vault.CodeNotFound {
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

// Links written the way Obsidian writes them — the file's base name, any
// case, an alias — resolve, in both directions (issue: the contracts).
func TestLinks_ResolveAsObsidianDoes(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"adr/adr-012-redlock.md":   "---\nid: mem_adr12\ntitle: ADR 012 Redlock for payments\naliases: [分布式锁]\n---\n# ADR 012\n\nUse Redlock for the refund lock.\n",
		"notes/refunds.md":         "# Refunds\n\nSee [[adr-012-redlock]] for the lock.\n",
		"notes/webhooks.md":        "# Webhooks\n\nIdempotency relies on [[ADR-012-Redlock|the ADR]] and [[分布式锁]].\n",
		"other/adr-012-redlock.md": "# A second file with the same base name, deeper in no folder order\n",
		"notes/dangling.md":        "# Dangling\n\n[[no-such-note]]\n",
	})
	ctx := context.Background()
	hits, err := tv.ix.Recall(ctx, "Redlock refund lock", "lexical", "", 5)
	if err != nil {
		t.Fatal(err)
	}
	var adr *vault.RecallHit
	for i, h := range hits {
		if h.ResourceID == "mem_adr12" {
			adr = &hits[i]
		}
	}
	if adr == nil || adr.LinksIn != 2 {
		t.Fatalf("ADR-012: %+v; want links in from the two notes that link to it by base name and alias", adr)
	}
	// Ties: the same base name in two folders resolves to the shorter path.
	id, path, err := tv.ix.ResolveLink(ctx, "[[adr-012-redlock]]", "")
	if err != nil || id != "mem_adr12" || path != "adr/adr-012-redlock.md" {
		t.Fatalf("ResolveLink: %s %s %v", id, path, err)
	}
	for _, target := range []string{"mem_adr12", "adr/adr-012-redlock.md", "ADR/ADR-012-REDLOCK", "adr 012 redlock for payments", "分布式锁"} {
		if id, _, err := tv.ix.ResolveLink(ctx, target, ""); err != nil || id != "mem_adr12" {
			t.Errorf("ResolveLink(%q) = %s, %v", target, id, err)
		}
	}
	if _, _, err := tv.ix.ResolveLink(ctx, "no-such-note", ""); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("a name nothing answers to: %v", err)
	}
}
