package fts

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// panicOn makes the indexer's parser panic on one path (as markdown.Parse
// once did on 28 notes of a real vault), for the length of a test.
func panicOn(t *testing.T, path string) {
	t.Helper()
	orig := parseNote
	parseNote = func(p string, data []byte) (*vault.Resource, error) {
		if p == path {
			var s []byte
			_ = s[len(data):1] // slice bounds out of range, as the parser's bug was
		}
		return orig(p, data)
	}
	t.Cleanup(func() { parseNote = orig })
}

// TestIndex_AFileThatPanicsIsUnreadableNotFatal: a note, or a Draft's note,
// on which lore panics is recorded as unreadable (named in the stats that
// doctor and lore index print) and never stops the other files being
// indexed and read.
func TestIndex_AFileThatPanicsIsUnreadableNotFatal(t *testing.T) {
	panicOn(t, "bomb.md")
	tv := newTestVault(t, map[string]string{
		"good.md":  "# Good\n\nfine widget words\n",
		"bomb.md":  "# Bomb\n\nwidget that trips the parser\n",
		"other.md": "# Other\n\nanother widget\n",
	})
	ctx := context.Background()
	st, err := tv.Ix.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, p := range st.Problems {
		if p.Path == "bomb.md" {
			msg = p.Message
		}
	}
	if !strings.Contains(msg, "a bug in lore") {
		t.Errorf("bomb.md's problem = %q, want it named as a bug in lore; problems %+v", msg, st.Problems)
	}
	if st.Resources != 2 || st.Skipped != 1 {
		t.Errorf("stats = %d resources, %d skipped; want the two others indexed and bomb.md skipped", st.Resources, st.Skipped)
	}
	hits := tv.search("widget", vault.SearchOptions{})
	if len(hits) != 2 {
		t.Errorf("search found %d notes, want good.md and other.md: %+v", len(hits), hits)
	}
	if res, err := tv.Ix.Load(ctx, []string{"good.md"}, ""); err != nil || len(res) != 1 {
		t.Errorf("load good.md: %v", err)
	}

	// A Draft whose file panics: the other Draft of the same project is
	// still laid over the vault.
	panicOn(t, "projects/alpha/bad-draft.md")
	tv.Ix.UseOverlay(testvault.Drafts{
		{ID: "d1", Project: "alpha", Head: "h1", Files: []OverlayFile{{Path: "projects/alpha/bad-draft.md", Data: []byte("# Bad\n\nwidget\n")}}},
		{ID: "d2", Project: "alpha", Head: "h2", Files: []OverlayFile{{Path: "projects/alpha/ok-draft.md", Data: []byte("# Ok draft\n\nwidget draftword\n")}}},
	})
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatalf("refresh with a Draft that panics: %v", err)
	}
	if hits := tv.search("draftword", vault.SearchOptions{Project: "alpha"}); len(hits) != 1 || hits[0].Path != "projects/alpha/ok-draft.md" {
		t.Errorf("the other Draft's note is not found: %+v", hits)
	}
}
