package fts

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/internal/testvault"
)

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: the cold index's copy has %d, a build %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s differ:\n  cold copy: %.300s\n  built:     %.300s", what, got[i], want[i])
		}
	}
}

// A cold index saves the copy of the postings it counted from the tokens it
// wrote to FTS5, and that copy is the one a build from the index makes:
// the same docs, keys, resources and lengths, the same postings, embeds
// (counted after the first pass) and another project's notes included. The
// first server then maps it and ranks exactly as FTS5 does.
func TestColdCopy_IsTheCopyABuildMakes(t *testing.T) {
	t.Parallel()
	files := testvault.ReadFixture(t, "../testdata/demo-vault")
	for p, s := range testvault.ReadFixture(t, "../testdata/cjk") {
		files["cjk/"+p] = s
	}
	files["embeds/host.md"] = "# Host\n\nIntro text.\n\n## Shown\n\n![[embeds/guest#Part]]\n"
	files["embeds/guest.md"] = "# Guest\n\n## Part\n\nthe quokka wanders through 检索 fields\n"
	tv := newTestVault(t, files)
	if _, err := synth.GenerateVault(tv.Root, 300, 3); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		tv.Write(fmt.Sprintf("projects/alpha/note-%d.md", i), fmt.Sprintf("# Alpha %d\n\nrelease deploy 检索 retry queue %d\n", i, i))
	}
	ctx := context.Background()
	st, err := tv.Ix.Refresh(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added < coldCopyMin {
		t.Fatalf("the fixture indexed %d files, fewer than a cold copy needs (%d)", st.Added, coldCopyMin)
	}
	saved, err := tv.Ix.loadCopy(ctx)
	if err != nil {
		t.Fatalf("the cold index saved no copy that loads: %v", err)
	}
	built, err := tv.Ix.buildMem(ctx)
	if err != nil || built == nil {
		t.Fatalf("build: %v", err)
	}
	if saved.lastSeq != built.lastSeq {
		t.Errorf("the saved copy reflects unit_log up to %d, the index holds %d", saved.lastSeq, built.lastSeq)
	}
	gotDocs, gotPost := saved.Dump()
	wantDocs, wantPost := built.Dump()
	sameLines(t, "docs", gotDocs, wantDocs)
	sameLines(t, "postings", gotPost, wantPost)
	if saved.Length() != built.Length() || saved.Live() != built.Live() {
		t.Errorf("statistics: cold copy %d units %d tokens, built %d units %d tokens", saved.Live(), saved.Length(), built.Live(), built.Length())
	}
	// The embedded text is in both: the guest's words find the host.
	if !strings.Contains(strings.Join(gotPost, "\n"), "quokka ") {
		t.Error("the copy holds no postings of the embedded word")
	}

	next := another(t, tv)
	if !next.Ix.memFromCopy {
		t.Fatal("the first server built its copy instead of mapping the cold index's")
	}
	compareScorers(t, next, []string{"", "alpha"})
}

// A cold index whose log is written by someone else between its batches
// (here another process indexes a note of the first batch again, as it was
// edited, and the rest of the vault) saves no copy of its own counting,
// though it would hold as many units as the index: the next server builds
// one, which ranks as FTS5 does and finds the edit.
func TestColdCopy_AbandonedWhenAnotherWriterCameBetween(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha release\n"})
	if _, err := synth.GenerateVault(tv.Root, batchSize+300, 5); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	batches := 0
	progress := func(done, total int) {
		if batches++; batches == 1 {
			tv.Write("a.md", "# A\n\nrewritten while the cold index ran\n")
			if _, err := other.Refresh(ctx, nil); err != nil {
				t.Errorf("the other process's refresh: %v", err)
			}
		}
	}
	if _, err := tv.Ix.Refresh(ctx, progress); err != nil {
		t.Fatal(err)
	}
	if batches < 2 {
		t.Fatalf("the cold index wrote %d batches; the test needs two", batches)
	}
	if _, err := os.Stat(memindex.Path(tv.V.DataDir())); err == nil {
		t.Fatal("a copy was saved though another process wrote between the cold index's batches")
	}
	next := another(t, tv)
	if next.Ix.memFromCopy {
		t.Fatal("the server mapped a copy")
	}
	compareScorersSmallAny(t, next)
	if got := unitsFound(t, next, "rewritten while the cold index ran", ""); !got["a.md#A"] {
		t.Errorf("the other process's note: found %v", got)
	}
}
