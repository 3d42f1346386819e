package fts

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// TestMain doubles as the process the crash test kills while it saves its
// copy (LORE_COPY_SAVER names the vault).
func TestMain(m *testing.M) {
	if dir := os.Getenv("LORE_COPY_SAVER"); dir != "" {
		os.Exit(copySaver(dir))
	}
	if dir := os.Getenv("LORE_COLD_INDEXER"); dir != "" {
		os.Exit(coldIndexer(dir))
	}
	os.Exit(m.Run())
}

// openChild opens the index of the vault in dir for a child process of
// the tests, saying on stderr why it could not.
func openChild(ctx context.Context, dir string) (*Index, bool) {
	v, err := vault.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return nil, false
	}
	ix, err := Open(ctx, v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return nil, false
	}
	return ix, true
}

// startChild starts this test binary as the child process env names (see
// TestMain) on the vault at root, and returns it with its output's lines.
func startChild(t *testing.T, env, root string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), env+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// copySaver builds the vault's copy and saves it again and again, saying
// "saving" before each save, until it is killed.
func copySaver(dir string) int {
	ctx := context.Background()
	ix, ok := openChild(ctx, dir)
	if !ok {
		return 1
	}
	m, err := ix.buildMem(ctx)
	if err != nil || m == nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		return 1
	}
	for {
		fmt.Println("saving")
		ix.saveMem(ctx, m)
	}
}

// coldIndexer indexes the vault (a cold index, when it has none), saying
// "batch" after each batch it wrote and "done" at the end.
func coldIndexer(dir string) int {
	ctx := context.Background()
	ix, ok := openChild(ctx, dir)
	if !ok {
		return 1
	}
	beforeColdSave = func() { fmt.Println("saving") }
	if _, err := ix.Refresh(ctx, func(done, total int) { fmt.Println("batch") }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// A cold index killed anywhere — while it writes its batches, merges its
// copy's runs or saves the copy — leaves no copy, or a whole one that is
// this index's: the next server maps it or builds its own, and ranks as
// FTS5 does. Each run starts from no index at all.
func TestSavedCopy_AKilledColdIndexLeavesNoWrongCopy(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha release\n"})
	if _, err := synth.GenerateVault(tv.Root, batchSize+500, 9); err != nil {
		t.Fatal(err)
	}
	tv.Ix.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(2))
	saved, killed := 0, 0
	for run := 0; run < 8; run++ {
		if err := os.RemoveAll(tv.V.DataDir()); err != nil {
			t.Fatal(err)
		}
		cmd, lines := startChild(t, "LORE_COLD_INDEXER", tv.Root)
		// Every fourth run ends on its own (its copy must be whole and
		// used); the others are killed among the batches, as the save
		// begins, or a little into it.
		wait := map[int]string{0: "done", 1: "batch", 2: "saving", 3: "saving"}[run%4]
		times := 1
		if wait == "batch" {
			times += rng.Intn(2) // after the first batch or the second
		}
		for lines.Scan() {
			if l := lines.Text(); l == "done" || l == wait && times == 1 {
				break
			} else if l == wait {
				times--
			}
		}
		switch run % 4 {
		case 0:
			for lines.Scan() { // to its end
			}
		case 3:
			time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond)
		}
		cmd.Process.Kill()
		if cmd.Wait() != nil {
			killed++ // it had not ended
		}
		ix, err := Open(ctx, tv.V)
		if err != nil {
			t.Fatalf("run %d: the index a killed cold index left does not open: %v", run, err)
		}
		next := &testVault{&testvault.Vault[*Index]{T: t, Root: tv.Root, V: tv.V, Ix: ix}}
		if _, err := os.Stat(memindex.Path(tv.V.DataDir())); err == nil {
			saved++
			if _, err := ix.loadCopy(ctx); err != nil {
				t.Fatalf("run %d: the copy a killed cold index left is not whole: %v", run, err)
			}
		}
		if err := ix.Resident().Keep(ctx); err != nil {
			t.Fatal(err)
		}
		if run%4 == 0 && !ix.memFromCopy {
			t.Errorf("run %d: the cold index ended, yet the server built its copy instead of mapping the saved one", run)
		}
		compareScorersSmallAny(t, next)
		ix.Close()
		if named, _ := filepath.Glob(filepath.Join(tv.V.DataDir(), "*.tmp")); len(named) > 0 {
			t.Logf("run %d: temporary files left with a name: %v", run, named)
		}
	}
	t.Logf("%d of 8 cold indexes killed before they ended; a copy was found after %d", killed, saved)
	if killed < 2 { // six are meant to be; one killed a little into its save may have ended
		t.Errorf("only %d cold indexes were killed before they ended", killed)
	}
	if saved < 2 {
		t.Errorf("a copy was found after %d runs; the two that ended on their own each save one", saved)
	}
}

