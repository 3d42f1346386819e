package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeJudgments(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "judged.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A place judged to answer counts as the answer for note@1, note@3 and
// section@1; one judged not to, or never judged, does not, and a place
// never judged is handed back to be judged.
func TestJudgments_APlaceJudgedToAnswerCounts(t *testing.T) {
	j, err := LoadJudgments(writeJudgments(t,
		`{"query": "encrypt my notes", "note": "plugins/inline-encrypter.md", "answers": true}`,
		`{"query": "encrypt my notes", "note": "plugins/calendar.md", "answers": false}`,
		`{"query": "encrypt my notes", "section": "plugins/inline-encrypter.md#Inline Encrypter", "answers": true}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	q := Question{Query: "encrypt my notes", Expected: "plugins/meld-encrypt.md#Meld Encrypt"}

	f, u := j.Read(q, RankedFromSections([]string{"plugins/inline-encrypter.md#Inline Encrypter", "plugins/meld-encrypt.md#Meld Encrypt"}))
	if !f.Note1 || !f.Note3 || !f.Section1 || len(u) != 0 {
		t.Errorf("a note and section judged to answer first: %+v, unjudged %v; want all three figures and nothing to judge", f, u)
	}

	f, u = j.Read(q, RankedFromSections([]string{"plugins/calendar.md#Calendar", "plugins/other.md#Other", "plugins/meld-encrypt.md#Meld Encrypt"}))
	if f.Note1 || !f.Note3 || f.Section1 {
		t.Errorf("a note judged not to answer first, the answer third: %+v; want note@3 only", f)
	}
	// The calendar note was judged not to answer, so its section needs
	// no judgment; the second note was never judged.
	if len(u) != 1 || u[0].Note != "plugins/other.md" || u[0].Expected != q.Expected {
		t.Errorf("unjudged %+v: want the second note alone, with the question's own answer", u)
	}

	f, u = j.Read(q, RankedFromSections([]string{"plugins/x.md#X", "plugins/y.md#Y", "plugins/z.md#Z", "plugins/meld-encrypt.md#Meld Encrypt"}))
	if f.Note1 || f.Note3 || f.Section1 || len(u) != 4 {
		t.Errorf("three unjudged notes, the answer fourth: %+v, unjudged %v; want no figure and four places to judge (three notes, one section)", f, u)
	}
}

// A section judged to answer makes its note answer; the question's own
// note answers, and another section of it is judged on its own.
func TestJudgments_SectionsAndTheirNotes(t *testing.T) {
	j, err := LoadJudgments(writeJudgments(t,
		`{"query": "q", "section": "b.md#Setup", "answers": true}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	q := Question{Query: "q", Expected: "a.md#Use"}
	if f, _ := j.Read(q, Ranked{Notes: []string{"b.md"}, Sections: []string{"b.md#Setup"}}); !f.Note1 || !f.Section1 {
		t.Errorf("a note whose section was judged to answer: %+v; want it to answer", f)
	}
	f, u := j.Read(q, RankedFromSections([]string{"a.md#Other"}))
	if !f.Note1 || f.Section1 || len(u) != 1 || u[0].Section != "a.md#Other" {
		t.Errorf("another section of the question's own note: %+v, unjudged %v; want note@1, and the section to judge", f, u)
	}
}

// A judgments file that says nothing clear is an error naming its line.
func TestLoadJudgments_BadLinesAreNamed(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"query": "q", "note": "a.md"}`, "answers is missing"},
		{`{"query": "q", "note": "a.md", "section": "a.md#X", "answers": true}`, "one note or one section"},
		{`{"query": "q", "answers": true}`, "one note or one section"},
		{`{"query": "q", "section": "a.md", "answers": true}`, "not path#Heading"},
		{`{"query": "", "note": "a.md", "answers": true}`, "query is empty"},
		{`{"query": "q", "note": "a.md", "answers": true, "why": "x"}`, "unknown field"},
	} {
		_, err := LoadJudgments(writeJudgments(t, c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: error %v, want one naming line 1 and %q", c.line, err, c.want)
		}
	}
	_, err := LoadJudgments(writeJudgments(t,
		`{"query": "q", "note": "a.md", "answers": true}`,
		`{"query": "q", "note": "a.md", "answers": false}`,
	))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a place judged both ways: error %v, want one naming line 2", err)
	}
	// A note with a section that answers answers: a section judged to
	// answer in a note judged not to is an error, in either order.
	for _, lines := range [][]string{{
		`{"query": "q", "note": "a.md", "answers": false}`,
		`{"query": "q", "section": "a.md#Sets", "answers": true}`,
	}, {
		`{"query": "q", "section": "a.md#Sets", "answers": true}`,
		`{"query": "q", "note": "a.md", "answers": false}`,
	}} {
		_, err := LoadJudgments(writeJudgments(t, lines...))
		if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "a.md#Sets") {
			t.Errorf("%v: error %v, want one naming line 2 and the section", lines, err)
		}
	}
	// Another question's, or another note's, judgments do not conflict.
	if _, err := LoadJudgments(writeJudgments(t,
		`{"query": "q", "note": "a.md", "answers": false}`,
		`{"query": "other", "section": "a.md#Sets", "answers": true}`,
		`{"query": "q", "section": "ab.md#Sets", "answers": true}`,
	)); err != nil {
		t.Errorf("judgments of another question or note: %v", err)
	}
}

// The pool to judge holds each place once and does not say which ranking
// put it there.
func TestPool_EachPlaceOnce(t *testing.T) {
	p := Pool([]Judgment{
		{Query: "b", Section: "x.md#S"},
		{Query: "a", Note: "y.md"},
		{Query: "b", Note: "x.md"},
		{Query: "a", Note: "y.md"},
	})
	if len(p) != 3 || p[0].Query != "a" || p[1].Note != "x.md" || p[2].Section != "x.md#S" {
		t.Errorf("pool %+v: want a's note, then b's note before its section, each once", p)
	}
}

// Every judgments file the table names loads, and each of its judgments is
// about a question one of that vault's sets asks: a judgment of a question
// since reworded would never be read again. Judgments are keyed by the
// question's text, so no vault may ask one text for two answers.
func TestJudgments_EveryQueryIsAQuestionOfItsVault(t *testing.T) {
	table, err := LoadTable("../testdata/eval/table.json")
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, v := range table.Vaults {
		if v.Judged == "" {
			continue
		}
		judged++
		j, err := LoadJudgments(v.Judged)
		if err != nil {
			t.Fatal(err)
		}
		asked := map[string]string{}
		for _, set := range v.Sets {
			qs, err := LoadQuestions(set)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range qs {
				if was, ok := asked[q.Query]; ok && was != q.Expected {
					t.Errorf("%s: %q is asked for %s and for %s", v.Name, q.Query, was, q.Expected)
				}
				asked[q.Query] = q.Expected
			}
		}
		if len(j) == 0 {
			t.Errorf("%s: %s holds no judgment", v.Name, v.Judged)
		}
		for k := range j {
			if _, ok := asked[k.query]; !ok {
				t.Errorf("%s: a judgment of %q, which no set of the vault asks", v.Name, k.query)
			}
		}
	}
	if judged == 0 {
		t.Error("the table names no judgments file")
	}
}
