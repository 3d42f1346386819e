package fts

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// eventually retries f until it holds or a second passes (fsnotify events are
// asynchronous).
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Errorf("%s: not seen within 2 s", what)
}

// watchedVault is a test vault of files, watched until the test ends, its
// first refresh (a full walk) done and checked: a.md, which files must hold
// with the word alpha, is found.
func watchedVault(t *testing.T, files map[string]string) *testVault {
	t.Helper()
	tv := newTestVault(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := tv.Ix.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	if tv.topPath("alpha") != "a.md" {
		t.Fatal("first refresh (a full walk) missed a.md")
	}
	return tv
}

func TestWatch_IncrementalFreshness(t *testing.T) {
	t.Parallel()
	tv := watchedVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "sub/b.md": "# B\n\nbravo\n"})
	tv.Write("a.md", "# A\n\nzebra\n")
	eventually(t, "edit", func() bool { return tv.topPath("zebra") == "a.md" })
	tv.Write("new/dir/c.md", "# C\n\nyak\n")
	eventually(t, "file in a new folder", func() bool { return tv.topPath("yak") == "new/dir/c.md" })
	os.Remove(filepath.Join(tv.Root, "sub", "b.md"))
	eventually(t, "deletion", func() bool { return tv.topPath("bravo") == "" })
	os.Rename(filepath.Join(tv.Root, "new"), filepath.Join(tv.Root, "moved"))
	eventually(t, "folder rename", func() bool { return tv.topPath("yak") == "moved/dir/c.md" })
	tv.Git("add", "-A")
	tv.Git("commit", "-qm", "x")
	tv.Git("rm", "-q", "a.md")
	eventually(t, "git rm", func() bool { return tv.topPath("zebra") == "" })
	// With nothing changed, the watched refresh reads nothing.
	tv.Ix.Refresh(context.Background(), nil)
	st, err := tv.Ix.Refresh(context.Background(), nil)
	if err != nil || !st.Unchanged {
		t.Errorf("idle refresh: %+v, %v", st, err)
	}
}

// TestWatch_EditsInARenamedFolderAreSeen: after a folder is renamed, an
// edit of a note in it, or in a folder under it, reaches the index at once.
// It did not, until the full walk a minute later: fsnotify kept the
// renamed folder's watch under its old name, then dropped it when the
// folder's own move event came, and reported the subfolder's events under
// the old path (watch.go, forget). The same mix-up could leave the
// incremental refresh a removal to find late, as
// TestWatch_IncrementalFreshness once saw in CI.
func TestWatch_EditsInARenamedFolderAreSeen(t *testing.T) {
	t.Parallel()
	tv := watchedVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	tv.Write("new/c.md", "# C\n\nyak\n")
	tv.Write("new/dir/d.md", "# D\n\nemu\n")
	eventually(t, "new folder", func() bool { return tv.topPath("yak") == "new/c.md" && tv.topPath("emu") == "new/dir/d.md" })
	rename(t, tv, "new", "moved")
	eventually(t, "folder rename", func() bool { return tv.topPath("yak") == "moved/c.md" && tv.topPath("emu") == "moved/dir/d.md" })
	tv.Write("moved/c.md", "# C\n\nkoala\n")
	eventually(t, "edit in the renamed folder", func() bool { return tv.topPath("koala") == "moved/c.md" })
	tv.Write("moved/dir/d.md", "# D\n\nwombat\n")
	eventually(t, "edit in a folder under it", func() bool { return tv.topPath("wombat") == "moved/dir/d.md" })
	tv.Write("moved/dir/e.md", "# E\n\nquokka\n")
	eventually(t, "new note in a folder under it", func() bool { return tv.topPath("quokka") == "moved/dir/e.md" })
}

