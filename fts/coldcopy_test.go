package fts

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/internal/testvault"
)

// dumpMem writes out everything a copy holds that a query can see: each
// live doc (uid, unit key, vector key, resource, length) and each token's
// postings as (uid, frequency), both in a fixed order.
func dumpMem(m *memIndex) (docs, postings []string) {
	for d := range m.docs {
		if m.lens[d] < 0 {
			continue
		}
		doc := m.docs[d]
		docs = append(docs, fmt.Sprintf("%d %s %x %+v %d", doc.uid, m.key(int32(d)), doc.emb, *doc.res, m.lens[d]))
	}
	sort.Strings(docs)
	list := func(t string, p *plist) {
		var ps []string
		for it := m.terms.iter(p); it.next(); {
			if m.lens[it.d] >= 0 {
				ps = append(ps, fmt.Sprintf("%d:%d", m.docs[it.d].uid, it.f))
			}
		}
		if len(ps) > 0 {
			sort.Strings(ps)
			postings = append(postings, t+" "+strings.Join(ps, " "))
		}
	}
	for i := range m.terms.ends {
		list(m.terms.token(i), &m.terms.lists[i])
	}
	for t, i := range m.terms.added {
		list(t, &m.terms.lists[i])
	}
	sort.Strings(postings)
	return docs, postings
}

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
	saved, err := loadCopy(ctx, tv.Ix)
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
	gotDocs, gotPost := dumpMem(saved)
	wantDocs, wantPost := dumpMem(built)
	sameLines(t, "docs", gotDocs, wantDocs)
	sameLines(t, "postings", gotPost, wantPost)
	if saved.nTokens != built.nTokens || saved.nLive != built.nLive {
		t.Errorf("statistics: cold copy %d units %d tokens, built %d units %d tokens", saved.nLive, saved.nTokens, built.nLive, built.nTokens)
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
	if _, err := os.Stat(copyPath(tv.V.DataDir())); err == nil {
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

// Postings gathered in runs and merged make the very vocab that adding
// them to a vocab and freezing it makes: the same tokens in the same
// order, the same lists, the same packed bytes. Runs are cut small so that
// tokens span many of them; frequencies include escaped ones.
func TestRunBuilderMakesTheFrozenVocab(t *testing.T) {
	defer func(n int) { runPostings = n }(runPostings)
	runPostings = 7
	rnd := rand.New(rand.NewSource(3))
	toks := []string{"a", "b", "检索", "release", "zeta", "mid", "z", "é"}
	for i := 0; i < 300; i++ {
		toks = append(toks, fmt.Sprintf("t%03d", rnd.Intn(500)))
	}
	var want vocab
	rb, err := newRunBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rb.close()
	for d := int32(0); d < 2000; d++ {
		seen := map[string]bool{}
		for k := rnd.Intn(12); k >= 0; k-- {
			tok := toks[rnd.Intn(len(toks))]
			if seen[tok] {
				continue
			}
			seen[tok] = true
			f := uint16(1 + rnd.Intn(4))
			if rnd.Intn(50) == 0 {
				f = uint16(200 + rnd.Intn(1000))
			}
			want.add(tok, d, f)
			rb.add(tok, d, f)
		}
		d += int32(rnd.Intn(3)) // gaps of more than one doc
	}
	want.freeze(nil, "")
	got, err := rb.finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.spans) < 100 {
		t.Fatalf("only %d runs: the test proves little", len(rb.spans))
	}
	if got.text != want.text {
		t.Fatal("the tokens' text differs")
	}
	if fmt.Sprint(got.ends) != fmt.Sprint(want.ends) || fmt.Sprint(got.lists) != fmt.Sprint(want.lists) {
		t.Fatal("the tokens' ends or lists differ")
	}
	if !bytes.Equal(got.arena, want.arena) {
		t.Fatalf("the packed postings differ (%d bytes against %d)", len(got.arena), len(want.arena))
	}
	if got.mapped == nil {
		t.Error("the merged vocab is not mapped from a file")
	}
}

// A run that cannot be written (here its file is closed under it, as a
// full disk would refuse it) fails the builder: finish answers an error,
// never a vocab missing the postings.
func TestRunBuilder_ARunNotWrittenIsAnError(t *testing.T) {
	defer func(n int) { runPostings = n }(runPostings)
	runPostings = 5
	rb, err := newRunBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rb.f.Close()
	for d := int32(0); d < 100; d++ {
		rb.add(fmt.Sprintf("t%d", d%7), d, 1)
	}
	if _, err := rb.finish(); err == nil {
		t.Fatal("finish answered a vocab though no run was written")
	}
}
