package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/tokenize"
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

// fts5Right marks a miss plain FTS5 put first; ownNone a miss whose
// answering section holds no word of the question the first does not.
const (
	fts5Right = "**the answer**"
	ownNone   = "none"
)

// tableMisses are one vault's questions whose answering section was not
// delivered first, with what was.
type tableMisses struct {
	vault     string
	questions int
	rows      []missRow
	// judged are the questions the judged reading's note@3 misses (only
	// for a vault with judgments).
	judged    []judgedMiss
	hasJudged bool
	// lostByFTS5 counts the questions whose answering section lore put
	// first and plain FTS5 did not.
	lostByFTS5 int
}

// judgedMiss is a question whose first three notes hold no answer in the
// judged reading, with how many of those three notes have a section that
// holds every word of the question the answering section holds (held): with
// three, no ranking by which of the question's words a section holds can
// put the answer's note among the first three, only level with them.
type judgedMiss struct {
	set, query, expected string
	notes                []string
	held                 int
}

type missRow struct {
	set, query, expected, first, kind string
	fts5                              string // plain FTS5's first section
	// own are the question's words the answering section holds and the
	// first one does not (owned: they were compared; not for a copy, nor
	// when a note could not be read back). None: a ranking by which of
	// the question's words a section holds cannot put the answer above
	// the first.
	own   []string
	owned bool
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
			firstPath, firstHeading, _ := strings.Cut(r.first, "#")
			want, err := loadNote(ctx, m, wantPath)
			if err != nil {
				return err
			}
			first := want
			r.kind = missRightNote
			if firstPath != wantPath {
				if first, err = loadNote(ctx, m, firstPath); err != nil {
					return err
				}
				r.kind = missOther
				if slices.ContainsFunc(sectionUnits(want, wantHeading), func(u vault.Unit) bool { return u.ContentHash == a.FirstHash }) {
					r.kind = missCopy
				}
			}
			if r.kind != missCopy && want != nil && first != nil {
				q := tokenize.ContentTerms(a.Query)
				r.own = ownWords(q, sectionWords(want, wantHeading, q), sectionWords(first, firstHeading, q))
				r.owned = true
			}
		}
		t.rows = append(t.rows, r)
	}
	return nil
}

// addJudged records a in judged when its first three notes hold no
// answer in the judged reading, and how many of them have a section that
// holds every question word its answering section holds.
func (t *tableMisses) addJudged(ctx context.Context, m *retrieve.Memory, set string, a eval.Answer, f eval.JudgedFigures) error {
	t.hasJudged = true
	if f.Note3 {
		return nil
	}
	notes := eval.RankedFromSections(a.Delivered).Notes
	if len(notes) > 3 {
		notes = notes[:3]
	}
	r := judgedMiss{set: set, query: a.Query, expected: a.Expected, notes: notes}
	wantPath, wantHeading, _ := strings.Cut(a.Expected, "#")
	want, err := loadNote(ctx, m, wantPath)
	if err != nil {
		return err
	}
	q := tokenize.ContentTerms(a.Query)
	answer := sectionWords(want, wantHeading, q)
	for _, p := range notes {
		n, err := loadNote(ctx, m, p)
		if err != nil {
			return err
		}
		if n != nil && slices.ContainsFunc(headings(n), func(h string) bool { return len(ownWords(q, answer, sectionWords(n, h, q))) == 0 }) {
			r.held++
		}
	}
	t.judged = append(t.judged, r)
	return nil
}