// copyVault is a vault of the demo notes, 300 generated ones and two
// projects' notes, its copy kept in memory (and so saved).
func copyVault(t *testing.T) *testVault {
	t.Helper()
	tv := newTestVault(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	if _, err := synth.GenerateVault(tv.Root, 300, 3); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		tv.Write(fmt.Sprintf("projects/alpha/note-%d.md", i), fmt.Sprintf("# Alpha %d\n\nrelease deploy 检索 retry queue %d\n", i, i))
		tv.Write(fmt.Sprintf("projects/beta/note-%d.md", i), fmt.Sprintf("# Beta %d\n\nrelease rollback 并发 timeout cache %d\n", i, i))
	}
	return tv
}

// another opens the same vault's index as another process would, and keeps
// its copy in memory.
func another(t *testing.T, tv *testVault) *testVault {
	t.Helper()
	ctx := context.Background()
	ix, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	return &testVault{&testvault.Vault[*Index]{T: t, Root: tv.Root, V: tv.V, Ix: ix}}
}

// A new process maps the copy an earlier one saved instead of building it,
// applies what unit_log holds since (edits, a deletion, a rename, a
// Draft), and then ranks exactly as FTS5 does.
func TestSavedCopy_IsMappedAndFollowsTheLog(t *testing.T) {
	t.Parallel()
	tv := copyVault(t)
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if !tv.Ix.memFromCopy { // the cold index saved it (coldcopy.go)
		t.Fatal("the first process built its copy instead of mapping the cold index's")
	}
	if _, err := os.Stat(memindex.Path(tv.V.DataDir())); err != nil {
		t.Fatalf("no copy saved: %v", err)
	}
	editGenerated(t, tv)
	tv.Ix.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []OverlayFile{
		{Path: "projects/alpha/draft-new.md", Data: []byte("# Draft new\n\nrollback retry timeout cache\n")},
	}}})
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	next := another(t, tv)
	if !next.Ix.memFromCopy {
		t.Fatal("the next process built its copy instead of mapping the saved one")
	}
	compareScorers(t, next, []string{"", "alpha", "beta"})
}

