package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/shareddata"
	"github.com/lore-memory/lore/internal/testmodel"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// hubQuestions is the question set on the Obsidian Hub (testdata/hub): the
// questions a user of that vault asks, each with the note and section that
// answers it, written from reading the notes before any ranking change.
const hubQuestions = "../testdata/hub/questions.jsonl"

// hubQuestions2 is a second set on the Hub, written later and before it was
// run: sections of long guides, contributor notes and event pages, to judge
// a change to section order on questions it was not tuned on.
const hubQuestions2 = "../testdata/hub/questions-2.jsonl"

// hubQuestions3 is a third set, written before it was run, on notes the
// first two do not touch: plugin categories, templates, community talks,
// the guides for a use (TTRPG, theme designers, religious study), events
// and showcases.
const hubQuestions3 = "../testdata/hub/questions-3.jsonl"

// hubQuestions4 is a fourth set, written before it was run and after the
// changes the third set led to: contributor design notes, categories,
// for-X guides, a roundup's items.
const hubQuestions4 = "../testdata/hub/questions-4.jsonl"

// hubQuestions5 is a fifth set, written before it was run: a section drawn
// at random (fixed seeds) from notes no earlier set asks about, one
// question each, so that what it asks is not chosen by the writer.
const hubQuestions5 = "../testdata/hub/questions-5.jsonl"

// hubQuestions6 is drawn as the fifth set was (seed 19), from notes no
// earlier set asks about, and written to judge a section-order
// simplification before it ran (docs/BENCHMARKS.md, "Ablation").
const hubQuestions6 = "../testdata/hub/questions-6.jsonl"

// hubQuestions7 is drawn the same way (seed 23), and written to judge
// lower BM25 column weights before they ran (not kept:
// docs/decisions/query-or-and-column-weights.md).
const hubQuestions7 = "../testdata/hub/questions-7.jsonl"

// hubQuestions8 is drawn the same way (seed 29), and written to judge
// coord over one block before it ran (not kept:
// docs/decisions/not-kept-coord.md).
const hubQuestions8 = "../testdata/hub/questions-8.jsonl"

// hubQuestions9 is the Hub's ninth set (seed 31, 15 questions), written
// before any run to judge a fourth coord design (not kept:
// docs/decisions/not-kept-coord.md).
const hubQuestions9 = "../testdata/hub/questions-9.jsonl"

// hubQuestions10 is the Hub's tenth set (seed 41, 15 questions), written
// before any run, after the last ranking change of issue 62, as a judge
// of the ranking as it ends the issue.
const hubQuestions10 = "../testdata/hub/questions-10.jsonl"

// hubQuestions11 is the Hub's eleventh set (seed 43, 15 questions),
// written to judge the label as a share of the full label (not kept).
const hubQuestions11 = "../testdata/hub/questions-11.jsonl"

// hubQuestions12 is the Hub's twelfth set (seed 47, 15 questions),
// written to judge two section-order designs (not kept:
// docs/decisions/not-kept-title-label-units.md).
const hubQuestions12 = "../testdata/hub/questions-12.jsonl"

// hubQuestions13 and hubQuestions14 are the Hub's thirteenth and
// fourteenth sets (seeds 53 and 59, 15 questions each), written to judge
// two forms of a section-order design (not kept:
// docs/decisions/not-kept-section-parts.md).
const (
	hubQuestions13 = "../testdata/hub/questions-13.jsonl"
	hubQuestions14 = "../testdata/hub/questions-14.jsonl"
)

// hubQuestions15 is the Hub's fifteenth set (seed 61, 15 questions),
// written to judge a word's weight within a note capped by its idf over
// the notes found (not kept: docs/decisions/not-kept-context-idf.md).
const hubQuestions15 = "../testdata/hub/questions-15.jsonl"

// hubQuestions16 is the Hub's sixteenth set (seed 67, 15 questions, drawn
// from notes of five sections or more: the Obsidian Roundup's issues),
// written to judge a section's ancestors' headings counted as its own
// (not kept: docs/decisions/not-kept-heading-path.md).
const hubQuestions16 = "../testdata/hub/questions-16.jsonl"

// hubQuestions17 is the Hub's seventeenth set (seed 71, 15 questions),
// written to judge the path column holding the file's name alone (not
// kept: docs/decisions/not-kept-path-name.md).
const hubQuestions17 = "../testdata/hub/questions-17.jsonl"

// hubQuestions18 is the Hub's eighteenth set (seed 73, 15 questions),
// written to judge a path's words indexed as words of their own kind (not
// kept: docs/decisions/not-kept-path-words.md).
const hubQuestions18 = "../testdata/hub/questions-18.jsonl"

