package retrieve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// Attacks by an agent's Draft on the published memory of its own project:
// a Draft is its project's to read (it ranks there by its own scores), not
// a way to hide, outvote or crowd out what a person published.

// inDraft lays files over project alpha as one agent's Draft and activates
// q in project.
func inDraft(t *testing.T, tv *testVault, files []vault.OverlayFile, q, project string) *vault.Activation {
	t.Helper()
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: files}})
	act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: q, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	return act
}

// scratchNotes is n Draft notes under scratch/, the i-th holding text(i).
func scratchNotes(n int, text func(i int) string) []vault.OverlayFile {
	out := make([]vault.OverlayFile, n)
	for i := range out {
		out[i] = vault.OverlayFile{Path: fmt.Sprintf("scratch/s%d.md", i), Data: []byte(text(i))}
	}
	return out
}

// amongOthers is a vault of files and twelve notes without the
// questions' words, so that those words are rare, as in a vault.
func amongOthers(t *testing.T, files map[string]string) *testVault {
	for i := range 12 {
		files[fmt.Sprintf("notes/other-%d.md", i)] = fmt.Sprintf("# Other %d\n\nThe build runs on every push; case %d.\n", i, i)
	}
	return newTestVault(t, files)
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
	act := inDraft(t, tv, []vault.OverlayFile{{Path: "notes/scratch.md", Data: []byte("# Scratch\n\n## Rule\n\n" + rule + "\n")}},
		"how to take the payment lock", "alpha")
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
	drafts := scratchNotes(4, func(int) string { return stuffed })
	act := inDraft(t, tv, drafts, q, "alpha")
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
	drafts := scratchNotes(20, func(i int) string {
		return fmt.Sprintf("# Scratch %d\n\n## Payment lock expiry %d\n\nThe payment lock expiry, case %d: the payment lock expiry is what the payment lock expiry says, %d times. %s\n",
			i, i, i, i*7, strings.Repeat("Payment lock expiry again. ", i%3*40))
	})
	act := inDraft(t, tv, drafts, "payment lock expiry", "alpha")
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
	drafts := scratchNotes(5, func(i int) string {
		return fmt.Sprintf("# Scratch %d\n\nPayment lock expiry, case %d:\n\n- [[Office plants]]\n- [[Office plants]]\n", i, i)
	})
	order := func(project string) []string {
		act := inDraft(t, tv, drafts, "payment lock expiry", project)
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

// An agent's Draft cannot flood published memory out of its project's
// candidates: 45 Draft notes stuffed with a question's words held every
// place of the BM25 list (its depth is 40), the published decision that
// answers was not even a candidate, and the project's activation
// delivered six Draft fragments and nothing published. The published
// view's own best are candidates too.
func TestAttack_DraftsCannotFloodPublishedMemoryOut(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe webhook handler takes a payment lock per event before it charges, and a crashed worker's lock expires after thirty seconds.\n",
		"notes/onboarding.md":          "# Onboarding\n\nRead the handbook, then ask who owns the payment lock.\n",
	})
	drafts := scratchNotes(45, func(i int) string {
		return fmt.Sprintf("# Scratch %d\n\n## Payment lock expiry %d\n\nThe payment lock expiry, case %d: the payment lock expiry is what the payment lock expiry says, %d times.\n", i, i, i, i*7)
	})
	// A Draft that edits the onboarding note shadows it: the published
	// version stays out of the project's candidates.
	drafts = append(drafts, vault.OverlayFile{Path: "notes/onboarding.md", Data: []byte("# Onboarding\n\nRead the handbook; the payment lock expiry is in the decisions.\n")})
	for _, inMemory := range []bool{false, true} { // BM25 in SQL (one-shot commands), and on the server's copy
		if inMemory {
			if err := tv.Ix.Index.Resident().Keep(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		act := inDraft(t, tv, drafts, "payment lock expiry", "alpha")
		delivered, drafted := false, 0
		for _, f := range act.Fragments {
			delivered = delivered || f.Path == "decisions/webhook-retries.md"
			if f.DraftID != "" {
				drafted++
			}
			if f.Path == "notes/onboarding.md" && f.DraftID == "" {
				t.Errorf("in memory %v: the published onboarding note, which the project's Draft edits, was delivered beside it", inMemory)
			}
		}
		if !delivered || drafted == 0 {
			t.Errorf("in memory %v: the published decision delivered: %v, Draft fragments: %d; want both: %v", inMemory, delivered, drafted, keys(act))
		}
	}
}

// An agent's Draft cannot rescale published memory: the lexical score is a
// share of the best BM25 score among the candidates, and the notes'
// coverage a share of the best candidate's score. A Draft stuffed with a
// question's words set both in its project, so every published section's
// BM25 shrank beside the coverage it gained, and published notes took
// another order there than in any other project. Published memory is
// scaled by published memory.
func TestAttack_ADraftCannotRescalePublishedMemory(t *testing.T) {
	files := map[string]string{
		"notes/lock-faq.md":            "# Payment lock\n\nThe payment lock is the payment lock: ask for the payment lock before the payment.\n",
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe handler takes a payment lock per event.\n\n## Expiry\n\nA crashed worker's lock has an expiry of thirty seconds.\n",
		"notes/onboarding.md":          "# Onboarding\n\nRead the handbook, then ask about the payment service.\n",
	}
	tv := amongOthers(t, files)
	drafts := scratchNotes(20, func(i int) string {
		return fmt.Sprintf("# Payment lock expiry thirty seconds %d\n\nPayment lock expiry thirty seconds: payment lock expiry, thirty seconds, payment lock expiry thirty seconds, %d times.\n", i, i)
	})
	order := func(project string) []string {
		act := inDraft(t, tv, drafts, "payment lock expiry thirty seconds", project)
		var paths []string
		for _, c := range tv.run(act.RunID).Ranked {
			if !strings.HasPrefix(c.Path, "scratch/") {
				paths = append(paths, c.UnitKey)
			}
		}
		return paths
	}
	for _, fusion := range []string{"score", "rrf"} {
		if err := tv.Ix.Pipeline.UseFusion(vault.RetrievalConfig{Fusion: fusion}); err != nil {
			t.Fatal(err)
		}
		if alpha, beta := order("alpha"), order("beta"); !slices.Equal(alpha, beta) {
			t.Errorf("fusion %s: published sections in the Draft's project rank %v; elsewhere %v", fusion, alpha, beta)
		}
	}
}

// An agent's Draft cannot push a published section out of the places a
// stage's top gives: a section at the top three of BM25 or of the vectors
// is a plausible answer, which a note's cap of two sections lets through.
// Five Draft notes stuffed with a question's words took the top three in
// their project, and the published decision's third section, delivered in
// every other project, was cut there by the cap. A published unit's rank
// in a stage is its rank among published units.
func TestAttack_DraftsCannotPushPublishedSectionsOffAStagesTop(t *testing.T) {
	files := map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Lock\n\nThe handler takes a payment lock per event; the lock's expiry is thirty seconds.\n\n" +
			"## Expiry\n\nA crashed worker's payment lock expiry is thirty seconds, then the lock is free.\n\n" +
			"## Retries\n\nA retry waits for the payment lock expiry before it charges again.\n",
	}
	tv := amongOthers(t, files)
	drafts := scratchNotes(5, func(i int) string {
		return fmt.Sprintf("# Payment lock expiry %d\n\nPayment lock expiry: the payment lock expiry, case %d.\n", i, i)
	})
	published := func(project string) []string {
		var keys []string
		for _, f := range inDraft(t, tv, drafts, "payment lock expiry", project).Fragments {
			if f.DraftID == "" {
				keys = append(keys, f.UnitKey)
			}
		}
		slices.Sort(keys)
		return keys
	}
	alpha, beta := published("alpha"), published("beta")
	if len(beta) != 3 {
		t.Fatalf("elsewhere the decision's three sections should be delivered: %v", beta)
	}
	if !slices.Equal(alpha, beta) {
		t.Errorf("published fragments in the Draft's project %v; elsewhere %v", alpha, beta)
	}
}

// crowded is four published notes that hold a question's words (the
// question: "payment lock expiry") and twenty Draft notes of project alpha
// stuffed with them.
func crowded(t *testing.T) *testVault {
	tv := newTestVault(t, map[string]string{
		"decisions/webhook-retries.md": "# Webhook retries\n\n## Rule\n\nThe webhook handler takes a payment lock per event before it charges, and a crashed worker's lock expires after thirty seconds.\n",
		"notes/onboarding.md":          "# Onboarding\n\nRead the handbook, then ask who owns the payment lock.\n",
		"notes/office.md":              "# Office\n\nThe payment for the new desks is in the shared sheet.\n",
		"notes/billing.md":             "# Billing\n\nInvoices go out on the first; a payment is due in thirty days.\n",
	})
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: scratchNotes(20, func(i int) string {
		return fmt.Sprintf("# Scratch %d\n\n## Payment lock expiry %d\n\nThe payment lock expiry, case %d: the payment lock expiry is what the payment lock expiry says, %d times.\n", i, i, i, i*7)
	})}})
	return tv
}

