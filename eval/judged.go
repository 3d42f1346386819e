package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// The judged reading. A question set names one section that answers each
// question: the one its question was written from. Another note or section
// may answer it as well (a plugin's own note beside the roundup line that
// names it, a locale's copy of a decision), and the strict reading counts
// that as a miss. Judgments say, for the places a ranking put where the
// figures look (the first note, the first three notes, the first section),
// whether each answers the question; they are written by reading the place
// beside the question, without being told which ranking put it there (the
// pool is lore's and plain FTS5's places together, written out by
// lore eval --table --unjudged). A place nobody judged counts as a miss and
// is counted, so a ranking that puts new places first shows how much of
// its reading is unjudged.

// Judgment is one line of a judgments file: whether a note (its path) or a
// section (path#Heading) answers a question.
type Judgment struct {
	Query   string `json:"query"`
	Note    string `json:"note,omitempty"`
	Section string `json:"section,omitempty"`
	Answers *bool  `json:"answers"`
	// Expected is the question's own answer, written by --unjudged for
	// whoever judges; a judgments file may keep it, and it is not read.
	Expected string `json:"expected,omitempty"`
}

// Judgments are a vault's judgments, by question and place.
type Judgments map[judgedPlace]bool

type judgedPlace struct{ query, note, section string }

// LoadJudgments reads a JSON Lines file of judgments. A line that names
// neither or both of a note and a section, has no verdict, or says the
// opposite of an earlier line about the same place is an error naming the
// line.
func LoadJudgments(path string) (Judgments, error) {
	j := Judgments{}
	err := readJSONL(path, func(b []byte) error {
		var l Judgment
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(l.Query) == "":
			return fmt.Errorf("query is empty")
		case (l.Note == "") == (l.Section == ""):
			return fmt.Errorf("a judgment names one note or one section")
		case l.Section != "" && !strings.Contains(l.Section, "#"):
			return fmt.Errorf("section %q is not path#Heading", l.Section)
		case l.Answers == nil:
			return fmt.Errorf("answers is missing: true or false")
		}
		k := judgedPlace{l.Query, l.Note, l.Section}
		if was, ok := j[k]; ok && was != *l.Answers {
			return fmt.Errorf("judged again the other way: %s%s", l.Note, l.Section)
		}
		if err := j.agrees(k, *l.Answers); err != nil {
			return err
		}
		j[k] = *l.Answers
		return nil
	})
	return j, err
}

// agrees says whether judging k so agrees with the rule's last clause
// (docs/decisions/judged-reading.md): a note with a section judged to
// answer answers, so no section of a note judged not to answer does.
func (j Judgments) agrees(k judgedPlace, answers bool) error {
	if k.section != "" {
		note, _, _ := strings.Cut(k.section, "#")
		if a, ok := j[judgedPlace{k.query, note, ""}]; answers && ok && !a {
			return fmt.Errorf("section %s is judged to answer, and its note not to: a note with a section that answers answers", k.section)
		}
		return nil
	}
	if answers {
		return nil
	}
	if s, ok := j.answeringSection(k.query, k.note); ok {
		return fmt.Errorf("note %s is judged not to answer, and its section %s to: a note with a section that answers answers", k.note, s)
	}
	return nil
}

// answeringSection is a section of the note at path judged to answer
// query, if there is one.
func (j Judgments) answeringSection(query, path string) (string, bool) {
	for k, a := range j {
		if a && k.query == query && strings.HasPrefix(k.section, path+"#") {
			return k.section, true
		}
	}
	return "", false
}

// Ranked is what one ranking put first for a question: sections
// ("path#Heading") in order, and notes (paths) in order.
type Ranked struct {
	Notes, Sections []string
}

// RankedFromSections is a ranking of sections read as notes too: each
// note at its first section.
func RankedFromSections(sections []string) Ranked {
	r := Ranked{Sections: sections}
	seen := map[string]bool{}
	for _, s := range sections {
		p, _, _ := strings.Cut(s, "#")
		if !seen[p] {
			seen[p] = true
			r.Notes = append(r.Notes, p)
		}
	}
	return r
}

