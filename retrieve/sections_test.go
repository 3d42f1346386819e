package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

const releaseNote = `---
id: mem_release
title: How to release a new version
description: Deployment steps for shipping a release of the app, with the checks before it.
---
# How to release a new version

## Before the release

1. ` + "`make test`" + ` is green on main.
2. The changelog has an entry for every user-visible change.
3. Run ` + "`make bench`" + ` and compare with the last release; a slowdown over 10 %
   needs a note.

## Cutting the release

Tag it and push the tag. CI builds the binaries and attaches them to the
release. Never push with --force.

## After the release

Announce it in #releases and close the milestone.
`

// releaseVault holds the release note and another that shares its words.
func releaseVault(t *testing.T) *testVault {
	return newTestVault(t, map[string]string{
		"howto/release.md": releaseNote,
		"other.md":         "# Accessibility checklist\n\n## Contrast\n\nText contrast is at least 4.5:1 for every new version.\n",
	})
}

// releaseQuestions are questions on releaseNote and the section that answers each.
var releaseQuestions = []struct{ q, first string }{
	{"what must I check before shipping a new version?", "Before the release"},
	{"how do I tag and push the release", "Cutting the release"},
	{"who do we announce a release to, and which milestone closes", "After the release"},
}

// The sections of one note are delivered by their own text: the title and
// description every section carries match alike, and they must not let the
// shortest section ("After the release") take the note's first place, nor
// let the per-note cap keep the two that happened to sort first.
func TestActivate_TheSectionThatAnswersComesFirst(t *testing.T) {
	tv := releaseVault(t)
	for _, c := range releaseQuestions {
		act := tv.activate(c.q, "")
		var got []string
		for _, f := range act.Fragments {
			got = append(got, f.Path+" › "+f.HeadingPath[len(f.HeadingPath)-1])
		}
		if len(got) == 0 || got[0] != "howto/release.md › "+c.first {
			t.Errorf("%q delivered %s; want howto/release.md › %s first", c.q, strings.Join(got, " | "), c.first)
		}
	}
	// The cap of two keeps the note's best sections: for the first question
	// the shortest one, which matches nothing of its own, is not among them
	// (it was delivered first, and "Before the release" cut, before).
	for _, f := range tv.activate("what must I check before shipping a new version?", "").Fragments {
		if f.HeadingPath[len(f.HeadingPath)-1] == "After the release" {
			t.Errorf("the per-note cap kept \"After the release\", which matches nothing of its own")
		}
	}
}

// Search gives a note's places to its sections as activate does: by their
// own words, each place keeping its score, so the hits stay sorted.
func TestSearch_TheSectionThatAnswersComesFirst(t *testing.T) {
	tv := releaseVault(t)
	for _, c := range releaseQuestions {
		hits := tv.search(c.q, vault.SearchOptions{Limit: 5})
		var got []string
		for i, h := range hits {
			got = append(got, h.Path+" › "+h.HeadingPath[len(h.HeadingPath)-1])
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("%q: hit %d scores %.3f above the one before it (%.3f)", c.q, i+1, h.Score, hits[i-1].Score)
			}
		}
		if len(got) == 0 || got[0] != "howto/release.md › "+c.first {
			t.Errorf("%q found %s; want howto/release.md › %s first", c.q, strings.Join(got, " | "), c.first)
		}
	}
}