// TestWatch_DeletedFileWithDecomposedName: a note whose file name is in
// decomposed Unicode (NFD, as macOS writes names and git can carry them
// to other systems) is indexed under its composed (NFC) path; when the
// watcher sees it deleted, the deletion must reach the index. It did not:
// the removal check looked the index's NFC path up among the event's
// NFD names.
func TestWatch_DeletedFileWithDecomposedName(t *testing.T) {
	t.Parallel()
	tv := watchedVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	name := "cafe\u0301.md" // "café.md", decomposed
	if err := os.WriteFile(filepath.Join(tv.Root, name), []byte("# Cafe\n\nwombat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "new note", func() bool { return tv.topPath("wombat") != "" })
	if p := tv.topPath("wombat"); p != "caf\u00e9.md" {
		t.Fatalf("indexed as %q, want the composed name %q", p, "caf\u00e9.md")
	}
	os.Remove(filepath.Join(tv.Root, name))
	eventually(t, "deletion", func() bool { return tv.topPath("wombat") == "" })
}

// TestWatch_FolderLifecycles: the watched index follows a folder through
// what Obsidian and a shell do to folders: moved to the trash (a
// dot-folder, not memory, whose edits stay out), a new folder under the old
// name, removed and made again, renamed twice, and a subfolder moved up.
// After each, an edit inside it is seen at once. Without forgetting a
// folder that went away (watch.go), the edits after the second rename and
// after the move up were not seen within 2 s.
func TestWatch_FolderLifecycles(t *testing.T) {
	t.Parallel()
	tv := watchedVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	tv.Write("proj/c.md", "# C\n\nyak\n")
	tv.Write("proj/sub/d.md", "# D\n\nemu\n")
	eventually(t, "new folder", func() bool { return tv.topPath("yak") == "proj/c.md" && tv.topPath("emu") == "proj/sub/d.md" })
	if err := os.MkdirAll(filepath.Join(tv.Root, ".trash"), 0o755); err != nil {
		t.Fatal(err)
	}
	rename(t, tv, "proj", ".trash/proj")
	eventually(t, "trashed", func() bool { return tv.topPath("yak") == "" && tv.topPath("emu") == "" })
	tv.Write(".trash/proj/sub/d.md", "# D\n\nkoala\n")
	tv.Write("proj/sub/x.md", "# X\n\nwombat\n")
	eventually(t, "a new folder of the old name", func() bool { return tv.topPath("wombat") == "proj/sub/x.md" })
	if p := tv.topPath("koala"); p != "" {
		t.Errorf("an edit in the trash was indexed as %q", p)
	}
	tv.Write("proj/sub/x.md", "# X\n\nquokka\n")
	eventually(t, "edit there", func() bool { return tv.topPath("quokka") == "proj/sub/x.md" })
	if err := os.RemoveAll(filepath.Join(tv.Root, "proj")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "removed", func() bool { return tv.topPath("quokka") == "" })
	tv.Write("proj/sub/y.md", "# Y\n\nibis\n")
	eventually(t, "recreated", func() bool { return tv.topPath("ibis") == "proj/sub/y.md" })
	tv.Write("proj/sub/y.md", "# Y\n\nheron\n")
	eventually(t, "edit in recreated", func() bool { return tv.topPath("heron") == "proj/sub/y.md" })
	rename(t, tv, "proj", "p2")
	eventually(t, "rename 1", func() bool { return tv.topPath("heron") == "p2/sub/y.md" })
	rename(t, tv, "p2", "p3")
	eventually(t, "rename 2", func() bool { return tv.topPath("heron") == "p3/sub/y.md" })
	tv.Write("p3/sub/y.md", "# Y\n\negret\n")
	eventually(t, "edit after two renames", func() bool { return tv.topPath("egret") == "p3/sub/y.md" })
	rename(t, tv, "p3/sub", "top")
	eventually(t, "subfolder moved up", func() bool { return tv.topPath("egret") == "top/y.md" })
	tv.Write("top/y.md", "# Y\n\nplover\n")
	eventually(t, "edit after move up", func() bool { return tv.topPath("plover") == "top/y.md" })
	if st, err := tv.Ix.Refresh(t.Context(), nil); err != nil || !st.Unchanged {
		t.Errorf("idle refresh: %+v, %v", st, err)
	}
}

// rename renames the vault's folder or file from to to (slash paths).
func rename(t *testing.T, tv *testVault, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(tv.Root, filepath.FromSlash(from)), filepath.Join(tv.Root, filepath.FromSlash(to))); err != nil {
		t.Fatal(err)
	}
}
