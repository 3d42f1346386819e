package retrieve

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

func TestSearch_EmptyQueryIsInvalid(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# a\n\nx\n"})
	for _, q := range []string{"", "   \n\t"} {
		if _, err := tv.Ix.Search(context.Background(), q, vault.SearchOptions{}); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("Search(%q) err = %v, want invalid_input", q, err)
		}
	}
	if hits := tv.search("!!! ??? ...", vault.SearchOptions{}); len(hits) != 0 {
		t.Errorf("a query with no terms returned %d hits", len(hits))
	}
	if _, err := tv.Ix.Search(context.Background(), strings.Repeat("word ", 50000), vault.SearchOptions{}); err != nil {
		t.Errorf("a 250 KB query: %v, want it cut and answered", err)
	}
}

// Links written the way Obsidian writes them — the file's base name, any
// case, an alias — resolve, in both directions (issue: the contracts).
func TestLinks_ResolveAsObsidianDoes(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"adr/adr-012-redlock.md":   "---\nid: mem_adr12\ntitle: ADR 012 Redlock for payments\naliases: [分布式锁]\n---\n# ADR 012\n\nUse Redlock for the refund lock.\n",
		"notes/refunds.md":         "# Refunds\n\nSee [[adr-012-redlock]] for the lock.\n",
		"notes/webhooks.md":        "# Webhooks\n\nIdempotency relies on [[ADR-012-Redlock|the ADR]] and [[分布式锁]].\n",
		"other/adr-012-redlock.md": "# A second file with the same base name, deeper in no folder order\n",
		"notes/dangling.md":        "# Dangling\n\n[[no-such-note]]\n",
	})
	ctx := context.Background()
	hits, err := tv.Ix.Recall(ctx, "Redlock refund lock", "lexical", "", 5)
	if err != nil {
		t.Fatal(err)
	}
	var adr *vault.RecallHit
	for i, h := range hits {
		if h.ResourceID == "mem_adr12" {
			adr = &hits[i]
		}
	}
	if adr == nil || adr.LinksIn != 2 {
		t.Fatalf("ADR-012: %+v; want links in from the two notes that link to it by base name and alias", adr)
	}
	// Ties: the same base name in two folders resolves to the shorter path.
	id, path, err := tv.Ix.ResolveLink(ctx, "[[adr-012-redlock]]", "", "")
	if err != nil || id != "mem_adr12" || path != "adr/adr-012-redlock.md" {
		t.Fatalf("ResolveLink: %s %s %v", id, path, err)
	}
	for _, target := range []string{"mem_adr12", "adr/adr-012-redlock.md", "ADR/ADR-012-REDLOCK", "adr 012 redlock for payments", "分布式锁"} {
		if id, _, err := tv.Ix.ResolveLink(ctx, target, "", ""); err != nil || id != "mem_adr12" {
			t.Errorf("ResolveLink(%q) = %s, %v", target, id, err)
		}
	}
	if _, _, err := tv.Ix.ResolveLink(ctx, "no-such-note", "", ""); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("a name nothing answers to: %v", err)
	}
}

