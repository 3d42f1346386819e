package fts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// unitsFound returns the unit keys BM25 finds for q in project's view,
// after a refresh, checking that the in-memory copy finds the same.
func unitsFound(t *testing.T, tv *testVault, q, project string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ts := tokenize.QueryTerms(tokenize.CutQuery(q))
	want, err := lexical(sqlLexical{tv.Ix}).bm25(ctx, ts, project, 50)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tv.Ix.memFor(ctx)
	if err != nil || m == nil {
		t.Fatalf("in-memory postings: %v, %v", m, err)
	}
	got, err := lexical(memLexical{tv.Ix, m}).bm25(ctx, ts, project, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: in memory %d hits, FTS5 %d", q, len(got), len(want))
	}
	out := map[string]bool{}
	for i := range want {
		if got[i].UID != want[i].UID || got[i].Score != want[i].Score {
			t.Fatalf("%q, hit %d: in memory %s %v, FTS5 %s %v", q, i, got[i].UnitKey, got[i].Score, want[i].UnitKey, want[i].Score)
		}
		out[want[i].Path+"#"+last(want[i].HeadingPath)] = true
	}
	return out
}

func last(hp []string) string {
	if len(hp) == 0 {
		return ""
	}
	return hp[len(hp)-1]
}

// A section that only embeds a block, a heading (with its subsections) or a
// note, of another note or its own (![[#^id]]), is found by the words they
// show, as a reader of the note sees them; it follows the embedded note's
// edits, its deletion and a new note taking the name; a
// shared note's embed of a project's note finds nothing of that project,
// and an agent's Draft of an embedded note changes nothing a published note
// is found by; the in-memory copy scores all of it as FTS5 does.
func TestIndex_EmbedsCountForWhatASectionIsFoundBy(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"Refund policy.md":        "# Refund policy\n\nIntro.\n\nAsk within thirty days for a prorated reimbursement. ^discount\n\n## Chargebacks\n\nDisputes go to the wombat desk.\n\n### Escalation\n\nEscalations reach the narwhal office.\n\n## In short\n\n![[#^discount]]\n",
		"FAQ.md":                  "# FAQ\n\n## Refunds\n\n![[Refund policy#^discount]]\n\n## Disputes\n\n![[Refund policy#Chargebacks]]\n\n## Everything\n\n![[Glossary]]\n\n## Secret\n\n![[plans]]\n\n## Self\n\n![[FAQ#Refunds]]\n",
		"projects/alpha/plans.md": "---\nproject: alpha\n---\n# Plans\n\nthe zeppelin launch is in march\n",
		"projects/alpha/board.md": "---\nproject: alpha\n---\n# Board\n\n![[plans]]\n",
	})
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"prorated reimbursement": "FAQ.md#Refunds",
		"wombat desk":            "FAQ.md#Disputes",
		"narwhal office":         "FAQ.md#Disputes",
	} {
		if got := unitsFound(t, tv, q, ""); !got[want] {
			t.Errorf("%q found %v, want %s among them", q, got, want)
		}
	}
	if got := unitsFound(t, tv, "prorated reimbursement", ""); !got["Refund policy.md#In short"] {
		t.Errorf("a section embedding a block of its own note (![[#^discount]]): found %v, want Refund policy.md#In short", got)
	}
	if got := unitsFound(t, tv, "zeppelin launch", ""); got["FAQ.md#Secret"] {
		t.Errorf("a shared note's embed of a project's note made it findable by that project's words: %v", got)
	}
	if got := unitsFound(t, tv, "zeppelin launch", "alpha"); !got["projects/alpha/board.md#Board"] {
		t.Errorf("alpha's note embedding alpha's plans: found %v, want board.md#Board", got)
	}

	// An agent's Draft of alpha's plans changes nothing a published note is
	// found by, even when the embedding note is indexed again meanwhile.
	tv.Ix.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []OverlayFile{
		{Path: "projects/alpha/plans.md", Data: []byte("---\nproject: alpha\n---\n# Plans\n\nthe platypus parade is cancelled\n")},
	}}})
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tv.Write("projects/alpha/board.md", "---\nproject: alpha\n---\n# Board\n\n![[plans]]\n\nupdated\n")
	if got := unitsFound(t, tv, "platypus parade", "alpha"); got["projects/alpha/board.md#Board"] {
		t.Errorf("a Draft's text made the published board findable: %v", got)
	}
	if got := unitsFound(t, tv, "zeppelin launch", "alpha"); !got["projects/alpha/board.md#Board"] {
		t.Errorf("with a Draft of the plans open, the board is no longer found by the published plans: %v", got)
	}
	tv.Ix.UseOverlay(testvault.Drafts{})

	// The embedded block changes: the section follows.
	tv.Write("Refund policy.md", "# Refund policy\n\nIntro.\n\nAsk within ninety days for store credit. ^discount\n\n## Chargebacks\n\nDisputes go to the wombat desk.\n")
	if got := unitsFound(t, tv, "prorated reimbursement", ""); got["FAQ.md#Refunds"] {
		t.Errorf("after the edit, the old words still find the section: %v", got)
	}
	if got := unitsFound(t, tv, "store credit ninety", ""); !got["FAQ.md#Refunds"] {
		t.Errorf("after the edit, the new words find %v, want FAQ.md#Refunds", got)
	}

	// A note comes to have the embedded name, then the embedded note goes.
	tv.Write("Glossary.md", "# Glossary\n\nA capybara is a kind of ledger.\n")
	if got := unitsFound(t, tv, "capybara ledger", ""); !got["FAQ.md#Everything"] {
		t.Errorf("a new note an embed names: found %v, want FAQ.md#Everything", got)
	}
	if err := os.Remove(filepath.Join(tv.Root, "Refund policy.md")); err != nil {
		t.Fatal(err)
	}
	if got := unitsFound(t, tv, "wombat desk", ""); len(got) != 0 {
		t.Errorf("after the embedded note was deleted, its words find %v", got)
	}
	// The unit's own text is what search delivers, whatever it embeds.
	hits := tv.search("capybara ledger", vault.SearchOptions{Limit: 5})
	for _, h := range hits {
		units, _ := tv.Ix.Lookups().UnitsByKey(ctx, []string{h.UnitKey}, "")
		if h.Path == "FAQ.md" && units[h.UnitKey].Content != "## Everything\n\n![[Glossary]]" {
			t.Errorf("FAQ's unit text %q, want its own bytes", units[h.UnitKey].Content)
		}
	}
}

