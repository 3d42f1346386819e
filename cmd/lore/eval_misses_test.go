package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval"
)

// --misses sets beside each miss the question's words that only the
// answering section holds (none: a ranking by which of the question's words
// a section holds cannot put it above the first) and plain FTS5's first
// section, marked when it is the answer, and counts each way: the misses
// whose answer holds no word of its own, the misses plain FTS5 had first,
// and the questions lore had first that plain FTS5 did not.
func TestMisses_OwnWordsAndPlainFTS5BesideEachMiss(t *testing.T) {
	dir, cleanup, err := scratchVault("", "lore-misses-*")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for name, text := range map[string]string{
		"a.md": "# A\n\n## Release\n\nTag the release and push it.\n\n## Rollback\n\nRevert the tag and redeploy.\n",
		"b.md": "# B\n\n## Rollback plan\n\nIf it breaks, revert the tag.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	ix, _, err := evalIndex(ctx, e, dir, "lexical", 0, embed.FromConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer closeEvalIndex(ix)
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
