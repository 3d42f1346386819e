package retrieve

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// A section that holds only embeds is delivered with the text they show:
// blocks (^id), headings (with their subsections, as Obsidian shows them)
// and whole notes, quoted after each embed, bounded, one level deep; embeds
// of images, embeds in code and a note's embed of itself or of a heading
// above the section stay references. `![[#Heading]]` and `![[#^id]]` name
// a part of the note that holds them.
func TestActivate_EmbedsDeliverTheirText(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"billing/Refund policy.md": "# Refund policy\n\nA license bought with a discount is refunded at the discounted price. ^discount-then-refund\n\nA refund after a later discount returns what was paid, less the discount. ^purchase-then-discount-then-refund\n\n## Deadlines\n\nRefunds are granted within 30 days of purchase.\n\n### Exceptions\n\nAnnual plans are refunded within 14 days.\n\n## Contact\n\nWrite to billing.\n",
		"billing/License.md":       "# License\n\n### Refunds\n\n![[Refund policy#^discount-then-refund]]\n![[Refund policy#^purchase-then-discount-then-refund]]\n\n### Timing\n\n![[Refund policy#Deadlines]]\n![[chart.png]]\n\n### Everything\n\n![[Nested]]\n\n```\n![[Refund policy]]\n```\n",
		"billing/Nested.md":        "# Nested\n\nThe nested note says hello and embeds ![[Refund policy#Deadlines]] again.\n",
		"billing/Self.md":          "# Self\n\n## Loop\n\n![[Self#Loop]] and ![[Self]]\n\n### Inner\n\n![[Self#Loop]]\n",
	})
	act := tv.activate("refund for my license", "")
	var refunds, timing, everything, self string
	for _, f := range act.Fragments {
		if f.Path != "billing/License.md" && f.Path != "billing/Self.md" {
			continue
		}
		switch f.HeadingPath[len(f.HeadingPath)-1] {
		case "Refunds":
			refunds = f.Content
		case "Timing":
			timing = f.Content
		case "Everything":
			everything = f.Content
		}
	}
	if refunds == "" {
		t.Fatalf("the Refunds section was not delivered: %v", keys(act))
	}
	for _, want := range []string{"![[Refund policy#^discount-then-refund]]\n> A license bought with a discount is refunded at the discounted price.\n\n![[Refund policy#^purchase", "> A refund after a later discount returns what was paid, less the discount."} {
		if !strings.Contains(refunds, want) {
			t.Errorf("Refunds lacks %q:\n%s", want, refunds)
		}
	}
	if strings.Contains(refunds, "price. ^discount") {
		t.Errorf("the block's mark is not removed from its text:\n%s", refunds)
	}
	check := func(name, content string, want, not []string) {
		t.Helper()
		if content == "" {
			t.Logf("%s not delivered for this query; checked through expandEmbeds below", name)
			return
		}
		for _, w := range want {
			if !strings.Contains(content, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, content)
			}
		}
		for _, n := range not {
			if strings.Contains(content, n) {
				t.Errorf("%s has %q:\n%s", name, n, content)
			}
		}
	}
	check("Timing", timing, []string{"> Refunds are granted within 30 days", "![[chart.png]]"}, []string{"> ![[chart"})
	check("Everything", everything, []string{"> The nested note says hello and embeds ![[Refund policy#Deadlines]] again."}, []string{"> > Refunds are granted"})
	_ = self

	// Every case, whatever the ranking delivers.
	ctx := t.Context()
	look := tv.Ix.Index.Lookups()
	for _, c := range []struct {
		content, path string
		heading       []string
		want, not     []string
	}{
		{"### Timing\n\n![[Refund policy#Deadlines]]\n![[chart.png]]\n", "billing/License.md", []string{"Timing"}, []string{"> Refunds are granted within 30 days of purchase.", "> ### Exceptions\n>\n> Annual plans are refunded within 14 days.", "![[chart.png]]"}, []string{"> ![[chart", "Write to billing"}},
		{"### Everything\n\n![[Nested]]\n\n```\n![[Refund policy]]\n```\n", "billing/License.md", []string{"Everything"}, []string{"> The nested note says hello and embeds ![[Refund policy#Deadlines]] again."}, []string{"> > Refunds are granted", "> A license bought"}},
		{"## Loop\n\n![[Self#Loop]] and ![[Self]]\n", "billing/Self.md", []string{"Loop"}, nil, []string{">"}},
		{"### Inner\n\n![[Self#Loop]]\n", "billing/Self.md", []string{"Loop", "Inner"}, nil, []string{">"}},
		{"## Again\n\n![[#Loop]]\n", "billing/Self.md", []string{"Again"}, []string{"> ## Loop"}, nil},
		{"## Loop\n\n![[#Loop]]\n", "billing/Self.md", []string{"Loop"}, nil, []string{">"}},
		{"## Summary\n\n![[#^discount-then-refund]]\n", "billing/Refund policy.md", []string{"Summary"}, []string{"> A license bought with a discount is refunded at the discounted price."}, nil},
		{"## Gone\n\n![[No such note]]\n", "billing/License.md", []string{"Gone"}, []string{"![[No such note]]"}, []string{">"}},
	} {
		got, err := expandEmbeds(ctx, look, c.content, c.path, c.heading, "", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", c.heading, w, got)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: has %q:\n%s", c.heading, n, got)
			}
		}
	}
	long := strings.Repeat("word ", 2000)
	if got := markdown.ClipTokens(long, embedTokens); !strings.HasSuffix(got, " …") || len(got) >= len(long) {
		t.Errorf("a long embed is not bounded: %d of %d bytes", len(got), len(long))
	}
}

