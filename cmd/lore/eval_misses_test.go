package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval"
)

// --misses sets plain FTS5's first section beside each miss, marks the
// misses plain FTS5 put first, and counts both ways: the misses plain FTS5
// had first, and the questions lore had first that plain FTS5 did not.
func TestMisses_PlainFTS5BesideEachMiss(t *testing.T) {
	answers := []eval.Answer{
		{Question: eval.Question{Query: "rollback", Expected: "a.md#Rollback"}, Rank: 2, Delivered: []string{"a.md#Release", "a.md#Rollback"}},
		{Question: eval.Question{Query: "release", Expected: "a.md#Release"}, Rank: 0, Delivered: []string{"a.md#Rollback"}},
		{Question: eval.Question{Query: "deploy", Expected: "b.md#Deploy"}, Rank: 1, Delivered: []string{"b.md#Deploy"}},
		{Question: eval.Question{Query: "tag", Expected: "a.md#Tag"}, Rank: 1, Delivered: []string{"a.md#Tag"}},
	}
	fts5 := []string{"a.md#Rollback", "b.md#Deploy", "b.md#Deploy", "a.md#Release"}
	var m tableMisses
	m.vault = "v"
	if err := m.add(context.Background(), nil, "set.jsonl", answers, fts5); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printMisses(&out, []tableMisses{m})
	got := out.String()
	for _, want := range []string{
		"| v | set.jsonl | rollback | a.md#Rollback | a.md#Release | another section of the right note | **the answer** |",
		"| v | set.jsonl | release | a.md#Release | a.md#Rollback | another section of the right note | b.md#Deploy |",
		// 4 questions, 2 not first (both in the right note), 1 of them
		// first in plain FTS5; 1 first in lore and not in plain FTS5 (tag).
		"| v | 4 | 2 | 2 | 0 | 0 | 0 | 1 | 1 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("--misses lacks %q:\n%s", want, got)
		}
	}
}
