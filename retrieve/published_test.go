package retrieve

import (
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// An agent's Delete Draft never disowns reviewed memory before the hooks:
// activate with PublishedOnly (what lore hook asks) still delivers the
// published note the project's Draft deletes, and a session that holds it
// is never told it was removed. The agent's own activate sees the Draft
// laid over, as Effective Memory says.
func TestActivate_PublishedOnlyIgnoresTheProjectsDrafts(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"decisions/adr-001-webhooks.md": "# ADR 001: Webhooks\n\n## Decision\n\nWebhooks are signed with HMAC-SHA256 and retried with backoff.\n",
		"notes/other.md":                "# Other\n\nNothing about hooks.\n",
	})
	q := "how are webhooks signed and retried?"
	hook := vault.ActivateRequest{Query: q, Project: "api", PublishedOnly: true, RelevantOnly: true}
	first, err := tv.Ix.Activate(t.Context(), hook)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Fragments) == 0 || first.Fragments[0].Path != "decisions/adr-001-webhooks.md" {
		t.Fatalf("the hook's first answer: %v", keys(first))
	}
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "api", Head: "h1", Files: []vault.OverlayFile{
		{Path: "decisions/adr-001-webhooks.md", Data: nil}, // deleted in the Draft
	}}})
	fresh, err := tv.Ix.Activate(t.Context(), hook)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh.Fragments) == 0 || fresh.Fragments[0].Path != "decisions/adr-001-webhooks.md" || fresh.Fragments[0].DraftID != "" {
		t.Errorf("a new session's hook lost the reviewed note to a Delete Draft: %v", keys(fresh))
	}
	again := hook
	again.State = first.NextState
	held, err := tv.Ix.Activate(t.Context(), again)
	if err != nil {
		t.Fatal(err)
	}
	if len(held.Removed) != 0 {
		t.Errorf("the session was told reviewed memory is gone: removed %v", held.Removed)
	}
	agent, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: q, Project: "api", State: first.NextState})
	if err != nil {
		t.Fatal(err)
	}
	if len(agent.Removed) != 1 {
		t.Errorf("the agent's own activate does not see its Draft's delete: removed %v", agent.Removed)
	}
}
