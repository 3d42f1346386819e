package activity

import (
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A log that holds only the memory tool's text content (Claude Code's
// does) still gives the request's fragments and removed units: the text is
// lore's rendering, read back (the run is then found by its query).
func TestApplyResult_ReadsTheTextRendering(t *testing.T) {
	act := &vault.Activation{NextState: "las2.x", RunID: "run_7", Removed: []string{"mem_z/a/0/0"}, Fragments: []vault.Fragment{
		{Action: "add", UnitKey: "mem_0008/rules/0/0", ResourceID: "mem_0008", Path: "decisions/0008-sql.md",
			HeadingPath: []string{"ADR 0008", "Rules"}, Content: "## Rules\n\n- deny: `SELECT * FROM`"},
	}}
	var a Activation
	applyResult(&a, map[string]any{"content": []any{map[string]any{"type": "text", "text": act.Text()}}}, false)
	if a.Status != "ok" || len(a.Fragments) != 1 || len(a.Removed) != 1 {
		t.Fatalf("read %+v", a)
	}
	f := a.Fragments[0]
	if f.Path != "decisions/0008-sql.md" || f.Content != act.Fragments[0].Content ||
		len(f.HeadingPath) != 2 || f.HeadingPath[1] != "Rules" || f.From != "result" {
		t.Errorf("fragment %+v", f)
	}
}