// hubQuestions19 is the Hub's nineteenth set (seed 79, 15 questions),
// written to judge the notes delivered in an order that covers the
// question (not kept: docs/decisions/not-kept-novelty-order.md).
const hubQuestions19 = "../testdata/hub/questions-19.jsonl"

// hubQuestions20 is the Hub's twentieth set (seed 89, 15 questions),
// written to judge a note's coverage of the query added to its sections'
// scores (kept: docs/decisions/note-coverage.md).
const hubQuestions20 = "../testdata/hub/questions-20.jsonl"

// hubQuestions21 is the Hub's twenty-first set (seed 97, 15 questions),
// written to judge the link votes, a note's coverage and its status as
// one stage (kept: docs/decisions/one-note-stage.md).
const hubQuestions21 = "../testdata/hub/questions-21.jsonl"

// hubParaphrased asks 15 sections (seed 37) without their own distinctive
// words, as a person who has not read them would; lexical activate finds
// none of them first (docs/BENCHMARKS.md, "Paraphrased sets"), so only its
// answers are checked here, not its figures.
const hubParaphrased = "../testdata/hub/paraphrased.jsonl"

// TestHubQuestions_EveryAnswerIsASectionOfTheHub keeps the question set
// true to the vault: every expected path is a note of the Obsidian Hub and
// every expected heading one of its sections, as lore parses it.
func TestHubQuestions_EveryAnswerIsASectionOfTheHub(t *testing.T) {
	var qs []Question
	for _, set := range []struct {
		file string
		min  int
	}{{hubQuestions, 50}, {hubQuestions2, 30}, {hubQuestions3, 30}, {hubQuestions4, 30}, {hubQuestions5, 30}, {hubQuestions6, 22}, {hubQuestions7, 15}, {hubQuestions8, 15}, {hubQuestions9, 15}, {hubQuestions10, 15}, {hubQuestions11, 15}, {hubQuestions12, 15}, {hubQuestions13, 15}, {hubQuestions14, 15}, {hubQuestions15, 15}, {hubQuestions16, 15}, {hubQuestions17, 15}, {hubQuestions18, 15}, {hubQuestions19, 15}, {hubQuestions20, 15}, {hubQuestions21, 15}, {hubParaphrased, 15}} {
		some, err := LoadQuestions(set.file)
		if err != nil {
			t.Fatal(err)
		}
		if len(some) < set.min {
			t.Fatalf("%s: %d questions; the set has at least %d", set.file, len(some), set.min)
		}
		qs = append(qs, some...)
	}
	notes := map[string][]byte{}
	for _, n := range shareddata.Hub(t) {
		notes[n.Path] = n.Data
	}
	for _, q := range qs {
		p, h, _ := strings.Cut(q.Expected, "#")
		data, ok := notes[p]
		if !ok {
			t.Errorf("%q: no note %s in the Hub", q.Query, p)
			continue
		}
		r, err := markdown.Parse(p, data)
		if err != nil {
			t.Errorf("%q: %s: %v", q.Query, p, err)
			continue
		}
		var heads []string
		found := false
		for _, u := range r.Units {
			if n := len(u.HeadingPath); n > 0 {
				heads = append(heads, u.HeadingPath[n-1])
				found = found || u.HeadingPath[n-1] == h
			}
		}
		if !found {
			t.Errorf("%q: %s has no section %q; its sections: %q", q.Query, p, h, heads)
		}
	}
}

// hubSet is a Hub question set and the floors its figures are held at.
type hubSet struct {
	file   string
	floors map[string]float64 // figure → floor
}

// openHub indexes a copy of the Obsidian Hub in a temporary vault (the
// lexical index only: no embedding configured).
func openHub(t *testing.T) *retrieve.Memory {
	t.Helper()
	dir := t.TempDir()
	shareddata.WriteHub(t, dir)
	return openVault(t, dir)
}

