package retrieve

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// testVault is a real git repository in a temporary folder with a real index.
type testVault struct{ *testvault.Vault[*Memory] }

func newTestVault(t *testing.T, files map[string]string) *testVault {
	t.Helper()
	return &testVault{testvault.NewVault(t, files, Open)}
}

func (tv *testVault) search(q string, opt vault.SearchOptions) []vault.Hit {
	tv.T.Helper()
	hits, err := tv.Ix.Search(context.Background(), q, opt)
	if err != nil {
		tv.T.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

// vaultRequest is an activation of q, relevant only when asked.
func vaultRequest(q string, relevantOnly bool) vault.ActivateRequest {
	return vault.ActivateRequest{Query: q, RelevantOnly: relevantOnly}
}