// A Markdown embed of a note (![](Note.md#Heading)) is delivered with the
// text it shows, as ![[Note#Heading]] is: a bare name, a path relative to
// the embedding note's folder or a vault path (each way tried in turn,
// fts.Lookups.EmbedShown), a block or a heading; an image stays a reference.
func TestActivate_MarkdownEmbedsDeliverTheirText(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"billing/Refund policy.md": "# Refund policy\n\nA license bought with a discount is refunded at the discounted price. ^discount\n\n## Deadlines\n\nRefunds are granted within 30 days of purchase.\n",
		"billing/License.md":       "# License\n\n### Refunds\n\n![](Refund%20policy.md#^discount)\n\n### Timing\n\n![deadlines](<Refund policy.md#Deadlines>)\n![](chart.png)\n",
		"shared/Terms.md":          "# Terms\n\nA license is a right to use the app.\n",
		"billing/faq/Claims.md":    "# Claims\n\nA refund claim closes 45 days after purchase.\n",
	})
	act := tv.activate("refund timing for my license", "")
	delivered := false
	for _, f := range act.Fragments {
		if f.Path == "billing/License.md" && f.HeadingPath[len(f.HeadingPath)-1] == "Refunds" {
			delivered = true
			if !strings.Contains(f.Content, "![](Refund%20policy.md#^discount)\n> A license bought with a discount is refunded at the discounted price.") {
				t.Errorf("Refunds delivered without the block it embeds:\n%s", f.Content)
			}
		}
	}
	if !delivered {
		t.Fatalf("the Refunds section was not delivered: %v", keys(act))
	}
	got, err := expandEmbeds(t.Context(), tv.Ix.Index.Lookups(), "### Timing\n\n![deadlines](<Refund policy.md#Deadlines>)\n![](chart.png)\n", "billing/License.md", []string{"Timing"}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "> Refunds are granted within 30 days of purchase.") || strings.Contains(got, "> ![](chart") {
		t.Errorf("Timing delivered as:\n%s", got)
	}
	// A bare file name names a note anywhere in the vault, as Obsidian's
	// default link format writes it.
	got, err = expandEmbeds(t.Context(), tv.Ix.Index.Lookups(), "### Terms\n\n![](Terms.md)\n", "billing/License.md", []string{"Terms"}, "", false)
	if err != nil || !strings.Contains(got, "> A license is a right to use the app.") {
		t.Errorf("an embed by a bare file name delivered as %q, %v", got, err)
	}
	// A folder path is a vault path first, then relative to the note's
	// folder; ./ and ../ are relative only.
	for _, c := range []struct{ from, md, want string }{
		{"legal/Contract.md", "![](billing/Refund%20policy.md#Deadlines)", "> Refunds are granted within 30 days"},
		{"billing/License.md", "![](faq/Claims.md)", "> A refund claim closes 45 days"},
		{"billing/old/Archive.md", "![](../faq/Claims.md)", "> A refund claim closes 45 days"},
	} {
		got, err = expandEmbeds(t.Context(), tv.Ix.Index.Lookups(), "### Timing\n\n"+c.md+"\n", c.from, []string{"Timing"}, "", false)
		if err != nil || !strings.Contains(got, c.want) {
			t.Errorf("%s from %s delivered as %q, %v", c.md, c.from, got, err)
		}
	}
}