// publishedKeptInHalf checks a list of limit places (its published items,
// and how many Drafts) in the Drafts' project alpha against the same list
// in project beta, which sees no Draft: Drafts hold at most half of the
// places, and the published items are beta's first, in beta's order.
func publishedKeptInHalf(t *testing.T, list func(project string, limit int) (published []string, fromDrafts int)) {
	t.Helper()
	for _, limit := range []int{1, 4} { // four published notes hold a question word
		got, fromDrafts := list("alpha", limit)
		want, _ := list("beta", limit)
		if len(got)+fromDrafts != limit || fromDrafts > limit/2 || len(want) < limit || !slices.Equal(got, want[:limit-fromDrafts]) {
			t.Errorf("limit %d: in the Drafts' project %d Drafts and the published %v; elsewhere %v", limit, fromDrafts, got, want)
		}
	}
}

// Nor can Drafts crowd published memory out of recall_memory's answer:
// recall gives the best notes of activate's ranking, each once, and twenty
// Draft notes stuffed with a question's words took every one of its places
// in their project. Drafts take at most half of recall's places, as of
// activate's, while a published note is left to take one (that they fill
// what is left after: TestRecall_DraftsFillWhatPublishedMemoryLeaves).
func TestAttack_DraftsCannotCrowdOutPublishedMemoryFromRecall(t *testing.T) {
	tv := crowded(t)
	publishedKeptInHalf(t, func(project string, limit int) (published []string, fromDrafts int) {
		hits, err := tv.Ix.Recall(t.Context(), "payment lock expiry", "lexical", project, limit)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.DraftID != "" {
				fromDrafts++
			} else {
				published = append(published, h.Path)
			}
		}
		return published, fromDrafts
	})
}

