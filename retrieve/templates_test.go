package retrieve

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// hubFooter is the footer every Obsidian Hub note ends with: its links'
// destinations spell the note's own file name, so each note's raw text
// differs while what a reader sees is the same.
func hubFooter(file string) string {
	return "%% Hub footer: Please don't edit anything below this line %%\n\n# This note in GitHub\n\n" +
		"<span class=\"git-footer\">[Edit In GitHub](https://github.dev/hub/blob/main/Plugins/" + file + " \"edit\") | " +
		"[Copy this note](https://raw.example/hub/main/Plugins/" + file + " \"copy\") | [Download this vault](https://github.com/hub/archive/main.zip)</span>\n"
}

// templateVault is ten plugin notes with the Hub's footer and two themes
// that paste one long passage.
func templateVault(t *testing.T) *testVault {
	shared := "## Style settings\n\nThe headings can be styled one by one: the font of each level, its size, its weight, " +
		"its colour, the line below it, the space above and below it, and whether it is shown in capitals in the outline and the reading view.\n"
	files := map[string]string{}
	for _, p := range []struct{ file, name, what string }{
		{"meld-encrypt.md", "Meld Encrypt", "Hide secrets in your notes behind a password."},
		{"inline-encrypter.md", "Inline Encrypter", "Encrypt and decrypt inline text in a note."},
		{"gpg-encrypt.md", "GPG Encrypt", "Encrypt notes with your GPG key."},
		{"age-encrypt.md", "Age Encrypt", "Encrypt notes with age, a small file encryption tool."},
		{"calendar.md", "Calendar", "A calendar view of your daily notes."},
		{"dataview.md", "Dataview", "Query your vault like a database."},
		{"kanban.md", "Kanban", "Boards of cards backed by Markdown."},
		{"excalidraw.md", "Excalidraw", "Sketch diagrams by hand."},
		{"tasks.md", "Tasks", "Track tasks across the vault, with due dates."},
		{"templater.md", "Templater", "Templates with scripts and dates."},
	} {
		files["Plugins/"+p.file] = "# " + p.name + "\n\nPlugin ID: `" + strings.TrimSuffix(p.file, ".md") + "`\n\n" + p.what + "\n\n" + hubFooter(p.file)
	}
	files["Themes/Minimal.md"] = "# Minimal\n\nA quiet theme.\n\n" + shared
	files["Themes/Things.md"] = "# Things\n\nA theme after the to-do app.\n\n" + shared
	return newTestVault(t, files)
}

// A short text several notes share word for word is a template: the Hub's
// footer matched "encrypt secrets inside my notes" by its notes' titles
// alone and five of them were delivered, 200 tokens each, before other
// notes' answers. They are cut as cut:template; a long passage two notes
// share is content, and is delivered once.
func TestActivate_ATemplateSharedByNotesIsNotDelivered(t *testing.T) {
	tv := templateVault(t)

	act := tv.activate("encrypt secrets inside my notes", "")
	plugins := map[string]bool{}
	for _, f := range act.Fragments {
		if h := f.HeadingPath[len(f.HeadingPath)-1]; h == "This note in GitHub" {
			t.Errorf("delivered the footer of %s", f.Path)
		} else {
			plugins[f.Path] = true
		}
	}
	if len(plugins) < 4 {
		t.Errorf("delivered %d plugins' own sections; want all 4: %v", len(plugins), plugins)
	}
	run := tv.run(act.RunID)
	cut := 0
	for _, c := range run.Ranked {
		if c.HeadingPath[len(c.HeadingPath)-1] == "This note in GitHub" {
			if c.Outcome != "cut:template" {
				t.Errorf("footer of %s: outcome %s; want cut:template", c.Path, c.Outcome)
			}
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no footer among the candidates: the test no longer shows the cut")
	}

	act = tv.activate("how to style the headings: font, size, colour and the line below", "")
	copies := 0
	for _, f := range act.Fragments {
		if f.HeadingPath[len(f.HeadingPath)-1] == "Style settings" {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("the long passage two themes share was delivered %d times; want once", copies)
	}
}

// Search leaves templates out as activate does, and fills its limit with
// the notes' own sections, looking deeper when templates took the first
// hits; a name the query gives still finds its note.
func TestSearch_ATemplateSharedByNotesIsNotAHit(t *testing.T) {
	tv := templateVault(t)
	hits := tv.search("encrypt secrets inside my notes", vault.SearchOptions{Limit: 6})
	own := map[string]bool{}
	for _, h := range hits {
		if h.HeadingPath[len(h.HeadingPath)-1] == "This note in GitHub" {
			t.Errorf("search found the footer of %s", h.Path)
		} else if strings.Contains(h.Path, "crypt") {
			own[h.Path] = true
		}
	}
	if len(own) < 4 {
		t.Errorf("search found %d encryption plugins' own sections; want all 4: %v", len(own), hits)
	}
	// A query whose best BM25 hits are all footers ("notes": every footer
	// says "Copy this note") looks deeper, and the sections that say it fill
	// the limit.
	hits = tv.search("notes", vault.SearchOptions{Limit: 2})
	for _, h := range hits {
		if h.HeadingPath[len(h.HeadingPath)-1] == "This note in GitHub" {
			t.Errorf("search for notes found the footer of %s", h.Path)
		}
	}
	if len(hits) != 2 {
		t.Errorf("search for notes, limit 2, found %d hits; want 2 sections that say it: %v", len(hits), hits)
	}
	if hits := tv.search("Meld Encrypt", vault.SearchOptions{Limit: 3}); len(hits) == 0 || hits[0].Path != "Plugins/meld-encrypt.md" || hits[0].Stage != "exact" {
		t.Errorf("search for a note's name: %+v; want Plugins/meld-encrypt.md first from the exact stage", hits)
	}
}

// The heading of a note's lead section is usually its title, which every
// section of the note carries in its row: it says which note, not which
// section. Counted four times as the lead's own heading, it put a talk's
// one-line introduction ("Why automate tests for plugins?") before the
// section that answers ("Why automated tests?").
func TestActivate_TheLeadHeadingThatIsTheTitleDoesNotOrderSections(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"Guides/Why automate tests for plugins.md": "# Why automate tests for plugins?\n\nNotes from a talk at the community meetup.\n\n" +
			"## Why automated tests?\n\nChecking each change manually takes longer every release; automated tests run every check in seconds " +
			"and catch the regressions you would not think to try again.\n\n" +
			"## Testing over time\n\nThe longer a plugin lives, the more its tests pay back.\n",
		"Guides/Release checklist.md": "# Release checklist\n\nTag, build and publish the plugin.\n",
	})
	act := tv.activate("why write automated tests for my plugin instead of testing by hand", "")
	if len(act.Fragments) == 0 {
		t.Fatal("nothing delivered")
	}
	if f := act.Fragments[0]; f.HeadingPath[len(f.HeadingPath)-1] != "Why automated tests?" {
		t.Errorf("first: %s › %v; want the section that answers, \"Why automated tests?\"", f.Path, f.HeadingPath)
	}
}