// TestHubQuestions_Figures asks each set of Hub questions through activate and
// search on the Obsidian Hub itself (lexical, as lore eval --questions …
// --mode lexical does), logs the figures, and holds them at floors just
// under today's (each a question or less below), so a change that loses the
// Hub's answers fails here and not only in docs/BENCHMARKS.md, which has the
// figures; a change that trades one figure for another moves its floor on
// purpose.
func TestHubQuestions_Figures(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: it indexes the 6,591 notes of the Obsidian Hub")
	}
	ix := openHub(t)
	answers := hubFigures(t, ix, "lexical", []hubSet{
		{hubQuestions, map[string]float64{
			// section@1 a question under the figure the Hub issue asked
			// for (0.75): a note's coverage of the query
			// (docs/decisions/note-coverage.md) won one first section
			// here and lost two, one of them to a roundup's line judged
			// to answer; note@3 a question under its 0.95 since the
			// named-list exception, made for this set and paying on no
			// set written after it, was taken out (docs/BENCHMARKS.md,
			// "Rules that paid only where they were made").
			"activate section@1": 0.73, "activate section@3": 0.875,
			"activate note@1": 0.81, "activate note@3": 0.93,
			"search section@3": 0.75, "search note@3": 0.93,
		}},
		{hubQuestions2, map[string]float64{
			"activate section@1": 0.73, "activate section@3": 0.89,
			"activate note@1": 0.86, "activate note@3": 0.92,
			"search section@3": 0.86, "search note@3": 0.92,
		}},
		{hubQuestions3, map[string]float64{
			"activate section@1": 0.76, "activate section@3": 0.88,
			"activate note@1": 0.79, "activate note@3": 0.94,
			"search section@3": 0.82, "search note@3": 0.91,
		}},
		{hubQuestions4, map[string]float64{
			"activate section@1": 0.53, "activate section@3": 0.70,
			"activate note@1": 0.56, "activate note@3": 0.70,
			"search section@3": 0.63, "search note@3": 0.70,
		}},
		{hubQuestions5, map[string]float64{
			// Copies delivered once moved these on purpose: one label
			// names the slides' copy of a text the guide is kept for
			// (docs/decisions/copies-delivered-once.md).
			"activate section@1": 0.53, "activate section@3": 0.70,
			"activate note@1": 0.63, "activate note@3": 0.83,
			"search section@3": 0.70, "search note@3": 0.80,
		}},
		{hubQuestions6, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.72, "activate section@3": 0.81,
			"activate note@1": 0.72, "activate note@3": 0.81,
			"search section@3": 0.81, "search note@3": 0.81,
		}},
		{hubQuestions7, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.80, "activate section@3": 0.86,
			"activate note@1": 0.80, "activate note@3": 0.86,
			"search section@3": 0.86, "search note@3": 0.86,
		}},
		{hubQuestions8, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.86, "activate section@3": 0.86,
			"activate note@1": 0.86, "activate note@3": 0.93,
			"search section@3": 0.86, "search note@3": 0.93,
		}},
		{hubQuestions9, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.53, "activate section@3": 0.60,
			"activate note@1": 0.53, "activate note@3": 0.66,
		}},
		{hubQuestions10, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.80, "activate section@3": 0.86,
			"activate note@1": 0.80, "activate note@3": 0.86,
		}},
		{hubQuestions11, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.80, "activate section@3": 0.80,
			"activate note@1": 0.80, "activate note@3": 0.80,
		}},
		{hubQuestions12, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.60, "activate section@3": 0.66,
			"activate note@1": 0.60, "activate note@3": 0.66,
		}},
		{hubQuestions13, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.60, "activate section@3": 0.73,
			"activate note@1": 0.60, "activate note@3": 0.80,
		}},
		{hubQuestions14, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.66, "activate section@3": 0.80,
			"activate note@1": 0.66, "activate note@3": 0.86,
		}},
		{hubQuestions15, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.80, "activate section@3": 0.86,
			"activate note@1": 0.80, "activate note@3": 0.86,
		}},
		{hubQuestions16, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.60, "activate section@3": 0.86,
			"activate note@1": 0.60, "activate note@3": 0.86,
		}},
		{hubQuestions17, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.93, "activate section@3": 0.93,
			"activate note@1": 0.93, "activate note@3": 0.93,
		}},
		{hubQuestions18, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.66, "activate section@3": 0.93,
			"activate note@1": 0.66, "activate note@3": 0.93,
		}},
		{hubQuestions19, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.60, "activate section@3": 0.80,
			"activate note@1": 0.66, "activate note@3": 0.86,
		}},
		{hubQuestions20, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.53, "activate section@3": 0.86,
			"activate note@1": 0.53, "activate note@3": 0.93,
		}},
		{hubQuestions21, map[string]float64{
			// One question under the figures of its first run.
			"activate section@1": 0.73, "activate section@3": 0.80,
			"activate note@1": 0.73, "activate note@3": 0.80,
		}},
	})
	// One question under the judged figures with a note's coverage of the
	// query (docs/decisions/note-coverage.md): note@3 0.958 over these 428
	// questions, above issue 62's 0.95, which this floor holds.
	judgedFloors(t, "obsidian-hub", answers, [3]float64{0.854, 0.955, 0.822})
}

