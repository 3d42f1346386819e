package retrieve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	root := t.TempDir()
	tv := &testVault{t: t, root: root}
	tv.git("init", "-q", "-b", "main")
	for p, s := range files {
		tv.write(p, s)
	}
	v, err := vault.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ix, err := Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	tv.v, tv.ix = v, ix
	return tv
}

func (tv *testVault) git(args ...string) string {
	tv.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = tv.root
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tv.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tv *testVault) write(p, s string) {
	tv.t.Helper()
	full := filepath.Join(tv.root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tv.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		tv.t.Fatal(err)
	}
}

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

// copyDir copies a fixture folder into a map of files.
func readFixture(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
