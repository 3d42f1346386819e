package fts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/vault"
)

// The index keeps no copy of a unit's text: a sentence of a note is in no
// byte of index.db or its WAL, while search still delivers the unit with
// its exact bytes, read from the note.
func TestIndex_KeepsNoCopyOfTheText(t *testing.T) {
	t.Parallel()
	const sentence = "Quarterly zeppelin inspections happen on the roof."
	tv := newTestVault(t, map[string]string{
		"ops/zeppelin.md": "# Zeppelin\n\n" + sentence + "\n\n## Keys\n\nThe hangar key is in the blue box.\n",
	})
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hits := tv.search("zeppelin inspections roof", vault.SearchOptions{Limit: 5})
	if len(hits) == 0 || hits[0].Path != "ops/zeppelin.md" {
		t.Fatalf("hits %v, want ops/zeppelin.md first", hits)
	}
	units, err := tv.Ix.Lookups().UnitsByKey(ctx, []string{hits[0].UnitKey}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := units[hits[0].UnitKey].Content; got != "# Zeppelin\n\n"+sentence {
		t.Errorf("unit text %q, want the note's bytes", got)
	}
	var dbPath string
	if err := tv.Ix.db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&dbPath); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dbPath, dbPath + "-wal"} {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, s := range []string{sentence, "The hangar key is in the blue box"} {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds %q", filepath.Base(p), s)
			}
		}
	}
}

// A note edited behind the index's back (same size, its old time put back,
// so the stat says nothing changed) no longer holds its units' bytes: a
// reader leaves the changed unit out rather than deliver other bytes under
// its hash, and keeps the unchanged one. The embedding pass does not loop
// on it: it marks the note for re-indexing, and the next refresh indexes
// the new text.
func TestIndex_AUnitWhoseNoteChangedIsLeftOut(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"a.md": "# Alpha\n\nthe walrus sleeps here\n\n## Beta\n\nthe otter swims there\n",
	})
	ctx := context.Background()
	if err := tv.Ix.Vectors().Use(ctx, &embed.HashEmbedder{Dims: 16}); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	editBehindTheIndex(t, tv, "a.md", "walrus sleeps", "badger digs!!")
	var uids []int64
	rows, err := tv.Ix.db.QueryContext(ctx, "SELECT uid FROM units ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u int64
		rows.Scan(&u)
		uids = append(uids, u)
	}
	rows.Close()
	if len(uids) != 2 {
		t.Fatalf("%d units, want 2", len(uids))
	}
	got, err := tv.Ix.Lookups().Units(ctx, uids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0].Content, "otter") {
		t.Fatalf("units %+v, want only the unchanged Beta", got)
	}
	if _, err := tv.Ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The stat still matches, so only the mark makes the refresh look.
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if hits := tv.search("badger digs", vault.SearchOptions{Limit: 5}); len(hits) == 0 || hits[0].Path != "a.md" {
		t.Errorf("after the re-index, hits %v, want a.md", hits)
	}
}
