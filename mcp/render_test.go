package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// activate's structuredContent is the activation's own JSON, with a note's
// "<" and "&" as written (as every other result is encoded), and its text
// content is the rendering.
func TestRenderActivation_StructuredIsTheJSONTextIsTheRendering(t *testing.T) {
	a := &vault.Activation{IndexRevision: "search_1", Profile: "agent_activation.v2", NextState: "las2.x", Removed: []string{},
		Fragments: []vault.Fragment{{Action: "add", UnitKey: "mem_a/s/0/0", Path: "a.md", HeadingPath: []string{"A", "S"}, Content: "## S\n\nif a < b && c > d"}}}
	text, structured, err := RenderActivation(a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(structured, `if a < b && c > d`) {
		t.Errorf("structuredContent escapes the note's text: %s", structured)
	}
	var back vault.Activation
	if err := json.Unmarshal([]byte(structured), &back); err != nil || back.Fragments[0].Content != a.Fragments[0].Content || back.NextState != "las2.x" || back.Profile != a.Profile {
		t.Errorf("structuredContent does not decode to the activation: %v %+v", err, back)
	}
	if text != a.Text() {
		t.Errorf("text content %q, want the rendering %q", text, a.Text())
	}
}

// A fragment whose citations of code broke says so in what the model
// reads first: the structuredContent's "stale", before the text, with what
// the note and the commit wrote shown visibly; the text content carries the
// marker line.
func TestRenderActivation_StaleBeforeTheText(t *testing.T) {
	a := &vault.Activation{NextState: "las2.x", Removed: []string{}, Fragments: []vault.Fragment{{Action: "add", Path: "a.md", HeadingPath: []string{"A"}, Content: "`backoffFor` caps it",
		Stale: []vault.CodeFinding{{Cites: "backoffFor", Kind: "identifier", Problem: vault.ProblemIdentifier, Path: "sync/retry.go", Commit: "3f2a1c9aa", Date: "2026-11-02", Author: "Ada\x1b[2J"}}}}}
	text, structured, err := RenderActivation(a)
	if err != nil {
		t.Fatal(err)
	}
	s, c := strings.Index(structured, `"stale":[{"cites":"backoffFor","kind":"identifier","problem":"identifier_removed"`), strings.Index(structured, `"content":`)
	if s < 0 || c < s {
		t.Errorf("no stale before the content: %s", structured)
	}
	if strings.Contains(structured, "\x1b") || strings.Contains(structured, `\u001b`) || !strings.Contains(structured, "Ada^[[2J") {
		t.Errorf("the author's escape is not shown visibly: %s", structured)
	}
	if !strings.Contains(text, vault.StaleLead+"cites `backoffFor` in sync/retry.go, removed in 3f2a1c9 on 2026-11-02") {
		t.Errorf("no marker in the text: %s", text)
	}
}
