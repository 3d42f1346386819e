package eval

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/shareddata"
	"github.com/lore-memory/lore/vault"
)

// hubQuestions is the question set on the Obsidian Hub (testdata/hub): the
// questions a user of that vault asks, each with the note and section that
// answers it, written from reading the notes before any ranking change.
const hubQuestions = "../testdata/hub/questions.jsonl"

// TestHubQuestions_EveryAnswerIsASectionOfTheHub keeps the question set
// true to the vault: every expected path is a note of the Obsidian Hub and
// every expected heading one of its sections, as lore parses it.
func TestHubQuestions_EveryAnswerIsASectionOfTheHub(t *testing.T) {
	qs, err := LoadQuestions(hubQuestions)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 50 {
		t.Fatalf("%d questions; the set has at least 50", len(qs))
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
		r, err := vault.Parse(p, data)
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