// JudgedFigures are one question's figures in the judged reading: its
// first note, one of its first three notes and its first section answer
// the question (the expected place, or one judged to answer).
type JudgedFigures struct {
	Note1, Note3, Section1 bool
}

// note says whether the note at path answers q: it is the expected note,
// it was judged to, or a section of it was; judged false, or not judged
// (second result false).
func (j Judgments) note(q Question, path string) (answers, judged bool) {
	want, _, _ := strings.Cut(q.Expected, "#")
	if path == want {
		return true, true
	}
	if a, ok := j[judgedPlace{q.Query, path, ""}]; ok {
		return a, true
	}
	_, ok := j.answeringSection(q.Query, path)
	return ok, ok
}

// section says whether the section answers q: it is the expected one or
// was judged to; a section of a note judged not to answer does not.
func (j Judgments) section(q Question, s string) (answers, judged bool) {
	if s == q.Expected {
		return true, true
	}
	if a, ok := j[judgedPlace{q.Query, "", s}]; ok {
		return a, true
	}
	p, _, _ := strings.Cut(s, "#")
	if a, ok := j[judgedPlace{q.Query, p, ""}]; ok && !a {
		return false, true
	}
	return false, false
}

// Read is q's figures for the ranking r, and the places the figures needed
// that nobody judged (each counted as not answering).
func (j Judgments) Read(q Question, r Ranked) (f JudgedFigures, unjudged []Judgment) {
	ask := func(note, section string) {
		unjudged = append(unjudged, Judgment{Query: q.Query, Note: note, Section: section, Expected: q.Expected})
	}
	for i, n := range r.Notes {
		if i == 3 {
			break
		}
		a, ok := j.note(q, n)
		if !ok {
			ask(n, "")
		}
		if a {
			f.Note1 = f.Note1 || i == 0
			f.Note3 = true
			break
		}
	}
	if len(r.Sections) > 0 {
		a, ok := j.section(q, r.Sections[0])
		if !ok {
			ask("", r.Sections[0])
		}
		f.Section1 = a
	}
	return f, unjudged
}

// JudgedTotals sum a set of questions' judged figures, and the places not
// judged.
type JudgedTotals struct {
	Questions, Note1, Note3, Section1, Unjudged int
}

// Add counts one question's figures.
func (t *JudgedTotals) Add(f JudgedFigures, unjudged int) {
	t.Questions++
	t.Unjudged += unjudged
	for _, c := range []struct {
		hit bool
		n   *int
	}{{f.Note1, &t.Note1}, {f.Note3, &t.Note3}, {f.Section1, &t.Section1}} {
		if c.hit {
			*c.n++
		}
	}
}

// Shares are note@1, note@3 and section@1 as shares of the questions.
func (t JudgedTotals) Shares() [3]float64 {
	if t.Questions == 0 {
		return [3]float64{}
	}
	k := float64(t.Questions)
	return [3]float64{float64(t.Note1) / k, float64(t.Note3) / k, float64(t.Section1) / k}
}

// Pool is the places to judge, each once, in a stable order (query, then
// notes before sections, then place), with no word of which ranking put
// them there.
func Pool(places []Judgment) []Judgment {
	seen := map[judgedPlace]bool{}
	var out []Judgment
	for _, p := range places {
		k := judgedPlace{p.Query, p.Note, p.Section}
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Query != y.Query {
			return x.Query < y.Query
		}
		if (x.Note == "") != (y.Note == "") {
			return x.Note != ""
		}
		return x.Note+x.Section < y.Note+y.Section
	})
	return out
}

// WritePlaces writes places to judge to path, one JSON line each with
// answers null, for a person to judge (scripts/eval/places.py) and add to
// the vault's judgments file. With none, there is no file, and an earlier
// run's there is removed (judged and merged since, it would be judged
// again). The file is whole or absent.
func WritePlaces(path string, places []Judgment) error {
	if len(places) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, p := range places {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return vault.WriteFileAtomic(path, []byte(b.String()))
}
