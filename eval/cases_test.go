package eval

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// openMemory opens the vault at root and its index, both closed when t
// ends.
func openMemory(t *testing.T, root string) *retrieve.Memory {
	t.Helper()
	v, err := vault.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ix, err := retrieve.Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// openIndex writes files into a new vault (a real git repository) and
// returns its refreshed index.
func openIndex(t *testing.T, files map[string]string) *retrieve.Memory {
	t.Helper()
	ix := openMemory(t, testvault.Committed(t, files))
	if _, err := ix.Index.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// ScoreCases scores the cases that name what they expect, and skips (never
// divides by zero for) a case that expects nothing.
func TestScoreCases_ScoresAndSkipsEmptyCases(t *testing.T) {
	ix := openIndex(t, map[string]string{
		"a.md": "---\nid: mem_a\n---\n# Alpha\n\nsync retries back off\n",
		"b.md": "---\nid: mem_b\n---\n# Beta\n\ncache invalidation\n",
	})
	m, err := ScoreCases(context.Background(), ix.Pipeline, []Case{
		{Query: "sync retries", Expected: []string{"mem_a"}},
		{Query: "cache", Expected: nil},
	}, "lexical")
	if err != nil {
		t.Fatal(err)
	}
	if m.Cases != 1 || math.IsNaN(m.Recall20) || m.Recall20 != 1 || m.MRR != 1 || math.Abs(m.NDCG10-1) > 1e-9 {
		t.Fatalf("metrics %+v; want one case scored perfectly", m)
	}
}

// Add stores a path as its resource id, refuses a case without a query or
// naming a resource that does not exist, and All reads back what was added
// (skipping a damaged line).
func TestCases_AddResolvesAndReadsBack(t *testing.T) {
	ix := openIndex(t, map[string]string{"a.md": "---\nid: mem_a\n---\n# Alpha\n\nsync\n"})
	cs := CasesOf(ix.Vault())
	cs.Now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	ctx := context.Background()
	if _, err := cs.Add(ctx, ix, Case{Query: "  ", Expected: []string{"a.md"}}); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Errorf("a case without a query: %v", err)
	}
	if _, err := cs.Add(ctx, ix, Case{Query: "sync", Expected: []string{"nope.md"}}); err == nil {
		t.Errorf("a case naming a missing resource was stored")
	}
	c, err := cs.Add(ctx, ix, Case{Query: " sync ", Expected: []string{"a.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Query != "sync" || len(c.Expected) != 1 || c.Expected[0] != "mem_a" || c.CreatedAt != "2026-12-01T00:00:00Z" {
		t.Errorf("stored case %+v", c)
	}
	f, _ := os.OpenFile(cs.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{half a line\n")
	f.Close()
	all, err := cs.All()
	if err != nil || len(all) != 1 || all[0].ID != c.ID {
		t.Fatalf("All = %+v, %v; want the one case", all, err)
	}
}

// TestCases_ASectionLevelMissIsAMiss: "Report inaccurate" recorded a case
// per note, so the right note with the wrong section scored 1.0. A case
// that names a section (path#Heading, or a section key) is scored by
// section.
func TestCases_ASectionLevelMissIsAMiss(t *testing.T) {
	ix := openIndex(t, map[string]string{
		"hotkeys.md": "---\nid: mem_h\n---\n# Hotkeys\n\nOpen the hotkeys page in settings.\n\n## Set a hotkey\n\nClick the plus.\n\n## Remove a hotkey\n\nClick the cross to remove a hotkey shortcut.\n",
	})
	cs := CasesOf(ix.Vault())
	ctx := context.Background()
	c, err := cs.Add(ctx, ix, Case{Query: "hotkeys settings page", Expected: []string{"hotkeys.md#Remove a hotkey"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sections) != 1 || c.Sections[0] != "mem_h/remove-a-hotkey/0" || c.Expected[0] != "mem_h" {
		t.Fatalf("case %+v; want the section named", c)
	}
	if _, err := cs.Add(ctx, ix, Case{Query: "x", Expected: []string{"hotkeys.md#No such heading"}}); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("a missing heading: %v", err)
	}
	byNote, err := ScoreCases(ctx, ix.Pipeline, []Case{{Query: c.Query, Expected: c.Expected}}, "lexical")
	if err != nil {
		t.Fatal(err)
	}
	bySection, err := ScoreCases(ctx, ix.Pipeline, []Case{c}, "lexical")
	if err != nil {
		t.Fatal(err)
	}
	if byNote.MRR != 1 || bySection.MRR >= 1 {
		t.Fatalf("by note MRR %.2f, by section %.2f; want the note first but its section not", byNote.MRR, bySection.MRR)
	}
}