// TestHubQuestions_HybridFigures is TestHubQuestions_Figures with the
// built-in model: every unit of the Hub embedded, activate in hybrid mode,
// as lore activate runs once the model is installed and as lore eval
// --questions … --mode hybrid measures it (search is lexical in every mode,
// and held above). It needs `make model`; CI sets LORE_REQUIRE_MODEL, so
// there a missing model fails instead of skipping. Embedding the Hub's
// 25,514 unit texts takes about two and a half minutes on two cores.
func TestHubQuestions_HybridFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: it indexes and embeds the 6,591 notes of the Obsidian Hub")
	}
	ix := openHub(t)
	testmodel.EmbedAll(t, ix.Index, testmodel.Builtin(t))
	hubFigures(t, ix, "hybrid", []hubSet{
		{hubQuestions, map[string]float64{
			// As in lexical mode.
			"activate section@1": 0.73, "activate section@3": 0.875,
			"activate note@1": 0.78, "activate note@3": 0.93,
		}},
		{hubQuestions2, map[string]float64{
			"activate section@1": 0.73, "activate section@3": 0.89,
			"activate note@1": 0.86, "activate note@3": 0.92,
		}},
		{hubQuestions3, map[string]float64{
			"activate section@1": 0.76, "activate section@3": 0.88,
			"activate note@1": 0.79, "activate note@3": 0.94,
		}},
		{hubQuestions4, map[string]float64{
			"activate section@1": 0.53, "activate section@3": 0.70,
			"activate note@1": 0.56, "activate note@3": 0.70,
		}},
		{hubQuestions5, map[string]float64{
			"activate section@1": 0.53, "activate section@3": 0.73,
			"activate note@1": 0.63, "activate note@3": 0.83,
		}},
		{hubQuestions6, map[string]float64{
			"activate section@1": 0.72, "activate section@3": 0.81,
			"activate note@1": 0.72, "activate note@3": 0.81,
		}},
	})
}

// hubFigures asks each set's questions through activate in mode and
// through search (lexical in every mode), logs the figures, and fails
// each figure under its floor.
func hubFigures(t *testing.T, ix *retrieve.Memory, mode string, sets []hubSet) (answers []Answer) {
	t.Helper()
	ctx := context.Background()
	render := func(a *vault.Activation) (string, string, error) { return "", "", nil }
	activator := InMode(ix, mode)
	for _, set := range sets {
		qs, err := LoadQuestions(set.file)
		if err != nil {
			t.Fatal(err)
		}
		act, err := ScoreQuestions(ctx, activator, qs, render)
		if err != nil {
			t.Fatal(err)
		}
		search, err := ScoreSearch(ctx, ix, qs, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%d), %s: activate section@1 %.3f @3 %.3f note@1 %.3f @3 %.3f; search section@1 %.3f @3 %.3f note@1 %.3f @3 %.3f",
			set.file, act.Questions, mode, act.Success1, act.Success3, act.Note1, act.Note3, search.Success1, search.Success3, search.Note1, search.Note3)
		got := map[string]float64{
			"activate section@1": act.Success1, "activate section@3": act.Success3,
			"activate note@1": act.Note1, "activate note@3": act.Note3,
			"search section@3": search.Success3, "search note@3": search.Note3,
		}
		for name, floor := range set.floors {
			if got[name] < floor {
				t.Errorf("%s, %s: %s %.3f is under its floor %.2f", set.file, mode, name, got[name], floor)
			}
		}
		answers = append(answers, act.Answers...)
	}
	return answers
}

// judgedFloors reads lore's answers with the vault's judgments (the file
// testdata/eval/table.json names for it: other places judged to answer a
// question, docs/decisions/judged-reading.md) and holds note@1, note@3 and
// section@1, pooled over the answers, at floors one question under the
// figures, taken again when sets are added (last with the seed-79 sets).
// A place nobody judged counts as a miss, so a
// ranking change that puts new places first fails here until they are
// judged (lore eval --table … --unjudged DIR writes them).
func judgedFloors(t *testing.T, vaultName string, answers []Answer, floors [3]float64) {
	t.Helper()
	table, err := LoadTable("../testdata/eval/table.json")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(table.Vaults, func(v TableVault) bool { return v.Name == vaultName })
	if i < 0 || table.Vaults[i].Judged == "" {
		t.Fatalf("the table names no judgments for %s", vaultName)
	}
	j, err := LoadJudgments(table.Vaults[i].Judged)
	if err != nil {
		t.Fatal(err)
	}
	var total JudgedTotals
	for _, a := range answers {
		f, u := j.Read(a.Question, RankedFromSections(a.Delivered))
		total.Add(f, len(u))
	}
	got := total.Shares()
	t.Logf("%s, judged (%d questions): note@1 %.3f note@3 %.3f section@1 %.3f; %d places not judged", vaultName, total.Questions, got[0], got[1], got[2], total.Unjudged)
	for i, name := range []string{"note@1", "note@3", "section@1"} {
		if got[i] < floors[i] {
			t.Errorf("%s, judged %s %.3f is under its floor %.2f (places not judged: %d)", vaultName, name, got[i], floors[i], total.Unjudged)
		}
	}
}