// A section's own words are read as the index reads them: the words of a
// link's URL are not the section's. A footer whose links spell the note's
// own file name (as every Obsidian Hub note's does) matched a query of
// that name by its URLs, and took the note's first place from the section
// that says it.
func TestActivate_URLWordsDoNotOrderSections(t *testing.T) {
	footer := "# This note in GitHub\n\n<span class=\"git-footer\">[Edit In GitHub](https://github.dev/hub/blob/main/Plugins/obsidian-dropbox-backups.md \"edit\") | " +
		"[Copy this note](https://raw.example/hub/main/Plugins/obsidian-dropbox-backups.md \"copy\") | [Download this vault](https://github.com/hub/archive/main.zip)</span>\n"
	tv := newTestVault(t, map[string]string{
		"Plugins/obsidian-dropbox-backups.md": "---\naliases:\n- Aut-O-Backups\n---\n# Aut-O-Backups\n\nPlugin ID: `obsidian-dropbox-backups`\n\n" +
			"Automated backups of your files for your enjoyment, every hour.\n\n" + footer,
		"Plugins/calendar.md": "# Calendar\n\nA calendar view of daily notes.\n\n" + strings.ReplaceAll(footer, "obsidian-dropbox-backups", "calendar"),
	})
	act := tv.activate("a plugin that backs up my vault to dropbox", "")
	if len(act.Fragments) == 0 {
		t.Fatal("nothing delivered")
	}
	if f := act.Fragments[0]; f.Path != "Plugins/obsidian-dropbox-backups.md" || f.HeadingPath[len(f.HeadingPath)-1] != "Aut-O-Backups" {
		t.Errorf("first: %s › %v; want the Aut-O-Backups section", f.Path, f.HeadingPath)
	}
}

// A section's heading names what it is about, and the query's words there
// count apart from its body's: in the body's BM25 a heading word shares one
// saturating count with the text, and a two-line introduction that says
// "customize" twice took the note's first place from the section whose
// heading lists the classes asked for (the Obsidian Hub's graph view guide).
func TestActivate_TheQueryWordsInASectionsHeadingCount(t *testing.T) {
	files := map[string]string{
		"guides/map-view.md": "# Styling the map view\n\n" +
			"The map is drawn on a canvas, so a stylesheet cannot reach its pins. To customize the map view, " +
			"a bridge reads CSS colors for customizing the canvas.\n\n" +
			"## The following CSS classes are supported:\n\n```\n" + strings.Repeat(".map-view.color-pin\n.map-view.color-pin-focused\n.map-view.color-route\n.map-view.color-label-highlight\n", 3) + "```\n\n" +
			"## The following CSS rules are supported:\n\n```css\n.map-view.color-pin { color: #FFF; opacity: 0.5; }\n```\n\n" +
			"## Defaults\n\nThese are the colors the map uses unless a snippet overrides them.\n",
	}
	// Themes make "CSS" and "classes" common in the vault, and "customize"
	// rare: the introduction leads on the vault's own scores.
	for i := range 12 {
		files[fmt.Sprintf("themes/theme-%d.md", i)] = fmt.Sprintf("# Theme %d\n\nTheme %d sets CSS classes for headings, and these CSS classes change colors.\n", i, i)
	}
	tv := newTestVault(t, files)
	act := tv.activate("which CSS classes can customize the map view", "")
	var got []string
	for _, f := range act.Fragments {
		got = append(got, f.Path+" › "+f.HeadingPath[len(f.HeadingPath)-1])
	}
	if len(got) == 0 || got[0] != "guides/map-view.md › The following CSS classes are supported:" {
		t.Errorf("delivered %s; want the section that lists the classes first", strings.Join(got, " | "))
	}
}

// The note's title words in a section's heading say which note, not which
// section: they are no part of its label.
func TestLabelTerms_TheTitlesWordsAreNotALabel(t *testing.T) {
	qterms := sectionQueryTerms("change the map view colors")
	want := map[string]int{}
	for i, q := range qterms {
		want[q.tok] = i
	}
	inTitle := map[string]bool{}
	tokenize.EachToken("Styling the map view", func(t string, _ bool) { inTitle[t] = true })
	got := labelTerms(want, nil, "Map view colors", inTitle)
	var label []string
	for i, in := range got {
		if in {
			label = append(label, qterms[i].tok)
		}
	}
	if strings.Join(label, " ") != "color" {
		t.Errorf("label terms %v; want only the stem of colors", label)
	}
}

