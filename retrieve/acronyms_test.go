package retrieve

import (
	"reflect"
	"strings"
	"testing"
)

// A section that names the thing asked for by its acronym answers a
// question that spells the acronym out, in its heading ("Briefly, what is
// PHI?", the Obsidian Hub's HIPAA primer; "Opening PRs") and in its text
// only (the Hub's "Game Mediators" section, whose links say "DMs"); without
// the rule the section that spells the words out, about something else,
// comes first in each.
func TestActivate_AnAcronymCountsAsTheWordsItStandsFor(t *testing.T) {
	wantFirst(t, map[string]string{
		"guides/health-data.md": "# Health data primer\n\n" +
			"## What is HIPAA?\n\nHIPAA is the law on health information in the US: it says who may hold protected information about a patient's health, and how it must be protected.\n\n" +
			"## What is PHI?\n\nPHI is any record that names a patient: a chart, a lab result, a bill, an appointment.\n\n" +
			"## Backups\n\nKeep backups encrypted and off the laptop.\n",
		"guides/review.md": "# How we review\n\n" +
			"## Requests\n\nA request for a review goes to the channel; pull the branch and request changes there.\n\n" +
			"## Opening PRs\n\nOne change per PR, with its test; the title says what it does.\n",
		// The acronym in the text only: the heading says nothing of it.
		"guides/tabletop.md": "# Tabletop games\n\n" +
			"## Getting started\n\nStart with a master list of your games, and notes for each session.\n\n" +
			"## At the table\n\nLinks for DMs: prep, maps, encounters.\n",
	}, []firstCase{
		{"what counts as protected health information", "guides/health-data.md › What is PHI?"},
		{"how do I open a pull request for review", "guides/review.md › Opening PRs"},
		{"prep notes for a dungeon master", "guides/tabletop.md › At the table"},
	})
}

// Runs of two to six query words that are no stop words give the
// acronyms; a query word that is the acronym itself is a term of its own.
func TestQueryAcronyms(t *testing.T) {
	stands := func(q, acronym string) string {
		qterms := sectionQueryTerms(q)
		var w []string
		for _, i := range queryAcronyms(q, qterms).stand(strings.ToUpper(acronym)) {
			w = append(w, qterms[i].tok)
		}
		return strings.Join(w, " ")
	}
	for _, c := range []struct{ q, acronym, words string }{
		{"what counts as protected health information", "phi", "protect health inform"},
		{"what counts as protected health information", "hi", "health inform"},
		{"what counts as protected health information", "ph", "protect health"},
		// A stop word ends a run, and "counts" stands alone.
		{"what counts as protected health information", "cp", ""},
		{"what counts as protected health information", "ci", ""},
		// The query's own word "pr" is a term of its own.
		{"review a PR, pull request etiquette", "pr", ""},
		{"review a pull request", "pr", "pull request"},
		{"one two three four five six seven", "ottffs", "one two three four five six"},
		{"one two three four five six seven", "ttffss", "two three four five six seven"},
		{"检索 设计 pull request", "pr", "pull request"},
		{"检索 pull 设计 request", "pr", ""},
	} {
		if got := stands(c.q, c.acronym); got != c.words {
			t.Errorf("in %q, %s stands for %q; want %q", c.q, c.acronym, got, c.words)
		}
	}
	for _, q := range []string{"", "what is it", "health", "检索 设计", "the health of the cluster"} {
		if x := queryAcronyms(q, sectionQueryTerms(q)); x != nil {
			t.Errorf("%q has no run of two words, but acronyms %q", q, x.initials)
		}
	}
}

// An acronym is two to six capitals standing alone, with a plural s or an
// apostrophe after it; a word set in capitals, or capitals inside a word
// or a name of code, is none.
func TestEachAcronym(t *testing.T) {
	var got []string
	eachAcronym("PHI, PRs and the GM's (DM) notes; iOS, HTTPSERVER, A, x86PC, ADRs1, NPC_x, MAX_SIZE, end TTRPG", func(a string) { got = append(got, a) })
	want := []string{"PHI", "PR", "GM", "DM", "TTRPG"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("acronyms %q; want %q", got, want)
	}
}

// Whatever the query and the text, an acronym is two to six capitals of
// the text, and it stands for as many of the query's terms as it has
// letters, each with that letter first.
func FuzzAcronyms(f *testing.F) {
	f.Add("what counts as protected health information", "Briefly, what is PHI? PHIs, GM's")
	f.Add("review a pull request", "PRs\xff\xfePR_X")
	f.Add("检索 pull request 设计", "PR检索PR")
	f.Fuzz(func(t *testing.T, q, s string) {
		qterms := sectionQueryTerms(q)
		x := queryAcronyms(q, qterms)
		eachAcronym(s, func(a string) {
			if len(a) < acronymMinWords || len(a) > acronymMaxWords || strings.ToUpper(a) != a || !strings.Contains(s, a) {
				t.Fatalf("%q is no acronym of %q", a, s)
			}
			words := x.stand(a)
			if words != nil && len(words) != len(a) {
				t.Fatalf("%q stands for %d words", a, len(words))
			}
			for k, i := range words {
				if i < 0 || i >= len(qterms) || qterms[i].tok[0] != a[k]|0x20 {
					t.Fatalf("%q's letter %d stands for term %d of %v", a, k, i, qterms)
				}
			}
		})
	})
}
