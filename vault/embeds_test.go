package vault

import (
	"strings"
	"testing"
)

// A heading embed shows what Obsidian shows: the heading's section with
// every subsection under it, up to the next heading of the same or a higher
// level. "A#B" names the heading B under A, as Obsidian's nested anchors do.
func TestEmbedPart_AHeadingShowsItsSubsections(t *testing.T) {
	note := []byte("---\ntags: [x]\n---\n# Alpha\n\nLead.\n\n## Setup\n\nInstall the frobnicator.\n\n### Linux\n\nRun apt install frob.\n\n#### Arm\n\nUse the arm64 package.\n\n### Mac\n\nRun brew install frob.\n\n## Other\n\nUnrelated text.\n\n### Setup\n\nThe other setup.\n")
	for _, c := range []struct {
		anchor    string
		want, not []string
	}{
		{"Setup", []string{"## Setup\n\nInstall the frobnicator.", "### Linux\n\nRun apt install frob.", "#### Arm\n\nUse the arm64 package.", "### Mac\n\nRun brew install frob."}, []string{"## Other", "Unrelated", "The other setup", "Lead."}},
		{"setup", []string{"Install the frobnicator.", "Run brew install frob."}, []string{"Unrelated"}},
		{"Linux", []string{"### Linux\n\nRun apt install frob.", "Use the arm64 package."}, []string{"### Mac", "Install the frobnicator."}},
		{"Mac", []string{"Run brew install frob."}, []string{"## Other", "Unrelated"}},
		{"Other#Setup", []string{"The other setup."}, []string{"Install the frobnicator.", "Unrelated text."}},
		{"Setup#Linux#Arm", []string{"Use the arm64 package."}, []string{"Run apt install frob."}},
		{"Alpha", []string{"Lead.", "Install the frobnicator.", "Run brew install frob.", "Unrelated text.", "The other setup."}, []string{"tags:"}},
	} {
		got, ok := EmbedPart(note, "a.md", c.anchor)
		if !ok {
			t.Errorf("%s: not found", c.anchor)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", c.anchor, w, got)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: has %q:\n%s", c.anchor, n, got)
			}
		}
	}
	for _, anchor := range []string{"Nothing", "Mac#Linux", "Other#Arm"} {
		if got, ok := EmbedPart(note, "a.md", anchor); ok {
			t.Errorf("%s: found %q, want nothing", anchor, got)
		}
	}
}

// A section that embeds a heading its own section lies under embeds itself.
func TestSelfEmbed_AnEnclosingHeadingIsACycle(t *testing.T) {
	for _, c := range []struct {
		target  string
		heading []string
		want    bool
	}{
		{"a", []string{"Alpha", "Setup"}, true},
		{"a#Setup", []string{"Alpha", "Setup"}, true},
		{"a#Alpha", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Setup", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Alpha#Setup", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Mac", []string{"Alpha", "Setup", "Linux"}, false},
		{"a#Linux", []string{"Alpha", "Setup"}, false},
	} {
		if got := SelfEmbed("a.md", c.target, "a.md", c.heading); got != c.want {
			t.Errorf("SelfEmbed(%q, %v) = %v, want %v", c.target, c.heading, got, c.want)
		}
	}
	if SelfEmbed("b.md", "b#Setup", "a.md", []string{"Alpha", "Setup"}) {
		t.Error("another note's heading of the same name is not a cycle")
	}
}