// A note's lead that says what the note is about ("This note describes…")
// is its overview: a question that restates the title matches it by the
// title's words, and it must not take the note's first place from the
// section that answers (the Obsidian Hub's guide on automated tests). A
// lead that says the thing itself (a definition) keeps its place.
func TestActivate_ANotesOverviewDoesNotTakeTheAnswersPlace(t *testing.T) {
	files := map[string]string{
		"guides/Why automate tests for plugins.md": "# Why automate tests for plugins?\n\n" +
			"This note describes the motivation for writing automated tests for plugins.\n\n" +
			"## Manual testing\n\nBuild the plugin, open the app, click through every feature.\n\n" +
			"## Why automated tests?\n\n- Massively quicker than manual checks\n- Fix bugs while the code is fresh in mind\n",
		"concepts/Sherlocking.md": "# Sherlocking\n\n" +
			"Sherlocking means an app copying a feature that a plugin provided, which makes the plugin obsolete.\n\n" +
			"## Plugins sherlocked\n\nOutliner and Sliding Panes lost users when the app copied their features.\n",
	}
	wantFirst(t, files, []firstCase{
		{"why write automated tests for my plugin instead of testing by hand", "guides/Why automate tests for plugins.md › Why automated tests?"},
		{"what does sherlocking mean", "concepts/Sherlocking.md › Sherlocking"},
	})
}

// A short lead is its note's description when the note has a section of
// its own beside it (the Obsidian Hub's category notes: "Extension for the
// Chrome browser." over the list): a question that restates the title
// matches the lead by the title's words, and the list answers. A plugin
// note's short lead beside only the footer every note shares stays first.
func TestActivate_AShortLeadDoesNotTakeItsListsPlace(t *testing.T) {
	footer := "\n# This note in GitHub\n\n[Edit In GitHub](https://example.invalid/%[1]s) | [Copy this note](https://example.invalid/%[1]s/raw)\n"
	files := map[string]string{
		"tools/Chrome extensions.md": "# Chrome extensions\n\nExtension for the Chrome browser. (Note that Chrome extensions work in any Chromium-based browser.)\n\n" +
			"## Tools in this category\n\n- MarkDownload - Markdown Web Clipper\n- Obsidian Clipper (unofficial)\n- Obsidian Web\n" +
			"- Dataview Serializer for the vault's tables and lists\n- Tab Saver for the sessions you keep open all week\n" +
			"- Reading List Sync for the articles you save to read later\n" + fmt.Sprintf(footer, "chrome"),
		"plugins/clock.md":  "# Clock\n\nShows the time and the date in the status bar of the note.\n" + fmt.Sprintf(footer, "clock"),
		"plugins/quotes.md": "# Quotes\n\nShows a quote of the day in a side pane.\n" + fmt.Sprintf(footer, "quotes"),
	}
	wantFirst(t, files, []firstCase{
		{"a chrome extension to clip web pages as markdown", "tools/Chrome extensions.md › Tools in this category"},
		{"show the time in the status bar of my note", "plugins/clock.md › Clock"},
	})
}

// A short lead beside only a template (the footer every note shares) is
// the note's own text, not its description: it keeps its whole score, and
// the footer, which the assembly cuts, does not take the note's first
// place (on the Hub, plugin notes then fell below other notes).
func TestOrderSections_AShortLeadBesideOnlyAFooterKeepsItsScore(t *testing.T) {
	lead, footer := leadAndFooter("plugins/clock.md", "Clock", "Shows the time and the date in the status bar.", 1.0, 0.95)
	ranked := []*candidate{lead, footer}
	orderSections("download a status bar clock for my vault", ranked)
	if ranked[0] != lead {
		t.Errorf("the footer took the note's first place from its lead (own scores %.2f, %.2f)", lead.SectionScore, footer.SectionScore)
	}
}

// A template never takes a place from its note's own text, even when its
// heading holds a query word: on the Hub, the footer's "This note in
// GitHub" took the Meld Encrypt note's place (second) for "encrypt secrets
// inside my notes", and the plugin's line, given the footer's score, fell to
// eighth, where a weak cut or the budget could drop it.
func TestOrderSections_ATemplateTakesItsNotesLastPlace(t *testing.T) {
	lead, footer := leadAndFooter("plugins/meld-encrypt.md", "Meld Encrypt", "Hide secrets in your vault: encrypt selected text with a password.", 0.96, 0.64)
	ranked := []*candidate{lead, footer}
	orderSections("encrypt secrets inside my notes", ranked)
	if ranked[0] != lead || lead.Final != 0.96 {
		t.Errorf("the footer took the note's first place from its line (line's score %.2f, label of the footer %.2f)", lead.Final, footer.label)
	}
}