// A one-shot search runs its query beside the freshness check and keeps
// that answer when nothing changed; after an edit it asks again, so the
// answer always holds what the vault holds.
func TestSearch_QueryBesideTheFreshnessCheck(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# Alpha\n\nthe release checklist\n", "b.md": "# Beta\n\nthe deploy steps\n"})
	ctx := context.Background()
	if _, err := tv.Ix.Index.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if hits := tv.search("release checklist", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "a.md" {
		t.Fatalf("unchanged vault: %+v", hits)
	}
	if n := tv.Ix.Pipeline.early.Load(); n != 1 {
		t.Errorf("an unchanged vault: %d answers from beside the check, want 1", n)
	}
	tv.Write("b.md", "# Beta\n\nthe deploy steps and the rollback drill\n")
	if hits := tv.search("rollback drill", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "b.md" {
		t.Errorf("after an edit: %+v, want b.md with the new words", hits)
	}
	if n := tv.Ix.Pipeline.early.Load(); n != 1 {
		t.Errorf("after an edit the early answer was kept (%d), want it asked again", n)
	}
	tv.Write("c.md", "# Gamma\n\nwritten by another process\n")
	other, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Index.Refresh(ctx, nil); err != nil { // another process indexes it first
		t.Fatal(err)
	}
	if hits := tv.search("another process", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "c.md" {
		t.Errorf("a note another process indexed: %+v, want c.md", hits)
	}
}

// An acronym's plural finds the acronym, and a possessive's s is no word.
// camelCase cut "PDFs" into "pd" and "fs", so "export PDFs" found the note
// about fs before the one about PDF export; "plugin's" searched for every
// "s" of "it's" too (the Obsidian Hub: "which plugins extract text from
// images and PDFs with OCR", "what must my plugin's repository contain").
func TestSearch_AcronymPluralsAndPossessives(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"pdf.md":   "# Export\n\nSave a note as a PDF with one command.\n",
		"fs.md":    "# Export to FS paths\n\nThe fs module writes files. It's the PD controller's job.\n",
		"plain.md": "# Plugins\n\nA plugin list.\n",
	})
	if hits := tv.search("export PDFs", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "pdf.md" {
		t.Errorf("export PDFs: %v, want pdf.md first", paths(hits))
	}
	hits := tv.search("plugin's", vault.SearchOptions{})
	if len(hits) == 0 || hits[0].Path != "plain.md" {
		t.Errorf("plugin's: %v, want plain.md first", paths(hits))
	}
	for _, h := range hits {
		if h.Path == "fs.md" {
			t.Errorf("plugin's: found fs.md by the s of its \"It's\" and \"controller's\"")
		}
	}
}

// A dated note is found by its month's name. The Obsidian Hub's roundups
// are named "2022-01-15 Dataview Optimizations…", and "what performance
// update did Dataview get in January 2022" found the January roundup 8th:
// nothing in it says "January", while seven other roundups say "Dataview"
// and "2022". A daily note or an incident named by its date is the same.
func TestSearch_ADatedNoteIsFoundByItsMonth(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"roundup/2022-01-15 Dataview news.md": "# Dataview news\n\nDataview got faster queries in 2022.\n",
		"roundup/2022-03-05 Dataview news.md": "# Dataview news\n\nDataview got a new query language in 2022.\n",
		"roundup/2022-05-07 Dataview news.md": "# Dataview news\n\nDataview got inline fields in 2022.\n",
		"incidents/2024-03-lost-edits.md":     "# Lost edits\n\nThe index lost edits after a stash.\n",
		"incidents/2024-06-force-push.md":     "# Force push\n\nA script erased merged notes.\n",
		"guides/sync.md":                      "# Sync\n\nPush and pull the vault.\n",
		"guides/search.md":                    "# Search\n\nFind notes by their words.\n",
		"guides/templates.md":                 "# Templates\n\nStart a note from a template.\n",
		"guides/links.md":                     "# Links\n\nLink notes to each other.\n",
	})
	for q, want := range map[string]string{
		"what did Dataview get in January 2022": "roundup/2022-01-15 Dataview news.md",
		"Dataview news from March 2022":         "roundup/2022-03-05 Dataview news.md",
		"the incident of March 2024":            "incidents/2024-03-lost-edits.md",
	} {
		if hits := tv.search(q, vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%s: %v, want %s first", q, paths(hits), want)
		}
	}
}

// A theme named by a stop word in capitals is found by it: "what can I
// change in the ITS theme" found another theme's settings first (the Hub's
// fifth question set), "ITS" being dropped as the stop word "its".
func TestSearch_ANameInCapitalsThatIsAStopWord(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"themes/ITS Theme.md":  "# ITS Theme\n\n## Settings\n\nChange the sizes and colors with Style Settings.\n",
		"themes/Aura Theme.md": "# Aura Theme\n\n## Settings\n\nChange the theme: change its accent, change its colors, change its sizes.\n",
		"themes/Minimal.md":    "# Minimal\n\nA theme.\n",
		"guides/sync.md":       "# Sync\n\nPush and pull the vault.\n",
	})
	if hits := tv.search("what can I change in the ITS theme", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "themes/ITS Theme.md" {
		t.Errorf("%v, want themes/ITS Theme.md first", paths(hits))
	}
}

// A question's phrasal verb finds the note that names the thing as one
// word: "looking up bible verses" found a Bible reader that says "looking"
// before the plugin whose name is "Verse Lookup" (the Obsidian Hub's set 3).
func TestSearch_APhrasalVerbFindsItsNoun(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"plugins/verse-lookup.md": "# Verse Lookup\n\nA lookup of bible verses by their reference.\n",
		"plugins/bible-reader.md": "# Bible Reader\n\nRead bible verses in a pane, looking as they look in print.\n",
		"guides/sync.md":          "# Sync\n\nPush and pull the vault.\n",
	})
	if hits := tv.search("plugins for looking up bible verses", vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "plugins/verse-lookup.md" {
		t.Errorf("%v, want plugins/verse-lookup.md first", paths(hits))
	}
}

