package hook

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// Memory's text reads back as what it rendered: run id, each fragment's
// action, path, headings and text (blank lines, Chinese and a line that
// looks like a header inside a text included), and the removed labels;
// reused and Draft fragments are left out, and other text is not lore's.
func TestMemory_ReadsBack(t *testing.T) {
	act := &vault.Activation{RunID: "run_01abc", Fragments: []vault.Fragment{
		{Action: "add", Path: "howto/release.md", HeadingPath: []string{"How to release", "Before the release"}, Content: "## Before the release\n\nRun make test.\n[add] not a header: no blank line before it\n"},
		{Action: "reuse", Path: "howto/release.md", HeadingPath: []string{"How to release", "Cutting"}},
		{Action: "add", Path: "drafts.md", Content: "a Draft's text", DraftID: "drf_1"},
		{Action: "replace", Path: "architecture/检索设计.md", HeadingPath: []string{"检索设计"}, Content: "一次 activate 调用依次完成。"},
	}, Removed: []string{"k1", "k2"}, RemovedLabels: []string{"a.md › A", "b.md"}}
	text := Memory(act)
	if !strings.HasPrefix(text, PromptLead+" (run run_01abc; ") {
		t.Fatalf("lead: %q", text)
	}
	got, ok := ParseMemory("\n  " + text + "\n")
	if !ok {
		t.Fatalf("not read back:\n%s", text)
	}
	want := &vault.Activation{RunID: "run_01abc", Removed: []string{"a.md › A", "b.md"}, Fragments: []vault.Fragment{
		{Action: "add", Path: "howto/release.md", HeadingPath: []string{"How to release", "Before the release"}, Content: "## Before the release\n\nRun make test.\n[add] not a header: no blank line before it"},
		{Action: "replace", Path: "architecture/检索设计.md", HeadingPath: []string{"检索设计"}, Content: "一次 activate 调用依次完成。"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	if Memory(&vault.Activation{Fragments: []vault.Fragment{{Action: "reuse", Path: "a.md"}}}) != "" {
		t.Error("nothing new rendered something")
	}
	for _, s := range []string{"", "another hook's context", "lore: something else\n\n[add] a.md\nx", PromptLead + " (the memory tool has more):\n"} {
		if _, ok := ParseMemory(s); ok {
			t.Errorf("%q read as lore's delivery", s)
		}
	}
}
