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

func TestWatch_IncrementalFreshness(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "sub/b.md": "# B\n\nbravo\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := tv.Ix.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	if tv.topPath("alpha") != "a.md" {
		t.Fatal("first refresh (a full walk) missed a.md")
	}
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

// TestWatch_DeletedFileWithDecomposedName: a note whose file name is in
// decomposed Unicode (NFD, as macOS writes names and git can carry them
// to other systems) is indexed under its composed (NFC) path; when the
// watcher sees it deleted, the deletion must reach the index. It did not:
// the removal check looked the index's NFC path up among the event's
// NFD names.
func TestWatch_DeletedFileWithDecomposedName(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := tv.Ix.Watch(ctx); err != nil {
		t.Fatal(err)
	}
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
