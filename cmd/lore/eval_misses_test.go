package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/retrieve"
)

// --misses sets beside each miss the question's words that only the
// answering section holds (none: a ranking by which of the question's words
// a section holds cannot put it above the first) and plain FTS5's first
// section, marked when it is the answer, and counts each way: the misses
// whose answer holds no word of its own, the misses plain FTS5 had first,
// and the questions lore had first that plain FTS5 did not.
func TestMisses_OwnWordsAndPlainFTS5BesideEachMiss(t *testing.T) {
	ctx := context.Background()
	ix := missesIndex(t, map[string]string{
		"a.md": "# A\n\n## Release\n\nTag the release and push it.\n\n## Rollback\n\nRevert the tag and redeploy.\n",
		"b.md": "# B\n\n## Rollback plan\n\nIf it breaks, revert the tag.\n",
	})
	answers := []eval.Answer{
		// b.md's section holds both of the question's words: none of the
		// answer's own.
		{Question: eval.Question{Query: "revert the tag", Expected: "a.md#Rollback"}, Rank: 2, Delivered: []string{"b.md#Rollback plan", "a.md#Rollback"}},
		// The release section holds neither "revert" nor "redeploy".
		{Question: eval.Question{Query: "redeploy after a revert", Expected: "a.md#Rollback"}, Rank: 0, Delivered: []string{"a.md#Release"}},
		{Question: eval.Question{Query: "tag and push", Expected: "a.md#Release"}, Rank: 1, Delivered: []string{"a.md#Release"}},
		{Question: eval.Question{Query: "plan", Expected: "b.md#Rollback plan"}, Rank: 1, Delivered: []string{"b.md#Rollback plan"}},
	}
	fts5 := []string{"a.md#Rollback", "b.md#Rollback plan", "a.md#Release", "a.md#Rollback"}
	var m tableMisses
	m.vault = "v"
	if err := m.add(ctx, ix, "set.jsonl", answers, fts5); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printMisses(&out, []tableMisses{m})
	got := out.String()
	for _, want := range []string{
		"| v | set.jsonl | revert the tag | a.md#Rollback | b.md#Rollback plan | another note | none | **the answer** |",
		"| v | set.jsonl | redeploy after a revert | a.md#Rollback | a.md#Release | another section of the right note | redeploy, revert | b.md#Rollback plan |",
		// 4 questions, 2 not first (one in the right note, one another
		// note); 1 whose answer holds no word of its own; 1 first in plain
		// FTS5; 1 first in lore and not in plain FTS5 ("plan").
		"| v | 4 | 2 | 1 | 0 | 1 | 0 | 1 | 1 | 1 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("--misses lacks %q:\n%s", want, got)
		}
	}
}

