package retrieve

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/testmodel"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// TestActivate_BuiltinModelOrdersByMeaning runs the real built-in model on the
// demo vault: a query that shares no words with the release how-to must still
// find it through the vector stage. It needs `make model`; CI sets
// LORE_REQUIRE_MODEL so a missing model fails instead of skipping.
func TestActivate_BuiltinModelOrdersByMeaning(t *testing.T) {
	b := testmodel.Builtin(t)
	tv := newTestVault(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	testmodel.EmbedAll(t, tv.Ix.Index, b)
	ctx := context.Background()
	units, err := tv.Ix.Pipeline.Rank(ctx, "shipping a new version to users", "vector", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	for _, u := range units[:min(5, len(units))] {
		top[u.Path] = true
	}
	if !top["howto/release.md"] && !top["projects/api/deploy.md"] && !top["projects/web/发布流程.md"] {
		t.Errorf("vector stage top 5 for a release question: %v", units[:min(5, len(units))])
	}
	act, err := tv.Ix.Activate(ctx, vault.ActivateRequest{Query: "how do I release the app"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range act.Fragments[:min(3, len(act.Fragments))] {
		found = found || f.Path == "howto/release.md"
	}
	if !found {
		t.Errorf("hybrid activate top 3 lacks the release how-to: %v", keys(act))
	}
}
