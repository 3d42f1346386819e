// Package testvault makes the real git repositories of vaults that tests
// and benchmarks of several packages (fts, retrieve) index: files written
// into a temporary folder, the git CLI run in it, fixtures read from
// testdata, and generated vaults of a given size.
package testvault

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/vault"
)

// New makes a git repository (branch main) in a temporary folder holding
// files (slash paths relative to the root), and returns its root.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	Git(t, root, "init", "-q", "-b", "main")
	for p, s := range files {
		Write(t, root, p, s)
	}
	return root
}

// Repo makes dir (made if missing) a git repository on branch main holding
// files and whatever dir held already, all committed ("start"), and
// returns dir: the fixture most tests start from.
func Repo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	for p, s := range files {
		Write(t, dir, p, s)
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "start")
	return dir
}

// Committed is Repo in a new temporary folder (its real path, symlinks
// resolved).
func Committed(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return Repo(t, dir, files)
}

// Git runs the git CLI in dir with a fixed identity and returns its output.
// It runs git as a person does, not through internal/gitcli: gitcli's
// GIT_LITERAL_PATHSPECS=1 makes `git stash pop` fail, and the tests use git
// the way users do.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// GitAt is Git with the commit's dates set to date ("2026-01-02"): a test
// that orders two repositories' commits in time sets them rather than
// waiting for the clock's second to turn.
func GitAt(t testing.TB, dir, date string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost",
		"GIT_AUTHOR_DATE="+date+"T12:00:00Z", "GIT_COMMITTER_DATE="+date+"T12:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write writes a file at slash path p under root, making its folders.
func Write(t testing.TB, root, p, s string) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadFixture reads the Markdown files under dir into a map by slash path.
func ReadFixture(t testing.TB, dir string) map[string]string {
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

// BenchNotes is how many notes benchmarks generate: LORE_BENCH_NOTES, or
// 2,000 (the README figures use 10,000).
func BenchNotes() int {
	if n, err := strconv.Atoi(os.Getenv("LORE_BENCH_NOTES")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// Generated makes a git repository holding a generated vault of n notes
// (lore bench's, seed 1) and returns its root and the notes' paths.
func Generated(t testing.TB, n int) (string, []string) {
	t.Helper()
	root := t.TempDir()
	Git(t, root, "init", "-q")
	paths, err := synth.GenerateVault(root, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return root, paths
}

// Open opens the vault at root and its index with open (fts.Open,
// retrieve.Open), and closes both when the test ends.
func Open[T io.Closer](t testing.TB, root string, open func(context.Context, *vault.Vault) (T, error)) (*vault.Vault, T) {
	t.Helper()
	v, err := vault.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ix, err := open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return v, ix
}

// Vault is a test vault: a git repository of files, the vault opened on it
// and its index, of type I (*fts.Index, *retrieve.Memory).
type Vault[I io.Closer] struct {
	T    *testing.T
	Root string
	V    *vault.Vault
	Ix   I
}

// NewVault makes a Vault of files, its index opened with open.
func NewVault[I io.Closer](t *testing.T, files map[string]string, open func(context.Context, *vault.Vault) (I, error)) *Vault[I] {
	t.Helper()
	tv := &Vault[I]{T: t, Root: New(t, files)}
	tv.V, tv.Ix = Open(t, tv.Root, open)
	return tv
}

// Git runs the git CLI in the vault.
func (tv *Vault[I]) Git(args ...string) string { tv.T.Helper(); return Git(tv.T, tv.Root, args...) }

// Write writes a file of the vault.
func (tv *Vault[I]) Write(p, s string) { tv.T.Helper(); Write(tv.T, tv.Root, p, s) }

// FirstPath is the path of the first hit, or "".
func FirstPath(hits []vault.Hit) string {
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Path
}

// HasPath reports whether a hit has path p.
func HasPath(hits []vault.Hit, p string) bool {
	for _, h := range hits {
		if h.Path == p {
			return true
		}
	}
	return false
}

// Refresher is an index Indexed can bring up to date; S is its refresh's
// report (fts.RefreshStats).
type Refresher[S any] interface {
	io.Closer
	Refresh(ctx context.Context, progress func(done, total int)) (S, error)
}

// Indexed opens, with open, the index of a generated vault of BenchNotes()
// notes, brought up to date, and returns it with the notes' paths.
func Indexed[S any, I Refresher[S]](t testing.TB, open func(context.Context, *vault.Vault) (I, error)) (I, []string) {
	t.Helper()
	root, paths := Generated(t, BenchNotes())
	_, ix := Open(t, root, open)
	if _, err := ix.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix, paths
}