// A Markdown embed of a note (![](Note.md#Heading), a vault written with
// Markdown links) counts for what its section is found by, as ![[…]] does,
// by the path relative to the embedding note's folder, else by a bare file
// name anywhere in the vault (Obsidian's default link format writes one);
// it follows the embedded note's edits; an image stays a reference.
func TestIndex_MarkdownEmbedsCountForWhatASectionIsFoundBy(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"billing/Refund policy.md": "# Refund policy\n\nIntro.\n\n## Chargebacks\n\nDisputes go to the wombat desk.\n",
		"billing/FAQ.md":           "# FAQ\n\n## Disputes\n\n![](Refund%20policy.md#Chargebacks)\n\n## Words\n\n![glossary](<../Glossary.md>)\n\n## Terms\n\n![](Terms.md)\n\n## Chart\n\n![](chart.png)\n",
		"shared/Terms.md":          "# Terms\n\nAn axolotl is a kind of invoice.\n",
		"Glossary.md":              "# Glossary\n\nA capybara is a kind of ledger.\n",
		"other/Refund policy.md":   "# Refund policy\n\n## Chargebacks\n\nDisputes go to the platypus office.\n",
	})
	if err := tv.Ix.Resident().Keep(context.Background()); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"wombat desk":     "billing/FAQ.md#Disputes",
		"capybara ledger": "billing/FAQ.md#Words",
		"axolotl invoice": "billing/FAQ.md#Terms",
	} {
		if got := unitsFound(t, tv, q, ""); !got[want] {
			t.Errorf("%q found %v, want %s among them", q, got, want)
		}
	}
	if got := unitsFound(t, tv, "platypus office", ""); got["billing/FAQ.md#Disputes"] {
		t.Errorf("the embed read the other folder's note of the same name: %v", got)
	}
	embedded := map[string]string{}
	rows, err := tv.Ix.db.Query(`SELECT u.heading_path, u.embedded FROM units u JOIN resources r ON r.rid = u.rid WHERE r.path = 'billing/FAQ.md'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var hp, e string
		if err := rows.Scan(&hp, &e); err != nil {
			t.Fatal(err)
		}
		embedded[hp] = e
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if e := embedded[`["FAQ","Chart"]`]; e != "" {
		t.Errorf("an image embed shows %q; want it left a reference", e)
	}
	if e := embedded[`["FAQ","Disputes"]`]; !strings.Contains(e, "wombat desk") {
		t.Errorf("the Disputes section keeps %q as its embeds' text; want the Chargebacks section", e)
	}
	tv.Write("billing/Refund policy.md", "# Refund policy\n\n## Chargebacks\n\nDisputes go to the heron counter.\n")
	if got := unitsFound(t, tv, "heron counter", ""); !got["billing/FAQ.md#Disputes"] {
		t.Errorf("after the edit, the new words find %v, want billing/FAQ.md#Disputes", got)
	}
	if got := unitsFound(t, tv, "wombat desk", ""); got["billing/FAQ.md#Disputes"] {
		t.Errorf("after the edit, the old words still find the section: %v", got)
	}
	tv.Write("shared/Terms.md", "# Terms\n\nA quokka is a kind of receipt.\n")
	if got := unitsFound(t, tv, "quokka receipt", ""); !got["billing/FAQ.md#Terms"] {
		t.Errorf("after the edit of a note embedded by its bare name, the new words find %v, want billing/FAQ.md#Terms", got)
	}
}

// The model embeds what a section of embeds shows, under the embed hash
// that names that input, and embeds it again when the embedded text
// changes.
func TestIndex_EmbedsAreInTheModelsInput(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"Refund policy.md": "# Refund policy\n\nAsk within thirty days for a prorated reimbursement. ^discount\n",
		"FAQ.md":           "# FAQ\n\n## Refunds\n\n![[Refund policy#^discount]]\n",
	})
	ctx := context.Background()
	if err := tv.Ix.Vectors().Use(ctx, &embed.HashEmbedder{Dims: 16}); err != nil {
		t.Fatal(err)
	}
	input := func() (string, string) {
		t.Helper()
		if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var uid int64
		var eh string
		if err := tv.Ix.db.QueryRowContext(ctx, `SELECT u.uid, `+hashSQL("u.embed_hash")+` FROM units u JOIN resources r ON r.rid = u.rid
			WHERE r.path = 'FAQ.md' AND u.heading_path LIKE '%Refunds%'`).Scan(&uid, &eh); err != nil {
			t.Fatal(err)
		}
		hashes, texts, _, err := tv.Ix.unitInputs(ctx, []int64{uid})
		if err != nil {
			t.Fatal(err)
		}
		if len(texts) != 1 || hashes[0] != eh {
			t.Fatalf("the unit's model input: %d texts, hashes %v, want one under %s", len(texts), hashes, eh)
		}
		head, body, _ := strings.Cut(texts[0], "\n")
		if want := vault.HashBytes([]byte(head + "\n" + vault.HashBytes([]byte(body)))); eh != want {
			t.Errorf("embed_hash %s does not name the input %q (want %s)", eh, texts[0], want)
		}
		return eh, texts[0]
	}
	h1, text := input()
	if !strings.Contains(text, "prorated reimbursement") {
		t.Errorf("the model's input %q lacks the embedded block", text)
	}
	if _, err := tv.Ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tv.Write("Refund policy.md", "# Refund policy\n\nAsk within ninety days for store credit. ^discount\n")
	h2, text := input()
	if h1 == h2 || !strings.Contains(text, "store credit") {
		t.Errorf("after the embedded block changed: hash %s → %s, input %q", h1, h2, text)
	}
	if n, err := tv.Ix.pendingEmbeddings(ctx); err != nil || n == 0 {
		t.Errorf("the changed input waits for no vector (%d, %v)", n, err)
	}
}
