package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// LoadQuestions names the line of a malformed question; ScoreQuestions
// finds where the expected section was delivered and counts the tokens of
// what was rendered.
func TestQuestions_LoadAndScore(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"query\":\"q\",\"expected\":\"a.md#A\"}\n{\"query\":\"q\",\"expected\":\"no heading\"}\n"), 0o644)
	if _, err := LoadQuestions(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a question without path#Heading: %v; want an error naming line 2", err)
	}
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte("{\"query\":\"sync retries back off\",\"project\":\"\",\"expected\":\"a.md#Retries\"}\n{\"query\":\"cache invalidation\",\"project\":\"\",\"expected\":\"a.md#Retries\"}\n"), 0o644)
	qs, err := LoadQuestions(good)
	if err != nil || len(qs) != 2 {
		t.Fatalf("LoadQuestions = %v, %v", qs, err)
	}
	ix := openIndex(t, map[string]string{
		"a.md": "---\nid: mem_a\n---\n# Alpha\n\n## Retries\n\nsync retries back off exponentially\n",
		"b.md": "---\nid: mem_b\n---\n# Beta\n\n## Cache\n\ncache invalidation is hard\n",
	})
	render := func(a *vault.Activation) (string, string, error) { return "xxxx " + a.Fragments[0].Content, "{}", nil }
	m, err := ScoreQuestions(context.Background(), ix, qs, render)
	if err != nil {
		t.Fatal(err)
	}
	if m.Questions != 2 || m.Success1 != 0.5 || m.Answers[0].Rank != 1 || m.Answers[1].Rank != 0 || m.Answers[0].NoteRank != 1 {
		t.Fatalf("metrics %+v", m)
	}
	// Search is scored the same way, at section and at note level.
	sm, err := ScoreSearch(context.Background(), ix, qs, 10)
	if err != nil {
		t.Fatal(err)
	}
	if sm.Questions != 2 || sm.Answers[0].Rank != 1 || sm.Answers[0].NoteRank != 1 || sm.Answers[1].Rank != 0 || sm.Answers[1].NoteRank != 0 {
		t.Fatalf("search metrics %+v", sm)
	}
	content := "## Retries\n\nsync retries back off exponentially"
	if a := m.Answers[0]; a.ContentTokens != vault.EstimateTokens(content) || a.TextTokens != vault.EstimateTokens("xxxx "+content) || a.WireBytes != len("xxxx "+content)+len("{}") {
		t.Errorf("token counts %+v", a)
	}
}