// An embed shows at delivery only what the asking project may read: a
// shared note's embed of a project's note stays a reference for another
// project (a note that an agent's merged Draft wrote, embedding what its
// project may not read, reads nothing through it) and shows its text to
// the project that owns it; an embed of a journal entry stays a reference
// for every project, as the journal is read by the journal tools only.
func TestActivate_AnEmbedShowsOnlyWhatTheProjectMayRead(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"shared/launch.md":            "# Launch checklist\n\n## Plans\n\n![[plans]]\n\n## Diary\n\n![[journal/alpha/2026-12-01]]\n",
		"projects/alpha/plans.md":     "---\nproject: alpha\n---\n# Plans\n\nthe zeppelin leaves in march\n",
		"journal/alpha/2026-12-01.md": "# 2026-12-01\n\nthe diary says the vault key is 4242\n",
	})
	fragments := func(project string) map[string]string {
		act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "launch checklist plans diary", Project: project})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range act.Fragments {
			if f.Path == "shared/launch.md" {
				out[f.HeadingPath[len(f.HeadingPath)-1]] = f.Content
			}
		}
		if out["Plans"] == "" || out["Diary"] == "" {
			t.Fatalf("project %q: the checklist's sections were not both delivered: %v", project, keys(act))
		}
		return out
	}
	beta := fragments("beta")
	if strings.Contains(beta["Plans"], "zeppelin") || !strings.Contains(beta["Plans"], "![[plans]]") {
		t.Errorf("beta reads alpha's plans through a shared embed:\n%s", beta["Plans"])
	}
	alpha := fragments("alpha")
	if !strings.Contains(alpha["Plans"], "> the zeppelin leaves in march") {
		t.Errorf("alpha does not see its own plans through the shared embed:\n%s", alpha["Plans"])
	}
	for project, f := range map[string]map[string]string{"beta": beta, "alpha": alpha} {
		if strings.Contains(f["Diary"], "4242") || !strings.Contains(f["Diary"], "![[journal/alpha/2026-12-01]]") {
			t.Errorf("%s reads a journal entry through an embed:\n%s", project, f["Diary"])
		}
	}
	// The Markdown form (![](path.md)), by path and by bare file name, is
	// held to the same rule.
	look := tv.Ix.Index.Lookups()
	for _, c := range []struct {
		content, project string
		shows            bool
	}{
		{"## Plans\n\n![](../projects/alpha/plans.md) ![](plans.md)\n", "beta", false},
		{"## Plans\n\n![](../projects/alpha/plans.md)\n", "alpha", true},
		{"## Plans\n\n![](plans.md)\n", "alpha", true},
		{"## Diary\n\n![](../journal/alpha/2026-12-01.md) ![](2026-12-01.md) ![](journal/alpha/2026-12-01.md)\n", "alpha", false},
		{"## Diary\n\n![](../journal/alpha/2026-12-01.md) ![](2026-12-01.md)\n", "beta", false},
	} {
		got, err := expandEmbeds(t.Context(), look, c.content, "shared/launch.md", []string{"Launch checklist"}, c.project, false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, "4242") || strings.Contains(got, "zeppelin") != c.shows {
			t.Errorf("%s, %q: delivered as\n%s", c.project, c.content, got)
		}
	}
}
