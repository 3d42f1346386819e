package fts

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lore-memory/lore/vault"
)

// reopen opens a second handle on tv's index, as a one-shot command does:
// no snapshot in memory.
func reopen(t *testing.T, tv *testVault) *Index {
	t.Helper()
	ix, err := Open(context.Background(), tv.V)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func refresh(t *testing.T, ix *Index) RefreshStats {
	t.Helper()
	st, err := ix.Refresh(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A one-shot command over an unchanged vault compares digests and never
// reads the snapshot of every row (27–33 ms of a 70 ms search on 10,000
// notes); a change makes it read the snapshot and index the change.
func TestFreshness_UnchangedVaultReadsNoSnapshot(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "b/c.md": "# C\n\ngamma\n"})
	refresh(t, tv.Ix)
	ix := reopen(t, tv)
	if st := refresh(t, ix); !st.Unchanged || st.Files != 2 {
		t.Errorf("unchanged vault: %+v, want Unchanged with 2 files", st)
	}
	if ix.snapshots != 0 {
		t.Errorf("an unchanged vault read %d snapshots, want 0 (the digests agree)", ix.snapshots)
	}
	tv.Write("d.md", "# D\n\ndelta\n")
	ix = reopen(t, tv)
	if st := refresh(t, ix); st.Added != 1 || ix.snapshots != 1 {
		t.Errorf("after an add: %+v and %d snapshots, want 1 added from 1 snapshot", st, ix.snapshots)
	}
}

// Every kind of change a person makes is still seen when the digest is
// the first look: a rename that keeps size and mtime, an edit to the same
// size, an mtime alone, a delete, an add, and a file that stops being a
// note.
func TestFreshness_DigestHidesNoChange(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"keep.md": "# Keep\n\nkept\n", "ren.md": "# Ren\n\nrenamed note\n", "edit.md": "# Edit\n\nversion one\n",
		"touch.md": "# Touch\n\ntouched\n", "del.md": "# Del\n\ndeleted\n", "link.md": "# Link\n\nbecomes a folder\n",
	})
	refresh(t, tv.Ix)
	full := func(p string) string { return filepath.Join(tv.Root, p) }
	steps := []struct {
		name   string
		change func()
		check  func(st RefreshStats) bool
	}{
		{"rename keeping size and mtime", func() {
			if err := os.Rename(full("ren.md"), full("moved.md")); err != nil {
				t.Fatal(err)
			}
		}, func(st RefreshStats) bool { return st.Added == 1 && st.Removed == 1 }},
		{"edit to the same size", func() {
			info, _ := os.Stat(full("edit.md"))
			tv.Write("edit.md", "# Edit\n\nversion two\n")
			os.Chtimes(full("edit.md"), info.ModTime(), info.ModTime().Add(time.Second))
		}, func(st RefreshStats) bool { return st.Updated == 1 }},
		{"mtime alone", func() {
			info, _ := os.Stat(full("touch.md"))
			os.Chtimes(full("touch.md"), info.ModTime(), info.ModTime().Add(2*time.Second))
		}, func(st RefreshStats) bool { return st.Touched == 1 && st.Updated == 0 }},
		{"delete", func() { os.Remove(full("del.md")) }, func(st RefreshStats) bool { return st.Removed == 1 }},
		{"add", func() { tv.Write("new/n.md", "# New\n\nnew note\n") }, func(st RefreshStats) bool { return st.Added == 1 }},
		{"a note replaced by a folder", func() {
			os.Remove(full("link.md"))
			os.MkdirAll(full("link.md"), 0o755)
		}, func(st RefreshStats) bool { return st.Removed == 1 }},
	}
	for _, s := range steps {
		s.change()
		ix := reopen(t, tv)
		st := refresh(t, ix)
		if !s.check(st) || ix.snapshots != 1 {
			t.Errorf("%s: %+v, %d snapshots; the change was not indexed from a snapshot", s.name, st, ix.snapshots)
		}
		if again := refresh(t, reopen(t, tv)); !again.Unchanged {
			t.Errorf("%s: a second look still finds changes: %+v", s.name, again)
		}
	}
	got := searchPaths(t, tv.Ix, "renamed note")
	if len(got) == 0 || got[0] != "moved.md" {
		t.Errorf("the renamed note is found at %v, want moved.md", got)
	}
}

// An index made before stat keys existed has 0 in every row: opening it
// fills them in once, and the fast path works from then on. A row marked
// for re-indexing (mod_ns -1, stat_key 0) turns the fast path off until it
// is written again.
func TestFreshness_KeysFilledForAnOlderIndex(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
	refresh(t, tv.Ix)
	if _, err := tv.Ix.db.Exec("UPDATE resources SET stat_key = 0"); err != nil {
		t.Fatal(err)
	}
	ix := reopen(t, tv)
	var zero int
	ix.db.QueryRow("SELECT count(*) FROM resources WHERE stat_key = 0").Scan(&zero)
	if zero != 0 {
		t.Fatalf("%d rows without a key after open", zero)
	}
	if refresh(t, ix); ix.snapshots != 0 {
		t.Errorf("after the keys were filled: %d snapshots, want 0", ix.snapshots)
	}
	if _, err := tv.Ix.db.Exec("UPDATE resources SET mod_ns = -1, stat_key = 0 WHERE path = 'a.md'"); err != nil {
		t.Fatal(err)
	}
	ix = reopen(t, tv)
	if st := refresh(t, ix); st.Updated+st.Touched != 1 || ix.snapshots != 1 {
		t.Errorf("a row marked for re-indexing: %+v, %d snapshots; want it written again from a snapshot", st, ix.snapshots)
	}
}

func searchPaths(t *testing.T, ix *Index, q string) []string {
	t.Helper()
	hits, err := searchUnits(context.Background(), ix, q, vault.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// Opening an up-to-date index takes no write lock: a one-shot command opens
// it while another process holds a long write transaction (a rebuild's
// batch, say). Before, every open began one immediate transaction per
// migration just to read the schema version, and waited for the writer.
func TestOpen_UpToDateIndexTakesNoWriteLock(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	refresh(t, tv.Ix)
	conn, err := tv.Ix.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ix, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatalf("open while another connection writes: %v", err)
	}
	ix.Close()
}

// A row whose key no longer matches it (a lore from before stat keys that
// touched the row, say) costs one snapshot: the vault is found as the index
// has it, every key is written again, and the fast path is back.
func TestFreshness_StaleKeysHealThemselves(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
	refresh(t, tv.Ix)
	if _, err := tv.Ix.db.Exec("UPDATE resources SET stat_key = 12345 WHERE path = 'a.md'"); err != nil {
		t.Fatal(err)
	}
	ix := reopen(t, tv)
	if st := refresh(t, ix); !st.Unchanged || ix.snapshots != 1 {
		t.Fatalf("a stale key: %+v, %d snapshots; want unchanged, from 1 snapshot", st, ix.snapshots)
	}
	ix = reopen(t, tv)
	if refresh(t, ix); ix.snapshots != 0 {
		t.Errorf("after the keys were written again: %d snapshots, want 0", ix.snapshots)
	}
}
