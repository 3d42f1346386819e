package fts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// testVault is a real git repository in a temporary folder with a real index.
type testVault struct{ *testvault.Vault[*Index] }

func newTestVault(t *testing.T, files map[string]string) *testVault {
	t.Helper()
	return &testVault{testvault.NewVault(t, files, Open)}
}

func (tv *testVault) search(q string, opt vault.SearchOptions) []vault.Hit {
	tv.T.Helper()
	hits, err := searchUnits(context.Background(), tv.Ix, q, opt)
	if err != nil {
		tv.T.Fatalf("search %q: %v", q, err)
	}
	return hits
}

// searchUnits is the lexical search of package retrieve, from the lookups
// alone (that package's Search adds snippets): refresh, the exact match,
// then BM25 over the query's terms. The index's tests read what it finds
// through it.
func searchUnits(ctx context.Context, ix *Index, q string, opt vault.SearchOptions) ([]vault.Hit, error) {
	if _, err := ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	q = tokenize.CutQuery(q)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty")
	}
	l := ix.Lookups()
	found, err := l.Exact(ctx, q, opt.Project)
	if err != nil {
		return nil, err
	}
	if ts := tokenize.QueryTerms(q); len(ts) > 0 {
		lex, err := l.BM25(ctx, ts, opt.Project, opt.Limit+len(found))
		if err != nil {
			return nil, err
		}
		found = append(found, lex...)
	}
	var out []vault.Hit
	seen := map[string]bool{}
	for _, u := range found {
		if !seen[u.UnitKey] && len(out) < opt.Limit {
			seen[u.UnitKey] = true
			out = append(out, u.Hit)
		}
	}
	return out, nil
}

// topPath returns the path of the first hit, or "".
func (tv *testVault) topPath(q string) string {
	tv.T.Helper()
	return testvault.FirstPath(tv.search(q, vault.SearchOptions{Limit: 5}))
}

// editBehindTheIndex replaces old by new (of the same length) in the
// vault's file p and puts its modification time back: no freshness check
// sees the edit, as when an editor writes within the same second.
func editBehindTheIndex(t *testing.T, tv *testVault, p, old, new string) {
	t.Helper()
	full := filepath.Join(tv.Root, p)
	st, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), old, new, 1)
	if len(edited) != len(data) || edited == string(data) {
		t.Fatalf("the edit of %s must change it and keep its size", p)
	}
	if err := os.WriteFile(full, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, time.Now(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}
