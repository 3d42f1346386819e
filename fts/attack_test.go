package fts

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/testvault"
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

// One project's Drafts cannot push published memory out of the vector
// stage of another project, or of the published view the hooks read: the
// first pass took the nearest vectors of every row, every project's Drafts
// among them, and only then kept what the view sees, so sixty Draft notes
// near a question in project beta left nothing published in alpha's
// nearest. The vector stage finds the nearest units the view sees, in
// memory and in SQL alike.
func TestAttack_DraftsCannotPushPublishedMemoryOutOfTheVectorStage(t *testing.T) {
	files := map[string]string{
		"decisions/release.md": "# Shipping a version\n\nTag the build and deploy it; watch the error rate for an hour after.\n",
	}
	for i := range 30 {
		files[fmt.Sprintf("notes/other-%d.md", i)] = fmt.Sprintf("# Other %d\n\nThe office plants are watered on Fridays, case %d.\n", i, i)
	}
	tv := newTestVault(t, files)
	ctx := context.Background()
	if err := tv.Ix.Vectors().Use(ctx, &embed.HashEmbedder{Dims: 64}); err != nil {
		t.Fatal(err)
	}
	const q = "Release checklist: tag the build, deploy it, then watch the error rate"
	var drafts []OverlayFile
	for i := range 60 {
		drafts = append(drafts, OverlayFile{Path: fmt.Sprintf("scratch/s%d.md", i), Data: []byte(fmt.Sprintf(
			"Release checklist: tag the build, deploy it, then watch the error rate w%d\n", i))})
	}
	tv.Ix.UseOverlay(testvault.Drafts{{ID: "d1", Project: "beta", Head: "h1", Files: drafts}})
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	vs, err := tv.Ix.Vectors().Embedder().Embed(ctx, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	found := func(view string) bool {
		hits, err := tv.Ix.Lookups().Nearest(ctx, vs[0], view, 5)
		if err != nil {
			t.Fatal(err)
		}
		units, err := tv.Ix.Lookups().Units(ctx, uids(hits))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if u.Path == "decisions/release.md" {
				return true
			}
		}
		return false
	}
	// Past sqlite-vec's largest first pass, the SQL path reads every vector
	// the view sees.
	defer func(n int) { knnMax = n }(knnMax)
	knnMax = 20
	for _, view := range []string{"alpha", PublishedView("alpha")} {
		if !found(view) {
			t.Errorf("past the largest first pass, view %q: the published release checklist is not among the nearest", view)
		}
	}
	knnMax = 4096
	for _, inMemory := range []bool{false, true} {
		if inMemory {
			if err := tv.Ix.Resident().Keep(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, view := range []string{"alpha", PublishedView("alpha"), PublishedView("beta"), ""} {
			if !found(view) {
				t.Errorf("in memory %v, view %q: the published release checklist is not among the nearest", inMemory, view)
			}
		}
	}
}

func uids(hs []Neighbor) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.UID
	}
	return out
}
