package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// coverVault holds a plugin's note named after one word of the question,
// which it holds in its path, title and text, and a roundup whose one
// section holds every word of the question. Six notes share the question's
// common words and twenty share none, so that "dropbox" is the rarest.
func coverVault(t *testing.T) *testVault {
	files := map[string]string{
		"plugins/dropbox-links.md": "# Dropbox Links\n\nOpen share links from Dropbox in the app.\n",
		"roundup/2021-06-05.md": "# Roundup 2021-06-05\n\n## In the community\n\nA talk on daily notes.\n\n" +
			"## New plugins\n\nA plugin now backs up your vault to Dropbox automatically, every hour.\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nThe vault syncs automatically; back up the vault before an upgrade (%d).\n", i, i)
	}
	for i := range 20 {
		files[fmt.Sprintf("notes/t%02d.md", i)] = fmt.Sprintf("# Topic %d\n\nSomething else entirely about gardens and tea (%d).\n", i, i)
	}
	return newTestVault(t, files)
}

// A note whose sections between them hold the whole question comes before
// a note that repeats one rare word of it in its path and title: BM25 read
// each section alone and put the Dropbox note first. With the coverage
// term off (the ablation lore eval runs) the order is the old one, so the
// test shows what the term moves. The retrieval run records each
// candidate's coverage term when it counted, and none when it was off.
func TestActivate_TheNoteThatCoversTheQuestionComesFirst(t *testing.T) {
	tv := coverVault(t)
	q := "back up my vault to Dropbox automatically"
	// first returns the note of the first fragment, whether the run
	// records a coverage term for its first candidate, and for how many
	// candidates in all.
	first := func() (string, bool, int) {
		act, err := tv.Ix.Activate(context.Background(), vault.ActivateRequest{Query: q, Mode: "lexical"})
		if err != nil {
			t.Fatal(err)
		}
		if len(act.Fragments) == 0 {
			t.Fatalf("Activate(%q) delivered nothing", q)
		}
		rec := tv.run(act.RunID)
		n := 0
		for _, c := range rec.Ranked {
			if c.CoverBonus > 0 {
				n++
			}
		}
		return act.Fragments[0].Path, rec.Ranked[0].CoverBonus > 0, n
	}
	if got, top, _ := first(); got != "roundup/2021-06-05.md" || !top {
		t.Errorf("first fragment from %s (its coverage term in the run: %v), want the roundup whose section holds every word of the question", got, top)
	}
	if err := tv.Ix.Pipeline.Without("cover"); err != nil {
		t.Fatal(err)
	}
	if got, _, n := first(); got != "plugins/dropbox-links.md" || n != 0 {
		t.Errorf("without the coverage term the first fragment is from %s (candidates with a coverage term in the run: %d); the test no longer shows what the term moves", got, n)
	}
}

// The note stage's coverage term changes no order of a note's own
// sections, and leaves a query of one term alone (every candidate holds
// it).
func TestScoreNotes_CoverageKeepsEachNotesOrderAndOneTermQueries(t *testing.T) {
	p := &Pipeline{off: map[string]bool{"links": true, "status": true}}
	mk := func(rid int64, key, content string, fused float64) *candidate {
		c := &candidate{}
		c.RID, c.UnitKey, c.Path, c.Title, c.Content, c.Fused, c.Final = rid, key, fmt.Sprintf("n%d.md", rid), "", content, fused, fused
		return c
	}
	score := func(q string, cs []*candidate) []*candidate {
		out, err := p.scoreNotes(context.Background(), q, cs, "")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cs := score("alpha beta gamma", []*candidate{
		mk(1, "a1", "alpha", 10),
		mk(2, "b1", "beta", 9),
		mk(1, "a2", "gamma", 8),
		mk(2, "b2", "alpha gamma", 7),
	})
	var order []string
	for _, c := range cs {
		order = append(order, c.UnitKey)
	}
	// Note 2 holds all three terms, note 1 two: b1 gains 0.4 × 10 and
	// passes a1 (13 > 10 + 2.67); within each note the order stays.
	if want := "[b1 a1 b2 a2]"; fmt.Sprint(order) != want {
		t.Errorf("order %v, want %s", order, want)
	}
	one := score("alpha", []*candidate{mk(1, "a", "alpha", 2), mk(2, "b", "alpha alpha", 1)})
	if one[0].Final != 2 || one[1].Final != 1 {
		t.Errorf("a one-term query changed the scores: %v, %v", one[0].Final, one[1].Final)
	}
}

// Without turns a stage off whole, or one of its parts alone, and names
// the stages and their parts when asked for one that is not there.
func TestWithout_AStageOrAPart(t *testing.T) {
	p := &Pipeline{}
	if err := p.Without("notes", "order"); err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"links": true, "cover": true, "status": true, "order": true}; fmt.Sprint(p.off) != fmt.Sprint(want) {
		t.Errorf("off %v, want %v", p.off, want)
	}
	err := p.Without("templates")
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "exact, notes (links, cover, status), sections (shared, order)") {
		t.Errorf("an unknown stage: %v; want invalid_input naming the stages and their parts", err)
	}
}