// A section that gives an agent nothing — only comments and pictures from
// the web, as the badges that open every Hub plugin note — is never
// delivered (cut:empty): it cost its URLs' tokens and took a place from a
// section with text. A section that shows a picture of the vault is a
// reference and is delivered.
func TestActivate_ASectionOfOnlyWebPicturesIsNotDelivered(t *testing.T) {
	// One note's badges: two notes' would be a template (markTemplates), as
	// they are when the Hub's other plugin notes are candidates too.
	badges := "%% ----- Badges ----- %%\n\n![GitHub all releases](https://img.shields.io/github/downloads/dev/gpt3-notes/total)\n" +
		"![GitHub Repo stars](https://img.shields.io/github/stars/dev/gpt3-notes)\n\n%% ----- Badges ----- %%\n\n"
	tv := newTestVault(t, map[string]string{
		"plugins/gpt3-notes.md":  badges + "# GPT-3 Notes\n\nCreate a note with a GPT-3 language model.\n",
		"design/architecture.md": "# Architecture\n\nThe parts and how they talk.\n\n## Diagram\n\n![[architecture.png]]\n",
		"notes/a.md":             "# A\n\nNothing about models here.\n",
	})
	act := tv.activate("GPT-3 notes plugin", "")
	var got []string
	for _, f := range act.Fragments {
		got = append(got, f.Path+" › "+strings.Join(f.HeadingPath, " › "))
		if strings.Contains(f.Content, "img.shields.io") {
			t.Errorf("delivered the badges of %s: %q", f.Path, f.Content)
		}
	}
	cut := false
	for _, c := range tv.run(act.RunID).Ranked {
		if c.Path == "plugins/gpt3-notes.md" && len(c.HeadingPath) == 0 {
			cut = c.Outcome == "cut:empty"
		}
	}
	if !cut {
		t.Errorf("the badges are not among the candidates cut:empty: the test no longer shows the cut")
	}
	for _, h := range tv.search("GPT-3 notes plugin", vault.SearchOptions{}) {
		if len(h.HeadingPath) == 0 && h.Path == "plugins/gpt3-notes.md" {
			t.Errorf("search found the badges of %s", h.Path)
		}
	}
	if len(got) == 0 || got[0] != "plugins/gpt3-notes.md › GPT-3 Notes" {
		t.Errorf("delivered %q; want the plugin's own line first", got)
	}
	act = tv.activate("architecture diagram", "")
	found := false
	for _, f := range act.Fragments {
		found = found || f.Path == "design/architecture.md" && strings.Contains(f.Content, "![[architecture.png]]")
	}
	if !found {
		t.Errorf("the section that shows the vault's diagram was not delivered: %v", act.Fragments)
	}
}
