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