// headings are the own headings of r's sections, each once ("" for the
// text before the first).
func headings(r *vault.Resource) []string {
	var out []string
	for _, u := range r.Units {
		if h := ownHeading(u); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// loadNote is the note at path read back from the index and parsed as the
// index parsed it; nil when the vault has no such note or the index skipped
// it.
func loadNote(ctx context.Context, m *retrieve.Memory, path string) (*vault.Resource, error) {
	loaded, err := m.Load(ctx, []string{path}, "")
	if vault.ErrorCode(err) == vault.CodeNotFound || err == nil && len(loaded) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := markdown.Parse(path, []byte(loaded[0].Content))
	if err != nil {
		return nil, nil
	}
	return r, nil
}

// sectionUnits are the units of r whose own heading is heading ("" for the
// text before the first one): the parts of one section as places name it.
func sectionUnits(r *vault.Resource, heading string) []vault.Unit {
	if r == nil {
		return nil
	}
	var out []vault.Unit
	for _, u := range r.Units {
		if ownHeading(u) == heading {
			out = append(out, u)
		}
	}
	return out
}

// ownHeading is the unit's own heading, the last of its heading path (""
// for the text before the first), as a place names its section.
func ownHeading(u vault.Unit) string {
	if n := len(u.HeadingPath); n > 0 {
		return u.HeadingPath[n-1]
	}
	return ""
}

// sectionWords are the question's words (q) that a section holds, in the
// note's path, title or meta (description, tags and keywords), the
// section's headings or its text: all a lexical ranking can see of it, the
// columns the index gives each unit (fts/refresh.go).
func sectionWords(r *vault.Resource, heading string, q map[string]bool) map[string]bool {
	out := map[string]bool{}
	see := func(s string) {
		tokenize.EachToken(s, func(t string, _ bool) {
			if q[t] {
				out[t] = true
			}
		})
	}
	units := sectionUnits(r, heading)
	if len(units) > 0 {
		see(r.Path)
		see(r.Title)
		see(strings.Join(append(append([]string{r.Description}, r.Front.Tags...), r.Front.Keywords...), " "))
	}
	for _, u := range units {
		see(strings.Join(u.HeadingPath, " "))
		see(u.Content)
	}
	return out
}

// ownWords are the question's words the answer holds and the first
// section does not, sorted.
func ownWords(q, answer, first map[string]bool) []string {
	var out []string
	for t := range answer {
		if !first[t] {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// cell is s as one cell of a Markdown table.
func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// printMisses writes each vault's misses, then a count of them by kind.
func printMisses(w io.Writer, vaults []tableMisses) {
	fmt.Fprintln(w, "\nquestions whose answering section was not first (--misses)")
	fmt.Fprintln(w, "\n| vault | set | question | answering section | first delivered | what came first | the question's words only the answer holds | plain FTS5's first |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, v := range vaults {
		for _, r := range v.rows {
			fts5 := cell(r.fts5)
			if r.fts5 == r.expected {
				fts5 = fts5Right
			}
			own := ""
			if r.owned {
				own = ownNone
				if len(r.own) > 0 {
					own = strings.Join(r.own, ", ")
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", v.vault, r.set, cell(r.query), cell(r.expected), cell(r.first), r.kind, cell(own), fts5)
		}
	}
	fmt.Fprintf(w, "\n| vault | questions | not first | %s | of them, the answer holds no word of the question the first does not | of them, first in plain FTS5 | first in lore, not in plain FTS5 |\n", strings.Join(missKinds, " | "))
	fmt.Fprintln(w, "|---|---|---|"+strings.Repeat("---|", len(missKinds)+3))
	for _, v := range vaults {
		counts := map[string]int{}
		won, none := 0, 0
		for _, r := range v.rows {
			counts[r.kind]++
			if r.fts5 == r.expected {
				won++
			}
			if r.owned && len(r.own) == 0 {
				none++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d |", v.vault, v.questions, len(v.rows))
		for _, k := range missKinds {
			fmt.Fprintf(w, " %d |", counts[k])
		}
		fmt.Fprintf(w, " %d | %d | %d |\n", none, won, v.lostByFTS5)
	}
	printJudgedMisses(w, vaults)
}

// printJudgedMisses writes, for the vaults with judgments, each question
// whose first three notes hold no answer in the judged reading, then a
// count by vault and the note@3 a ranking by which of the question's words
// a section holds could reach at most.
func printJudgedMisses(w io.Writer, vaults []tableMisses) {
	any := false
	for _, v := range vaults {
		any = any || v.hasJudged
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\nquestions whose first three notes hold no answer, judged (--misses)")
	fmt.Fprintln(w, "\n| vault | set | question | answering section | first three notes | of them, notes with a section that holds every question word the answer holds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, v := range vaults {
		for _, r := range v.judged {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d |\n", v.vault, r.set, cell(r.query), cell(r.expected), cell(strings.Join(r.notes, "; ")), r.held)
		}
	}
	fmt.Fprintln(w, "\n| vault | questions | note@3 misses, judged | of them, all three first notes hold every question word the answer holds | note@3 a ranking by which words a section holds can reach at most |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, v := range vaults {
		if !v.hasJudged || v.questions == 0 {
			continue
		}
		out := 0
		for _, r := range v.judged {
			if r.held == 3 {
				out++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.3f |\n", v.vault, v.questions, len(v.judged), out, float64(v.questions-out)/float64(v.questions))
	}
}
