package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// What came first when the answering section did not (lore eval --table
// --misses), in the order the summary counts them.
const (
	missRightNote = "another section of the right note"
	missCopy      = "the answer's text, from another note" // byte for byte: a copy
	missOther     = "another note"
	missNothing   = "nothing"
)

var missKinds = []string{missRightNote, missCopy, missOther, missNothing}

// fts5Right marks a miss plain FTS5 put first.
const fts5Right = "**the answer**"

// tableMisses are one vault's questions whose answering section was not
// delivered first, with what was.
type tableMisses struct {
	vault     string
	questions int
	rows      []missRow
	// lostByFTS5 counts the questions whose answering section lore put
	// first and plain FTS5 did not.
	lostByFTS5 int
}

type missRow struct {
	set, query, expected, first, kind string
	fts5                              string // plain FTS5's first section
}

// add records the misses among one set's answers, with the section plain
// FTS5 put first for each (fts5First, in the answers' order). A first
// section of another note is the answer's copy when its text is byte for
// byte the answering section's (the note is read back from the index and
// parsed as the index parsed it).
func (t *tableMisses) add(ctx context.Context, m *retrieve.Memory, set string, answers []eval.Answer, fts5First []string) error {
	t.questions += len(answers)
	for i, a := range answers {
		if a.Rank == 1 {
			if i < len(fts5First) && fts5First[i] != a.Expected {
				t.lostByFTS5++
			}
			continue
		}
		r := missRow{set: set, query: a.Query, expected: a.Expected, kind: missNothing}
		if i < len(fts5First) {
			r.fts5 = fts5First[i]
		}
		if len(a.Delivered) > 0 {
			r.first = a.Delivered[0]
			wantPath, wantHeading, _ := strings.Cut(a.Expected, "#")
			firstPath, _, _ := strings.Cut(r.first, "#")
			r.kind = missRightNote
			if firstPath != wantPath {
				copyOf, err := sectionHashes(ctx, m, wantPath, wantHeading)
				if err != nil {
					return err
				}
				r.kind = missOther
				if copyOf[a.FirstHash] {
					r.kind = missCopy
				}
			}
		}
		t.rows = append(t.rows, r)
	}
	return nil
}

// sectionHashes are the content hashes of the sections of the note at path
// whose own heading is heading ("" for the text before the first one).
func sectionHashes(ctx context.Context, m *retrieve.Memory, path, heading string) (map[string]bool, error) {
	out := map[string]bool{}
	loaded, err := m.Load(ctx, []string{path}, "")
	if vault.ErrorCode(err) == vault.CodeNotFound || err == nil && len(loaded) == 0 {
		return out, nil // not a note of the vault: nothing is its copy
	}
	if err != nil {
		return nil, err
	}
	r, err := markdown.Parse(path, []byte(loaded[0].Content))
	if err != nil {
		return out, nil // a note the index skipped: it delivered none of its text
	}
	for _, u := range r.Units {
		own := ""
		if n := len(u.HeadingPath); n > 0 {
			own = u.HeadingPath[n-1]
		}
		if own == heading {
			out[u.ContentHash] = true
		}
	}
	return out, nil
}

// printMisses writes each vault's misses, then a count of them by kind.
func printMisses(w io.Writer, vaults []tableMisses) {
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	fmt.Fprintln(w, "\nquestions whose answering section was not first (--misses)")
	fmt.Fprintln(w, "\n| vault | set | question | answering section | first delivered | what came first | plain FTS5's first |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, v := range vaults {
		for _, r := range v.rows {
			fts5 := cell(r.fts5)
			if r.fts5 == r.expected {
				fts5 = fts5Right
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", v.vault, r.set, cell(r.query), cell(r.expected), cell(r.first), r.kind, fts5)
		}
	}
	fmt.Fprintf(w, "\n| vault | questions | not first | %s | of them, first in plain FTS5 | first in lore, not in plain FTS5 |\n", strings.Join(missKinds, " | "))
	fmt.Fprintln(w, "|---|---|---|"+strings.Repeat("---|", len(missKinds)+2))
	for _, v := range vaults {
		counts := map[string]int{}
		won := 0
		for _, r := range v.rows {
			counts[r.kind]++
			if r.fts5 == r.expected {
				won++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d |", v.vault, v.questions, len(v.rows))
		for _, k := range missKinds {
			fmt.Fprintf(w, " %d |", counts[k])
		}
		fmt.Fprintf(w, " %d | %d |\n", won, v.lostByFTS5)
	}
}
