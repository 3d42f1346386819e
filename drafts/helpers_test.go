package drafts

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// tvault is a real git repository holding a vault, with its index and Draft
// store, and the git CLI working on the same repository.
type tvault struct {
	t    testing.TB
	root string // repository top
	dir  string // the vault folder (root, or a folder inside it)
	v    *vault.Vault
	ix   *retrieve.Memory
	s    *Store
}

var gitEnv = []string{"GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=person@localhost", "GIT_COMMITTER_NAME=person",
	"GIT_COMMITTER_EMAIL=person@localhost", "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}

// newVault makes a repository whose vault (at sub inside it, "" for the top)
// holds files, commits it on main, and opens its index and store.
func newVault(t testing.TB, sub string, files map[string]string) *tvault {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	tv := &tvault{t: t, root: root, dir: filepath.Join(root, sub)}
	tv.git("init", "-q", "-b", "main")
	for p, s := range files {
		tv.write(p, s)
	}
	tv.git("add", "-A")
	tv.git("commit", "-qm", "start")
	tv.open()
	return tv
}

func (tv *tvault) open() {
	t := tv.t
	v, err := vault.Open(tv.dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := retrieve.Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), ix.Index, mustOutbox(t, ix.Index))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); ix.Close(); v.Close() })
	tv.v, tv.ix, tv.s = v, ix, s
}

func (tv *tvault) git(args ...string) string {
	tv.t.Helper()
	return testvault.Git(tv.t, tv.root, args...)
}

// write writes a vault file (path relative to the vault folder).
func (tv *tvault) write(p, s string) {
	tv.t.Helper()
	full := filepath.Join(tv.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tv.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		tv.t.Fatal(err)
	}
}

func (tv *tvault) read(p string) string {
	tv.t.Helper()
	data, err := os.ReadFile(filepath.Join(tv.dir, filepath.FromSlash(p)))
	if err != nil {
		tv.t.Fatal(err)
	}
	return string(data)
}

func (tv *tvault) apply(project string, op vault.Op) vault.StoreResult {
	tv.t.Helper()
	res, err := tv.s.Apply(context.Background(), project, op)
	if err != nil {
		tv.t.Fatalf("store: %v", err)
	}
	return res
}

func (tv *tvault) load(project, id string) vault.Loaded {
	tv.t.Helper()
	rs, err := tv.ix.Load(context.Background(), []string{id}, project)
	if err != nil {
		tv.t.Fatalf("load %s as %s: %v", id, project, err)
	}
	return rs[0]
}

func (tv *tvault) missing(project, id string) {
	tv.t.Helper()
	_, err := tv.ix.Load(context.Background(), []string{id}, project)
	if vault.ErrorCode(err) != vault.CodeNotFound {
		tv.t.Fatalf("load %s as %s: want memory_resource_not_found, got %v", id, project, err)
	}
}

func str(s string) *string { return &s }

func update(id, hash string, rs ...string) vault.Op {
	u := &vault.UpdateOp{ID: id, ExpectedHash: hash}
	for i := 0; i+1 < len(rs); i += 2 {
		u.Replacements = append(u.Replacements, vault.Replacement{OldText: rs[i], NewText: rs[i+1]})
	}
	return vault.Op{Update: u}
}

var baseFiles = map[string]string{
	"lore.yaml":           "org_ref: main\nprojects:\n  api: {}\n  web: {}\n",
	"LORE.md":             "---\ntitle: Memory guidelines\n---\n# Guidelines\n\nKeep notes short.\n",
	"decisions/0001.md":   "---\nid: mem_adr1\ntitle: Use SQLite\n---\n# Use SQLite\n\nThe index is SQLite with FTS5.\n\n## Why\n\nOne file, no server.\n",
	"howto/release.md":    "---\nid: mem_release\n---\n# Release\n\nRun the tests first.\n",
	"projects/api/api.md": "---\nid: mem_api\n---\n# API notes\n\nThe API uses JSON.\n",
}

func searchOpt(project string) vault.SearchOptions {
	return vault.SearchOptions{Project: project, Limit: 10}
}

// withFiles returns baseFiles with some files added or replaced.
func withFiles(extra map[string]string) map[string]string {
	out := map[string]string{}
	for p, s := range baseFiles {
		out[p] = s
	}
	for p, s := range extra {
		out[p] = s
	}
	return out
}

// mustOutbox opens the vault's outbox, as lore does beside the index.
func mustOutbox(t testing.TB, ix *fts.Index) *outbox.Outbox {
	t.Helper()
	out, err := outbox.Open(context.Background(), filepath.Join(ix.Vault().DataDir(), "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
