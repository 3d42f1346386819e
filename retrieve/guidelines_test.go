package retrieve

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/testmodel"
	"github.com/lore-memory/lore/vault"
)

// The vault's guidelines (LORE.md, which lore init writes) are how to write
// memory, not memory a task needs: agents are told to load them before
// they store anything, and they reach them by that road. activate (and the
// prompt hook, which runs it) never delivers them, however many of an
// everyday prompt's words they hold: on advanced-java, lore's own English
// guidelines came first for "add a README section about installation" and
// twelve more of its 140 everyday prompts. search, which people use,
// still finds them.
func TestActivate_TheGuidelinesAreNotDelivered(t *testing.T) {
	tv := newTestVault(t, guidelinesVault())
	for _, q := range []string{
		"when may an agent propose a change to memory, and what must it never store",
		"add a README section about installation",
		"the linter says this line is too long",
	} {
		for _, relevant := range []bool{false, true} {
			act, err := tv.Ix.Activate(context.Background(), vaultRequest(q, relevant))
			if err != nil {
				t.Fatalf("activate %q: %v", q, err)
			}
			for _, f := range act.Fragments {
				if f.Path == "LORE.md" {
					t.Errorf("activate %q (relevant only: %v) delivered the guidelines: %v", q, relevant, f.HeadingPath)
				}
			}
		}
	}
	hits := tv.search("when may an agent propose a change to memory", vault.SearchOptions{Limit: 5})
	if len(hits) == 0 || hits[0].Path != "LORE.md" {
		t.Errorf("search no longer finds the guidelines first for a question they answer: %v", hits)
	}
}

// Found by meaning, the guidelines are not a candidate either: in vector
// mode a question about storing memory finds them nearest, and activate
// still does not deliver them.
func TestActivate_TheGuidelinesAreNotDeliveredByMeaning(t *testing.T) {
	b := testmodel.Builtin(t)
	tv := newTestVault(t, guidelinesVault())
	testmodel.EmbedAll(t, tv.Ix.Index, b)
	ctx := context.Background()
	for _, mode := range []string{"vector", "hybrid"} {
		act, err := tv.Ix.Activate(ctx, vault.ActivateRequest{Query: "what must an agent never store in memory, like passwords and tokens", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if len(act.Fragments) == 0 {
			t.Errorf("%s mode delivered nothing: the test would hold without the rule", mode)
		}
		for _, f := range act.Fragments {
			if f.Path == "LORE.md" {
				t.Errorf("%s mode delivered the guidelines: %v", mode, f.HeadingPath)
			}
		}
	}
}

// The guidelines are left out by the path lore.yaml gives them, written
// however it is written.
func TestActivate_TheGuidelinesLoreYamlNamesAreNotDelivered(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"lore.yaml":       "guidelines: ./docs/../GUIDE.md\n",
		"GUIDE.md":        vault.Guidelines(nil),
		"LORE.md":         "# Lint rules\n\nA line is too long past 100 characters; the linter says so.\n",
		"howto/readme.md": "# Writing the README\n\n## Installation\n\nThe README's installation section lists the one command that installs the tool.\n",
	})
	act := tv.activate("the linter says this line is too long", "")
	seen := map[string]bool{}
	for _, f := range act.Fragments {
		seen[f.Path] = true
	}
	if seen["GUIDE.md"] || !seen["LORE.md"] {
		t.Errorf("delivered %v; want LORE.md (a note here) and not GUIDE.md (the guidelines lore.yaml names)", seen)
	}
}

// guidelinesVault is the guidelines lore init writes beside a note on the
// README and a decision.
func guidelinesVault() map[string]string {
	return map[string]string{
		"LORE.md":           vault.Guidelines(nil),
		"howto/readme.md":   "# Writing the README\n\n## Installation\n\nThe README's installation section lists the one command that installs the tool.\n",
		"decisions/0001.md": "# Use SQLite for the index\n\nOne file, no server.\n",
	}
}

// recall_memory ranks with activate's pipeline: the guidelines are not
// among the notes it recalls either.
func TestRecall_TheGuidelinesAreNotRecalled(t *testing.T) {
	tv := newTestVault(t, guidelinesVault())
	hits, err := tv.Ix.Recall(context.Background(), "when may an agent propose a change to memory, and what must it never store", "lexical", "", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Path == "LORE.md" {
			t.Errorf("recall returned the guidelines: %+v", hits)
		}
	}
}
