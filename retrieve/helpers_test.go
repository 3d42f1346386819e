package retrieve

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// testVault is a real git repository in a temporary folder with a real index.
type testVault struct {
	t    *testing.T
	root string
	v    *vault.Vault
	ix   *Memory
}

func newTestVault(t *testing.T, files map[string]string) *testVault {
	t.Helper()
	tv := &testVault{t: t, root: testvault.New(t, files)}
	tv.v, tv.ix = testvault.Open(t, tv.root, Open)
	return tv
}

func (tv *testVault) git(args ...string) string {
	tv.t.Helper()
	return testvault.Git(tv.t, tv.root, args...)
}

func (tv *testVault) write(p, s string) { tv.t.Helper(); testvault.Write(tv.t, tv.root, p, s) }

func (tv *testVault) search(q string, opt vault.SearchOptions) []vault.Hit {
	tv.t.Helper()
	hits, err := tv.ix.Search(context.Background(), q, opt)
	if err != nil {
		tv.t.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

// topPath returns the path of the first hit, or "".
func (tv *testVault) topPath(q string) string {
	tv.t.Helper()
	hits := tv.search(q, vault.SearchOptions{Limit: 5})
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Path
}

func hasPath(hits []vault.Hit, p string) bool {
	for _, h := range hits {
		if h.Path == p {
			return true
		}
	}
	return false
}

func readFixture(t *testing.T, dir string) map[string]string {
	t.Helper()
	return testvault.ReadFixture(t, dir)
}
