package synth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/convo is the generator's output for seed 1: regenerate it with
// `UPDATE_CONVO=1 go test ./eval/synth` after changing the generator.
func TestConversations_TestdataIsTheGeneratorsOutput(t *testing.T) {
	dir := t.TempDir()
	if err := Conversations(dir, 1); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join("..", "..", "testdata", "convo", name)
		if os.Getenv("UPDATE_CONVO") != "" {
			os.WriteFile(p, got, 0o644)
			continue
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the generator's output (regenerate with UPDATE_CONVO=1 go test ./eval/synth)", p)
		}
	}
}

// Every question has an answer, every answer is a turn of the corpus, and
// a two-turn question names two different turns.
func TestConversations_QuestionsAreAnswered(t *testing.T) {
	dir := t.TempDir()
	if err := Conversations(dir, 7); err != nil {
		t.Fatal(err)
	}
	corpus, _ := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
	qrels, _ := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
	queries, _ := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(corpus)), "\n") {
		var d struct {
			ID string `json:"_id"`
		}
		json.Unmarshal([]byte(line), &d)
		ids[d.ID] = true
	}
	answers := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(qrels)), "\n")[1:] {
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || !ids[cols[1]] {
			t.Errorf("qrels line %q does not name a turn", line)
			continue
		}
		answers[cols[0]] = append(answers[cols[0]], cols[1])
	}
	two := 0
	for q, as := range answers {
		if len(as) == 2 {
			two++
			if as[0] == as[1] {
				t.Errorf("%s names one turn twice", q)
			}
		}
	}
	if n := len(strings.Split(strings.TrimSpace(string(queries)), "\n")); n != len(answers) || n < 50 || two < 5 {
		t.Errorf("%d questions, %d answered, %d with two turns", n, len(answers), two)
	}
}