// A vault of several sets ends the table with a row of all their
// questions: each figure the mean over every question of the vault (each
// set's weighed by its questions), lore's and plain FTS5's alike, since
// issue 62's goals are set for a vault. A vault of one set has no such row.
func TestTable_AVaultOfSeveralSetsEndsWithItsQuestionsPooled(t *testing.T) {
	all, err := eval.LoadQuestions("../../testdata/demo-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, qs []eval.Question) {
		var b strings.Builder
		for _, q := range qs {
			fmt.Fprintf(&b, "{\"query\": %q, \"project\": %q, \"expected\": %q}\n", q.Query, q.Project, q.Expected)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.jsonl", all[:7])
	write("b.jsonl", all[7:20])
	abs, err := filepath.Abs("../../testdata/demo-vault")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := filepath.Rel(dir, abs) // a table's folders are relative to it
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf(`{"vaults": [{"name": "two", "dir": %q, "sets": ["a.jsonl", "b.jsonl"]}, {"name": "one", "dir": %q, "sets": ["a.jsonl"]}]}`, demo, demo)
	if err := os.WriteFile(filepath.Join(dir, "table.json"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	if err := evalTable(context.Background(), e, tableRun{mode: "lexical"}, filepath.Join(dir, "table.json")); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 7 && (cells[0] == "two" || cells[0] == "one") {
			rows[cells[0]+" "+cells[1]] = cells
		}
	}
	a, b, total := rows["two a.jsonl"], rows["two b.jsonl"], rows["two **all 2 sets**"]
	if a == nil || b == nil || total == nil {
		t.Fatalf("the two-set vault's rows (a, b, all) are not all there:\n%s", out.String())
	}
	if total[2] != "20" {
		t.Errorf("the pooled row counts %s questions, want 20 (7 + 13)", total[2])
	}
	for col := 3; col < 7; col++ {
		for side := 0; side < 2; side++ {
			fig := func(r []string) float64 {
				var v float64
				fmt.Sscanf(strings.Split(r[col], " / ")[side], "%f", &v)
				return v
			}
			want := (fig(a)*7 + fig(b)*13) / 20
			if got := fig(total); math.Abs(got-want) > 0.001 {
				t.Errorf("column %d, %s: pooled %.3f, want %.3f (7 × %.3f + 13 × %.3f over 20)", col, []string{"lore", "plain FTS5"}[side], got, want, fig(a), fig(b))
			}
		}
	}
	if rows["one **all 1 sets**"] != nil || strings.Contains(out.String(), "| one | **all") {
		t.Errorf("a vault of one set has a pooled row:\n%s", out.String())
	}
}

// --unjudged writes the places the judged reading needed and nobody
// judged; judged as answering and named by the table, they count: every
// figure of the judged reading is then 1 for lore and for plain FTS5, and
// nothing is left unjudged, so the vault's file in the --unjudged folder,
// an earlier run's, is gone. The strict table does not move.
func TestTable_TheJudgedReadingCountsWhatWasJudged(t *testing.T) {
	all, err := eval.LoadQuestions("../../testdata/demo-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTable := demoTable(t, dir, all[:20])
	run := func(unjudged string) string {
		return runTable(t, dir, tableRun{mode: "lexical", unjudged: unjudged})
	}
	row := func(out, first string) string {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "| "+first+" |") {
				return line
			}
		}
		return ""
	}
	writeTable("")
	pool := filepath.Join(dir, "pool")
	before := run(pool)
	if strings.Contains(before, "judged:") {
		t.Errorf("a table without judgments prints a judged reading:\n%s", before)
	}
	places, err := os.ReadFile(filepath.Join(pool, "demo.jsonl"))
	if err != nil {
		t.Fatalf("--unjudged wrote no pool for the demo: %v", err)
	}
	if strings.Contains(string(places), `"answers":true`) || !strings.Contains(string(places), `"answers":null`) {
		t.Fatalf("the pool's places are not left to judge:\n%s", places)
	}
	judged := strings.ReplaceAll(string(places), `"answers":null`, `"answers":true`)
	if err := os.WriteFile(filepath.Join(dir, "judged.jsonl"), []byte(judged), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTable(`, "judged": "judged.jsonl"`)
	// Into the same folder: the earlier run's pool, judged since, must not
	// be left there to be judged and merged again.
	after := run(pool)
	if got, want := row(after, "demo | 20"), "| demo | 20 | 1.000 / 1.000 | 1.000 / 1.000 | 1.000 / 1.000 | 0 / 0 |"; got != want {
		t.Errorf("judged row %q, want %q:\n%s", got, want, after)
	}
	if _, err := os.Stat(filepath.Join(pool, "demo.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a pool is there with nothing left to judge (%v)", err)
	}
	if a, b := row(before, "demo | a.jsonl"), row(after, "demo | a.jsonl"); a == "" || a != b {
		t.Errorf("the strict row moved with judgments: %q → %q", a, b)
	}
}

// With judgments, --misses also lists each question whose first three
// notes hold no answer in the judged reading, with how many of those notes
// have a section holding every question word the answering section holds,
// and the note@3 a ranking by which words a section holds could reach at
// most: the questions where all three do cannot be brought into the first
// three by such a ranking.
func TestMisses_JudgedNote3MissesAndWhatWordsCanReach(t *testing.T) {
	ctx := context.Background()
	ix := missesIndex(t, map[string]string{
		"answer.md": "# Answer\n\n## Rollback\n\nRevert the tag.\n",
		"b.md":      "# B\n\nRevert the tag, then redeploy.\n",
		"c.md":      "# C\n\nRevert every tag.\n",
		"d.md":      "# D\n\nThe tag is reverted, revert it again.\n",
		"e.md":      "# E\n\nNothing of the kind.\n",
	})
	j := eval.Judgments{}
	m := tableMisses{vault: "v", questions: 3}
	for _, a := range []eval.Answer{
		// b, c and d each hold "revert" and "tag", all the answer holds.
		{Question: eval.Question{Query: "revert the tag", Expected: "answer.md#Rollback"}, Delivered: []string{"b.md#B", "c.md#C", "d.md#D", "answer.md#Rollback"}},
		// e holds neither: the answer could pass it.
		{Question: eval.Question{Query: "revert the tag", Expected: "answer.md#Rollback"}, Delivered: []string{"b.md#B", "c.md#C", "e.md#E"}},
		// The answer's note is second: no miss.
		{Question: eval.Question{Query: "revert the tag", Expected: "answer.md#Rollback"}, Delivered: []string{"b.md#B", "answer.md#Rollback"}},
	} {
		f, _ := j.Read(a.Question, eval.RankedFromSections(a.Delivered))
		if err := m.addJudged(ctx, ix, "set.jsonl", a, f); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	printJudgedMisses(&out, []tableMisses{m})
	got := out.String()
	for _, want := range []string{
		"| v | set.jsonl | revert the tag | answer.md#Rollback | b.md; c.md; d.md | 3 |",
		"| v | set.jsonl | revert the tag | answer.md#Rollback | b.md; c.md; e.md | 2 |",
		// 3 questions, 2 misses, 1 out of reach: at most 2 of 3.
		"| v | 3 | 2 | 1 | 0.667 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("--misses lacks %q:\n%s", want, got)
		}
	}
	var none bytes.Buffer
	printJudgedMisses(&none, []tableMisses{{vault: "w", questions: 3}})
	if none.Len() != 0 {
		t.Errorf("a vault without judgments got a judged list:\n%s", none.String())
	}
}

// missesIndex is a scratch vault of notes (path: text), indexed as lore
// eval indexes a vault, closed and removed when t ends.
func missesIndex(t *testing.T, notes map[string]string) *retrieve.Memory {
	t.Helper()
	dir, cleanup, err := scratchVault("", "lore-misses-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	ix, _, err := evalIndex(context.Background(), e, dir, "lexical", 0, embed.FromConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEvalIndex(ix) })
	return ix
}

// --hold-out SEED sets half of each vault's questions aside: --misses
// lists none of them, in either of its lists, and the held-out half's
// figures get a table of their own, strict and judged, over exactly the
// questions the seed holds out. Without it there is no such table.
func TestTable_HeldOutQuestionsAreNotListed(t *testing.T) {
	all, err := eval.LoadQuestions("../../testdata/demo-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judged.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	demoTable(t, dir, all)(`, "judged": "judged.jsonl"`)
	run := func(holdOut string) string {
		return runTable(t, dir, tableRun{mode: "lexical", misses: true, holdOut: holdOut})
	}
	const seed = "7"
	held := 0
	for _, q := range all {
		if eval.HeldOut(seed, q.Query) {
			held++
		}
	}
	whole, split := run(""), run(seed)
	if strings.Contains(whole, "held out (") {
		t.Errorf("a table without --hold-out has a held-out table:\n%s", whole)
	}
	listed := 0
	for _, q := range all {
		in := strings.Contains(split, "| demo | a.jsonl | "+cell(q.Query)+" |")
		if in && eval.HeldOut(seed, q.Query) {
			t.Errorf("held-out question %q is listed by --misses", q.Query)
		}
		if in {
			listed++
		}
		if !eval.HeldOut(seed, q.Query) && strings.Contains(whole, "| demo | a.jsonl | "+cell(q.Query)+" |") && !in {
			t.Errorf("read question %q is a miss without --hold-out and not listed with it", q.Query)
		}
	}
	if listed == 0 {
		t.Errorf("--misses lists no question of the read half:\n%s", split)
	}
	var row string
	lines := strings.Split(split, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "| vault | questions held out |") && i+2 < len(lines) {
			row = lines[i+2]
		}
	}
	if !strings.HasPrefix(row, fmt.Sprintf("| demo | %d | ", held)) {
		t.Errorf("held-out row %q, want one over the %d questions seed %s holds out:\n%s", row, held, seed, split)
	}
	// With no judgments beyond the questions' own places, the judged
	// reading is the strict one: the row's judged figures repeat its
	// strict ones.
	c := strings.Split(strings.Trim(row, "| "), " | ")
	if len(c) != 8 || c[2] != c[5] || c[3] != c[6] || c[4] != c[7] {
		t.Errorf("held-out row %q: with an empty judgments file, want judged figures equal to the strict ones", row)
	}
}

// demoTable writes the questions qs as the set a.jsonl in dir, and returns
// a function that writes dir/table.json: one vault, the demo, with that set
// and the extra fields given (`, "judged": "FILE"`, or none).
func demoTable(t *testing.T, dir string, qs []eval.Question) func(extra string) {
	t.Helper()
	var b strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&b, "{\"query\": %q, \"project\": %q, \"expected\": %q}\n", q.Query, q.Project, q.Expected)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("../../testdata/demo-vault")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := filepath.Rel(dir, abs)
	if err != nil {
		t.Fatal(err)
	}
	return func(extra string) {
		table := fmt.Sprintf(`{"vaults": [{"name": "demo", "dir": %q, "sets": ["a.jsonl"]%s}]}`, demo, extra)
		if err := os.WriteFile(filepath.Join(dir, "table.json"), []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runTable runs lore eval --table on dir/table.json and returns what it
// printed.
func runTable(t *testing.T, dir string, run tableRun) string {
	t.Helper()
	var out bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	if err := evalTable(context.Background(), e, run, filepath.Join(dir, "table.json")); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
