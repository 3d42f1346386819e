package retrieve

import (
	"math"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A note whose title says two of the question's words no longer outranks
// a roundup's line that says all of them: on the Hub, "Readwise Reader's
// public beta with GPT-3 summaries" got the GPT-3 Notes plugin first, and
// the roundup's Ancillary Tools line, which names every word, was not among
// the first three.
func TestCoord_TheLineThatSaysEveryWordComesFirst(t *testing.T) {
	wantFirst(t, map[string]string{
		"plugins/gpt3-notes.md": "# GPT-3 Notes\n\nWrite GPT-3 summaries of your notes.\n",
		"roundup/2022-12-17 Obsidian October Winners.md": "# 2022-12-17 Obsidian October Winners\n\n## Ancillary Tools\n\n" +
			"- A new gallery of themes for the desktop app, with previews of each one and a search.\n" +
			"- Readwise Reader opened its public beta, with GPT-3 summaries of what you save.\n" +
			"- A companion app for your phone that syncs the daily note over the local network.\n" +
			"- A browser extension that clips a page with its highlights.\n",
	}, []firstCase{
		{"Readwise Reader's public beta with GPT-3 summaries", "roundup/2022-12-17 Obsidian October Winners.md › Ancillary Tools"},
	})
}

// The share counts the title, the headings and one block: a list's items
// do not add up, a paragraph's lines do, and a line of code or a table row
// is a block alone. An exact match keeps its score, and the candidates are
// sorted by what is left.
func TestCoord_OneBlockCounts(t *testing.T) {
	const q = "rotate the signing keys every month"
	cand := func(title, heading, content string) *candidate {
		c := &candidate{}
		c.Title, c.HeadingPath, c.Content, c.Fused, c.Final = title, []string{heading}, content, 1, 1
		return c
	}
	list := cand("Security", "Checklist", "## Checklist\n\n- rotate the backups\n- check the signing config\n- review keys\n- every month, audit\n")
	para := cand("Security", "Keys", "## Keys\n\nWe rotate the signing\nkeys every month.\n")
	title := cand("Rotate signing keys monthly", "Why", "## Why\n\nLeaked keys stay valid until then.\n")
	code := cand("Ops", "Cron", "## Cron\n\n```\nrotate signing\nkeys every month\n```\n")
	exact := cand("Other", "Other", "nothing of it")
	exact.ExactRank = 1
	ranked := []*candidate{list, code, exact, title, para}
	coordinate(q, ranked)
	// The query's content words: rotat, sign, key, everi, month (five).
	for _, tc := range []struct {
		name  string
		c     *candidate
		share float64
	}{
		{"a list, each item holding some of the words", list, 2.0 / 5},
		{"a paragraph over two lines", para, 1},
		{"a title and heading that hold the words", title, 4.0 / 5},
		{"a code block, a line at a time", code, 3.0 / 5},
	} {
		if math.Abs(tc.c.Coord-tc.share) > 1e-9 || math.Abs(tc.c.Fused-tc.share) > 1e-9 || math.Abs(withoutCoord(tc.c)-1) > 1e-9 {
			t.Errorf("%s: share %.2f, fused %.2f, without coord %.2f; want %.2f, %.2f, 1", tc.name, tc.c.Coord, tc.c.Fused, withoutCoord(tc.c), tc.share, tc.share)
		}
	}
	if exact.Fused != 1 || exact.Coord != 0 {
		t.Errorf("an exact match lost its score: %+v", exact.stages)
	}
	if ranked[0] != exact || ranked[1] != para || ranked[2] != title || ranked[3] != code || ranked[4] != list {
		t.Errorf("not sorted by what coord left")
	}
}

// Coord does not decide which of a note's sections take its places: on the
// Hub, "install the sass pre-compiler with npm" lost its Installation
// section to Getting started, which holds every word of the question that
// Installation holds, when section order read the scores coord had shrunk.
// Here two sections say the same words under headings the question does
// not name, and only coord's share tells their scores apart.
func TestCoord_SectionOrderReadsTheScoreWithoutIt(t *testing.T) {
	section := func(heading string, final, loss float64) *candidate {
		c := &candidate{}
		c.RID, c.Title, c.HeadingPath = 1, "Styles", []string{heading}
		c.Content = "## " + heading + "\n\nRun npm install sass in the theme folder.\n"
		c.Final, c.coordLoss = final, loss
		return c
	}
	first := section("Alpha", 0.5, 0.5) // 1.0 before coord
	second := section("Beta", 0.9, 0)
	ranked := []*candidate{second, first}
	orderSections("install the sass pre-compiler with npm", ranked)
	if ranked[0] != first {
		t.Errorf("section order followed coord's share: %s first", ranked[0].HeadingPath[0])
	}
}

// Coord orders; it does not cut. A candidate whose share left it under
// the weak cut's floor, but whose score without it is above, is delivered.
func TestCoord_TheWeakCutReadsTheScoreWithoutIt(t *testing.T) {
	a := newAssembly(vault.LimitsFrom(vault.RetrievalConfig{}), nil)
	c := &candidate{}
	c.Path, c.UnitKey, c.HeadingPath, c.Content, c.Tokens = "a.md", "a/x/0/0", []string{"X"}, "## X\n\nText.\n", 3
	c.BM25Rank, c.Final, c.coordLoss = 9, 0.2, 0.3 // 0.5 without coord
	if err := a.take(c, 0.3); err != nil {
		t.Fatal(err)
	}
	if c.Outcome != "delivered:add" {
		t.Errorf("outcome %s; want delivered:add (0.5 without coord, floor 0.3)", c.Outcome)
	}
}
