package retrieve

import (
	"testing"

	"github.com/lore-memory/lore/vault"
)

// TestCompactLine pins recall_memory's compact line (specs/003).
func TestCompactLine(t *testing.T) {
	h := vault.RecallHit{Path: "decisions/0001-sqlite.md", Tier: "L3", Score: 0.0825, LinksIn: 3, LinksOut: 5, Snippet: "SQLite file | inside .git/lore"}
	if got, want := h.Compact(), "!μ:L3|decisions/0001-sqlite.md|score:0.083|links:3/5 § SQLite file / inside .git/lore"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	h.Tier, h.Score = "", 1
	if got, want := h.Compact(), "!μ:-|decisions/0001-sqlite.md|score:1|links:3/5 § SQLite file / inside .git/lore"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A wikilink's display text keeps its '|': it was mangled into a path.
	h.Snippet = "see [[Configuration folder|config folder]] | and [[a]]"
	if got, want := h.Compact(), "!μ:-|decisions/0001-sqlite.md|score:1|links:3/5 § see [[Configuration folder|config folder]] / and [[a]]"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestRecallRanksResourcesOnce(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"a.md": "---\ntier: L3\n---\n# Alpha\n\nwidgets and gadgets\n\n## More\n\nwidgets again\n",
		"b.md": "# Beta\n\nsee [[Alpha]] for widgets\n",
	})
	hits, err := tv.Ix.Recall(t.Context(), "widgets", "lexical", "", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Path == hits[1].Path {
		t.Fatalf("%+v", hits)
	}
	for _, h := range hits {
		if h.Path == "a.md" && (h.Tier != "L3" || h.LinksIn != 1) {
			t.Fatalf("a.md: %+v", h)
		}
		if h.Path == "b.md" && h.LinksOut != 1 {
			t.Fatalf("b.md: %+v", h)
		}
	}
}