// What the Drafts' half leaves to published notes, Drafts fill when no
// published note is left: an agent still recalls its project's Drafts.
func TestRecall_DraftsFillWhatPublishedMemoryLeaves(t *testing.T) {
	tv := newTestVault(t, map[string]string{"notes/other.md": "# Other\n\nThe build runs on every push.\n"})
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []vault.OverlayFile{
		{Path: "scratch/a.md", Data: []byte("# Payment lock\n\nThe payment lock expires after thirty seconds.\n")},
		{Path: "scratch/b.md", Data: []byte("# Payment retries\n\nA retry waits for the payment lock.\n")},
	}}})
	hits, err := tv.Ix.Recall(t.Context(), "payment lock", "lexical", "alpha", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].DraftID == "" {
		t.Errorf("with no published note that matches, recall's one place goes to the best Draft: %+v", hits)
	}
}

// Nor can Drafts crowd published memory out of search, which people use
// (the web UI's search in a project, `lore search` in a bound workspace):
// twenty Draft notes stuffed with a question's words took every hit in
// their project, the published ones pushed past the depth BM25 was asked
// for. Drafts take at most half of the hits while a published one is left
// to take a place, and the published view's own best are found beside the
// project's.
func TestAttack_DraftsCannotCrowdOutPublishedMemoryFromSearch(t *testing.T) {
	tv := crowded(t)
	publishedKeptInHalf(t, func(project string, limit int) (published []string, fromDrafts int) {
		for _, h := range tv.search("payment lock expiry", vault.SearchOptions{Project: project, Limit: limit}) {
			if h.DraftID != "" {
				fromDrafts++
			} else {
				published = append(published, h.UnitKey)
			}
		}
		return published, fromDrafts
	})
}