func paths(hits []vault.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// A heading path reads as Obsidian shows its headings, as the note's title
// already does: "# An Introduction to [[dataview|Dataview]]" was the first
// heading of every section of the Obsidian Hub's Dataview guide, link
// markup and all, in search hits, activate's fragments and the run record.
// (The parsed heading stays as written, which
// TestParse_ATitleFromAnH1ReadsItsLinksAsShown checks.)
func TestSearchAndActivate_HeadingPathsReadAsShown(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"guide.md": "# An Introduction to [[dataview|Dataview]]\n\nA guide.\n\n## Lists in [[YAML]]\n\nA key takes more than one value with a list.\n\n" +
			"## ![[diagram.png]]\n\nThe diagram of list values.\n",
		"other.md": "# Other\n\nNothing about it.\n",
	})
	want := []string{"An Introduction to Dataview", "Lists in YAML"}
	hits := tv.search("more than one value with a list", vault.SearchOptions{})
	if len(hits) == 0 || !slices.Equal(hits[0].HeadingPath, want) {
		t.Fatalf("search: %+v, want heading path %q first", hits, want)
	}
	act := tv.activate("more than one value with a list", "")
	if len(act.Fragments) == 0 || !slices.Equal(act.Fragments[0].HeadingPath, want) {
		t.Fatalf("activate: %+v, want heading path %q first", act.Fragments, want)
	}
	raw, err := tv.Ix.Run(context.Background(), act.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Candidates []struct {
			HeadingPath []string `json:"heading_path"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Candidates) == 0 || !slices.Equal(run.Candidates[0].HeadingPath, want) {
		t.Errorf("the run record's first candidate: %+v, want heading path %q", run.Candidates, want)
	}
	// A heading that is only an embed keeps its markup rather than reading
	// as empty.
	embedOnly := []string{"An Introduction to Dataview", "![[diagram.png]]"}
	if hits := tv.search("diagram of list values", vault.SearchOptions{}); len(hits) == 0 || !slices.Equal(hits[0].HeadingPath, embedOnly) {
		t.Errorf("search: %+v, want heading path %q first", hits, embedOnly)
	}
}

// Every score search gives is finite and the hits are in score order. A
// query that named a note's title ("timestamp format", on the ADR
// examples) gave the note's title section the exact stage's place, and
// ordering the note's sections then moved another of its sections
// ("Related decisions") into that place, with the exact stage's score of
// 1,000,000,000: the web search showed it first.
func TestSearch_EveryScoreIsFiniteAndInOrder(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"timestamp-format.md": "# Timestamp format\n\nContents: summary, decision.\n\n## Decision\n\nUse ISO 8601 with UTC and nanoseconds.\n\n## Related\n\nDurations are easy with Unix epoch timestamps; timestamp format of logs too.\n",
		"other.md":            "# Logging\n\nEvery log line carries a timestamp in one format.\n",
	})
	hits := tv.search("timestamp format", vault.SearchOptions{})
	if len(hits) == 0 || hits[0].Stage != "exact" || hits[0].Path != "timestamp-format.md" || len(hits[0].HeadingPath) != 1 {
		t.Fatalf("the note named by its title is not first, by its title section: %+v", hits)
	}
	for i, h := range hits {
		if math.IsInf(h.Score, 0) || math.IsNaN(h.Score) || h.Score >= 1e6 {
			t.Errorf("hit %d (%s %v) scores %v", i, h.Path, h.HeadingPath, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hit %d (%s %v, %v) outscores the hit before it (%v)", i, h.Path, h.HeadingPath, h.Score, hits[i-1].Score)
		}
	}
}

// Chinese question phrasing is not content. "由哪几部分组成" ("what parts
// is it made of") matched a heading of that shape in another note, above
// the note the question named (issue 62's outside runs on a Chinese
// knowledge base).
func TestSearch_ChinesePhrasingIsNotContent(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"jvm.md":   "# JVM 内存由哪几部分组成\n\n堆、栈、方法区和程序计数器。\n",
		"redis.md": "# Redis 集群\n\nRedis 集群的节点：master 和 slave，哈希槽分在各个 master 上。\n",
	})
	for _, q := range []string{"Redis 集群由哪几部分组成", "Redis 集群是什么", "Redis 集群有哪些节点"} {
		if hits := tv.search(q, vault.SearchOptions{}); len(hits) == 0 || hits[0].Path != "redis.md" {
			t.Errorf("%s: %v, want redis.md first", q, paths(hits))
		}
	}
	if got := tokenize.QueryTerms("由哪几部分组成"); len(got) == 0 {
		t.Error("a query of phrasing alone lost every term")
	}
}
