package retrieve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
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

// An agent's Draft cannot make a published text a template: a Draft note
// that holds a published rule's short text word for word would have made
// the two a template and cut the rule from every activation of the
// Draft's project, its teammates' agents' included. Nothing an agent sends
// may stop others from reading: the published text is delivered, and the
// Draft's copy of it is cut as a copy.
func TestAttack_ADraftCannotMakeAPublishedTextATemplate(t *testing.T) {
	rule := "Take the payment lock with SET NX and a 30 second expiry."
	tv := newTestVault(t, map[string]string{
		"decisions/webhook-retries.md": "# Payment lock\n\n## Rule\n\n" + rule + "\n\n## Context\n\nRetries of the webhook arrived twice.\n",
		"notes/Onboarding.md":          "# Onboarding\n\nRead the handbook.\n",
	})
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []vault.OverlayFile{
		{Path: "notes/scratch.md", Data: []byte("# Scratch\n\n## Rule\n\n" + rule + "\n")},
	}}})
	act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "how to take the payment lock", Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	delivered := false
	for _, f := range act.Fragments {
		if f.Path == "decisions/webhook-retries.md" && last(f.HeadingPath) == "Rule" {
			delivered = true
		}
		if f.Path == "notes/scratch.md" && last(f.HeadingPath) == "Rule" {
			t.Errorf("the Draft's copy of the rule was delivered: %v", keys(act))
		}
	}
	if !delivered {
		t.Errorf("the published rule was not delivered in the Draft's project: %v", keys(act))
	}
	for _, c := range tv.run(act.RunID).Ranked {
		if last(c.HeadingPath) == "Rule" && c.Outcome == "cut:template" {
			t.Errorf("%s's rule: cut as a template; delivered %v", c.Path, keys(act))
		}
	}
}

// An agent's Draft cannot raise the bar a published answer must clear:
// Draft notes stuffed with the question's words scored far above every
// published note, and the weak cut (a fraction of the best score) cut the
// published answer, and everything else, from every activation of the
// Draft's project. The bar is set by published memory.
func TestAttack_ADraftCannotRaiseTheWeakCutOverPublishedAnswers(t *testing.T) {
	q := "payment lock expiry"
	files := map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe webhook handler takes a lock per event before it charges, and a crashed worker's lock is freed after thirty seconds.\n",
	}
	for i := range 12 {
		files[fmt.Sprintf("notes/other-%02d.md", i)] = fmt.Sprintf("# Other %d\n\nThe payment of invoice %d is due at the end of the month.\n", i, i)
	}
	tv := newTestVault(t, files)
	stuffed := "# Scratch\n\n" + strings.Repeat("## Payment locks and their expiry\n\npayment lock expiry, payment lock expiry, payment lock expiry\n\n", 4)
	var drafts []vault.OverlayFile
	for i := range 4 {
		drafts = append(drafts, vault.OverlayFile{Path: fmt.Sprintf("scratch/s%d.md", i), Data: []byte(stuffed)})
	}
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: drafts}})
	act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: q, Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range act.Fragments {
		if f.Path == "decisions/webhook-retries.md" {
			return
		}
	}
	outcome := "not a candidate"
	for _, c := range tv.run(act.RunID).Ranked {
		if c.Path == "decisions/webhook-retries.md" {
			outcome = c.Outcome
		}
	}
	t.Errorf("the published decision was not delivered in the Draft's project (%s): %v", outcome, keys(act))
}

// An agent's Draft cannot crowd published memory out: twenty Draft notes
// stuffed with a question's words took all twelve places of every
// activation of the Draft's project, and the published decision that
// answers was cut as cut:total. Drafts take at most half the places and
// half the token budget (cut:drafts beyond), and the published answer is
// delivered.
func TestAttack_DraftsCannotCrowdOutPublishedMemory(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe webhook handler takes a payment lock per event before it charges, and a crashed worker's lock expires after thirty seconds.\n",
	})
	var drafts []vault.OverlayFile
	for i := range 20 {
		drafts = append(drafts, vault.OverlayFile{Path: fmt.Sprintf("scratch/s%d.md", i), Data: []byte(fmt.Sprintf(
			"# Scratch %d\n\n## Payment lock expiry %d\n\nThe payment lock expiry, case %d: the payment lock expiry is what the payment lock expiry says, %d times. %s\n",
			i, i, i, i*7, strings.Repeat("Payment lock expiry again. ", i%3*40)))})
	}
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: drafts}})
	act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "payment lock expiry", Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	lim := vault.LimitsFrom(vault.RetrievalConfig{})
	fromDrafts, tokens, published := 0, 0, false
	for _, f := range act.Fragments {
		if f.DraftID != "" {
			fromDrafts++
			tokens += vault.EstimateTokens(f.Content)
		}
		published = published || f.Path == "decisions/webhook-retries.md"
	}
	if !published {
		t.Errorf("the published decision was not delivered in the Draft's project: %v", keys(act))
	}
	if fromDrafts == 0 || fromDrafts > lim.MaxFragments/2 || tokens > lim.TokenBudget/2 {
		t.Errorf("Drafts delivered %d fragments, %d tokens; want some, and at most %d and %d", fromDrafts, tokens, lim.MaxFragments/2, lim.TokenBudget/2)
	}
	crowded := 0
	for _, c := range tv.run(act.RunID).Ranked {
		if c.Outcome == "cut:drafts" {
			crowded++
		}
	}
	if crowded == 0 {
		t.Errorf("no Draft was cut as cut:drafts: the test no longer shows the share")
	}
}

// An agent's Draft cannot reorder published memory by its links: Draft
// notes at the top of a question's candidates that link to a published
// note gave it their votes, and an office-plants note that mentions a
// payment once rose over the onboarding note. Published notes' votes are
// counted as if no Draft were there: the published candidates rank in the
// Draft's project as they do in another.
func TestAttack_DraftsCannotReorderPublishedMemoryByLinks(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe webhook handler takes a payment lock per event before it charges, and a crashed worker's lock expires after thirty seconds.\n",
		"notes/office-plants.md":       "# Office plants\n\nWater them on Fridays; the payment for the new pots is in the shared sheet.\n",
		"notes/onboarding.md":          "# Onboarding\n\nRead the handbook, then ask about the payment service.\n",
	})
	var drafts []vault.OverlayFile
	for i := range 5 {
		drafts = append(drafts, vault.OverlayFile{Path: fmt.Sprintf("scratch/s%d.md", i), Data: []byte(fmt.Sprintf(
			"# Scratch %d\n\nPayment lock expiry, case %d:\n\n- [[Office plants]]\n- [[Office plants]]\n", i, i))})
	}
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: drafts}})
	order := func(project string) []string {
		act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "payment lock expiry", Project: project})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, c := range tv.run(act.RunID).Ranked {
			if !strings.HasPrefix(c.Path, "scratch/") && !slices.Contains(paths, c.Path) { // the Draft's notes are under scratch/
				paths = append(paths, c.Path)
			}
		}
		return paths
	}
	if alpha, beta := order("alpha"), order("beta"); !slices.Equal(alpha, beta) {
		t.Errorf("published notes in the Draft's project rank %v; elsewhere %v", alpha, beta)
	}
}