// leadAndFooter returns two candidates of one note: its lead section, the
// title for heading, and the Hub's footer, marked a template as
// markTemplates marks it when other notes share it.
func leadAndFooter(path, title, lead string, leadFinal, footerFinal float64) (*candidate, *candidate) {
	unit := func(heading, content string, final float64) *candidate {
		c := &candidate{}
		c.RID, c.Path, c.Title = 1, path, title
		c.HeadingPath, c.Content, c.Final = []string{heading}, content, final
		return c
	}
	footer := unit("This note in GitHub", "# This note in GitHub\n\nEdit In GitHub | Copy this note | Download this vault\n", footerFinal)
	footer.template = true
	return unit(title, "# "+title+"\n\n"+lead+"\n", leadFinal), footer
}

// A sentence about the text it is in, in English or Chinese, makes a lead
// an overview; one about the subject does not.
func TestIsOverview(t *testing.T) {
	for text, want := range map[string]bool{
		"This note describes the motivation for writing automated tests.":             true,
		"In this guide you set up the release workflow.":                              true,
		"This was originally posted by argenos in the forum.":                         true,
		"在本文中，我们为插件编写自动化测试。":                                                          true,
		"日本文化与插件无关。":                                                                  false,
		"本文介绍如何为插件编写自动化测试。":                                                           true,
		"Sherlocking means an app copying a feature a plugin provided.":               false,
		"The .obsidian folder is ignored by git, so set up the settings yourself.":    false,
		"Notes on this topic are kept in the vault; pages link to each other freely.": false,
	} {
		if got := isOverview(text); got != want {
			t.Errorf("isOverview(%q) = %v, want %v", text, got, want)
		}
	}
}

// A lead heading is its note's title when the title was read from it: a
// heading that holds a link titles the note as shown (markdown.LinkText).
func TestIsTitle(t *testing.T) {
	for _, c := range []struct {
		heading, title string
		want           bool
	}{
		{"Hotkeys", "Hotkeys", true},
		{" hotkeys ", "Hotkeys", true},
		{"An Introduction to [[dataview|Dataview]]", "An Introduction to Dataview", true},
		{"[[Breadcrumbs]] Quickstart Guide", "Breadcrumbs Quickstart Guide", true},
		{"Set a hotkey", "Hotkeys", false},
		{"[[Hotkeys]] elsewhere", "Hotkeys", false},
	} {
		if got := isTitle(c.heading, c.title); got != c.want {
			t.Errorf("isTitle(%q, %q) = %v, want %v", c.heading, c.title, got, c.want)
		}
	}
}

// firstCase is a question and the fragment ("path › heading") that must
// come first.
type firstCase struct{ q, first string }

// wantFirst asks each question of a vault of files, with twelve notes
// around them so that their words are rare, and checks the first fragment.
func wantFirst(t *testing.T, files map[string]string, cases []firstCase) {
	t.Helper()
	for i := range 12 {
		files[fmt.Sprintf("notes/note-%d.md", i)] = fmt.Sprintf("# Note %d\n\nNote %d is about the garden, the weather and the week's meals.\n", i, i)
	}
	tv := newTestVault(t, files)
	for _, c := range cases {
		var got []string
		for _, f := range tv.activate(c.q, "").Fragments {
			got = append(got, f.Path+" › "+f.HeadingPath[len(f.HeadingPath)-1])
		}
		if len(got) == 0 || got[0] != c.first {
			t.Errorf("%q delivered %s; want %s first", c.q, strings.Join(got, " | "), c.first)
		}
	}
}

// fewWords counts as strings.Fields does, the limit included.
func TestFewWords(t *testing.T) {
	for _, s := range []string{"", " ", "one", "one two", " one\ttwo\nthree ", "a\u00a0b c", "检索 设计", "x  y   z", "\u2003lead\u2003"} {
		for n := 0; n <= 4; n++ {
			if got, want := fewWords(s, n), len(strings.Fields(s)) <= n; got != want {
				t.Errorf("fewWords(%q, %d) = %v, want %v", s, n, got, want)
			}
		}
	}
}