// A copy that is not this index's as it is now is never used: damaged
// (one byte changed), cut short, another vault's, or older than what
// unit_log still holds. The process builds its copy instead, ranks as
// FTS5 does, and saves a good copy for the next one.
func TestSavedCopy_NotUsedUnlessItIsThisIndexs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		spoil func(t *testing.T, tv *testVault, path string)
	}{
		{"a byte changed", func(t *testing.T, tv *testVault, path string) {
			data, _ := os.ReadFile(path)
			data[len(data)/2] ^= 0x40
			os.WriteFile(path, data, 0o644)
		}},
		{"cut short", func(t *testing.T, tv *testVault, path string) {
			st, _ := os.Stat(path)
			os.Truncate(path, st.Size()*2/3)
		}},
		{"a count in its header changed", func(t *testing.T, tv *testVault, path string) {
			data, _ := os.ReadFile(path)
			data[memindex.HeaderAt+8+64+8*2] ^= 1 // NTokens: what BM25's average length is made of
			os.WriteFile(path, data, 0o644)
		}},
		{"a count in its header larger than the file", func(t *testing.T, tv *testVault, path string) {
			data, _ := os.ReadFile(path)
			binary.LittleEndian.PutUint64(data[memindex.HeaderAt+8+64+8*5:], 1<<40) // Docs
			os.WriteFile(path, data, 0o644)
		}},
		{"another vault's", func(t *testing.T, tv *testVault, path string) {
			other := newTestVault(t, map[string]string{"x.md": "# X\n\nrelease other vault\n"})
			if err := other.Ix.Resident().Keep(context.Background()); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(memindex.Path(other.V.DataDir()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, data, 0o644)
		}},
		{"behind the trimmed log", func(t *testing.T, tv *testVault, path string) {
			tv.Write("c.md", "# C\n\ncharlie release\n")
			ctx := context.Background()
			if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := tv.Ix.db.ExecContext(ctx, "DELETE FROM unit_log"); err != nil {
				t.Fatal(err)
			}
			if _, err := tv.Ix.db.ExecContext(ctx, "INSERT INTO unit_log(uid, added) VALUES (-1, 0)"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tv := copyVault(t)
			ctx := context.Background()
			if err := tv.Ix.Resident().Keep(ctx); err != nil {
				t.Fatal(err)
			}
			path := memindex.Path(tv.V.DataDir())
			c.spoil(t, tv, path)
			next := another(t, tv)
			if next.Ix.memFromCopy {
				t.Fatal("the spoiled copy was used")
			}
			compareScorers(t, next, []string{"", "alpha"})
			third := another(t, tv)
			if !third.Ix.memFromCopy {
				t.Error("the process that built its copy saved none the next one could use")
			}
		})
	}
}

// A process killed while it saves its copy leaves the old copy or the new
// one, whole, never a part: after each kill the next process either maps a
// copy that ranks as FTS5 does or builds one.
func TestSavedCopy_AKilledSaveLeavesAWholeCopy(t *testing.T) {
	tv := copyVault(t)
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	mapped := 0
	for run := 0; run < 8; run++ {
		cmd, lines := startChild(t, "LORE_COPY_SAVER", tv.Root)
		for saves := 1 + rng.Intn(3); saves > 0 && lines.Scan(); saves-- {
		}
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		tmps, _ := filepath.Glob(filepath.Join(tv.V.DataDir(), memindex.FileName+".*.tmp"))
		if run == 0 {
			t.Logf("after the first kill: %d temporary files", len(tmps))
		}
		if _, err := os.Stat(memindex.Path(tv.V.DataDir())); err == nil {
			if _, err := tv.Ix.loadCopy(ctx); err != nil {
				t.Fatalf("run %d: the copy a killed save left is not whole: %v", run, err)
			}
		}
		next := another(t, tv)
		if next.Ix.memFromCopy {
			mapped++
		}
		compareScorersSmallAny(t, next)
		tv.Write(fmt.Sprintf("runs/r%d.md", run), fmt.Sprintf("# Run %d\n\nrelease run %d\n", run, run))
		if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if mapped == 0 {
		t.Error("no process after a kill mapped a saved copy: the test never reached a finished save")
	}
}

// compareScorersSmallAny compares the two engines on a few queries.
func compareScorersSmallAny(t *testing.T, tv *testVault) {
	t.Helper()
	ctx := context.Background()
	m, err := tv.Ix.memFor(ctx)
	if err != nil || m == nil {
		t.Fatalf("in-memory postings: %v, %v", m, err)
	}
	for _, q := range []string{"release", "deploy rollback", "检索", "retry timeout queue"} {
		ts := tokenize.QueryTerms(tokenize.CutQuery(q))
		want, err := lexical(sqlLexical{tv.Ix}).bm25(ctx, ts, "", 25)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lexical(memLexical{tv.Ix, m}).bm25(ctx, ts, "", 25)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%q: in memory %d hits, FTS5 %d", q, len(got), len(want))
		}
		for i := range want {
			if got[i].UID != want[i].UID || got[i].Score != want[i].Score {
				t.Fatalf("%q, hit %d: in memory uid %d score %v; FTS5 uid %d score %v", q, i, got[i].UID, got[i].Score, want[i].UID, want[i].Score)
			}
		}
	}
}

// A server that builds its copy while a note no longer holds its indexed
// units' text (edited to the same size, its old time put back, so no
// freshness check sees it) saves no copy lacking that text: it marks the
// note for re-indexing, and after the next refresh the copy ranks the new
// text as FTS5 does.
func TestSavedCopy_NoneSavedWhileANoteChangedBehindTheIndex(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"a.md": "# Alpha\n\nthe walrus sleeps here\n",
		"b.md": "# Beta\n\nthe otter swims there\n",
	})
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	editBehindTheIndex(t, tv, "a.md", "walrus sleeps", "badger digs!!")
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(memindex.Path(tv.V.DataDir())); err == nil {
		t.Error("a copy was saved that lacks a.md's text")
	}
	got := unitsFound(t, tv, "badger digs", "")
	if !got["a.md#Alpha"] {
		t.Errorf("after the re-index: found %v, want a.md#Alpha", got)
	}
}
