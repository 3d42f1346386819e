package stale

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// repo is a git repository built in a test, its commits dated by the test.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	r := &repo{t: t, dir: t.TempDir()}
	r.git("", "init", "-q", "-b", "main")
	return r
}

// git runs git in the repository; date ("2026-10-01") dates a commit.
func (r *repo) git(date string, args ...string) string {
	r.t.Helper()
	var env []string
	if date != "" {
		env = []string{"GIT_AUTHOR_DATE=" + date + "T12:00:00Z", "GIT_COMMITTER_DATE=" + date + "T12:00:00Z"}
	}
	return r.gitEnv(env, args...)
}

// gitEnv runs git in the repository with env added.
func (r *repo) gitEnv(env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Ada", "-c", "user.email=ada@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(p, text string) {
	r.t.Helper()
	full := filepath.Join(r.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything on date and returns the commit's id.
func (r *repo) commit(date, msg string) string {
	r.git(date, "add", "-A")
	r.git(date, "commit", "-q", "-m", msg)
	return r.git("", "rev-parse", "HEAD")
}

const retryGo = `package sync

// backoffFor returns how long to wait before retry n.
func backoffFor(n int) time.Duration {
	d := time.Second << n
	return min(d, 5*time.Minute)
}

func other() {}
`

// fixture: a code repository with sync/retry.go, and a vault whose note,
// written the day after, cites the file, lines 4-7 (backoffFor's body), the
// identifier and the commit.
type fixture struct {
	code, vault *repo
	first       string // the code's first commit
	note        []byte
}

const notePath = "notes/retry.md"

func newFixture(t *testing.T) *fixture {
	f := &fixture{code: newRepo(t), vault: newRepo(t)}
	f.code.write("sync/retry.go", retryGo)
	f.code.write("sync/queue.go", "package sync\n\nfunc enqueue() {}\n")
	f.first = f.code.commit("2026-10-01", "retry")
	f.note = []byte("---\ntitle: Retries\n---\n# Retries\n\n" +
		"## Backoff\n\nRetries live in `sync/retry.go`; `backoffFor` caps at five minutes\n(`sync/retry.go:4-7`), since commit `" + f.first[:9] + "`.\n\n" +
		"## Prose\n\nThe retry budget is a plain idea: wait longer each time, and stop.\nConfig is in `lore.yaml`; run `make test`; send `application/json`.\n")
	f.vault.write(notePath, string(f.note))
	f.vault.commit("2026-10-02", "note")
	return f
}

func (f *fixture) check(t *testing.T) []vault.CodeFinding {
	t.Helper()
	c, err := New(context.Background(), f.code.dir, f.vault.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CheckNote(context.Background(), notePath, f.note)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func broken(fs []vault.CodeFinding) []vault.CodeFinding {
	var out []vault.CodeFinding
	for _, f := range fs {
		if f.Broken() {
			out = append(out, f)
		}
	}
	return out
}

func find(fs []vault.CodeFinding, cites string) (vault.CodeFinding, bool) {
	for _, f := range fs {
		if f.Cites == cites {
			return f, true
		}
	}
	return vault.CodeFinding{}, false
}

func TestCheck_NothingMovedMarksNothing(t *testing.T) {
	f := newFixture(t)
	if got := f.check(t); len(got) != 0 {
		t.Fatalf("nothing moved, yet: %+v", got)
	}
}

func TestCheck_UnrelatedLinesMovedMarksNothing(t *testing.T) {
	f := newFixture(t)
	// Two lines above the cited ones, and an edit below them: the cited
	// lines moved down but hold.
	f.code.write("sync/retry.go", strings.Replace(retryGo, "package sync\n", "package sync\n\nimport \"time\"\n", 1)+"\nfunc more() {}\n")
	c := f.code.commit("2026-10-05", "imports")
	got := f.check(t)
	if b := broken(got); len(b) != 0 {
		t.Fatalf("unrelated lines moved, yet marked: %+v", b)
	}
	// The file citation says the file changed since (not broken).
	ch, ok := find(got, "sync/retry.go")
	if !ok || ch.Problem != vault.ProblemChanged || ch.Commits != 1 || ch.Commit != c || ch.Date != "2026-10-05" || ch.Author != "Ada" {
		t.Fatalf("the changed file: %+v in %+v", ch, got)
	}
	if strings.Contains(strings.Join(strings.Fields(ch.Sentence()), " "), "removed") {
		t.Fatalf("a change reads as a removal: %s", ch.Sentence())
	}
}

func TestCheck_DeletedFile(t *testing.T) {
	f := newFixture(t)
	f.code.git("", "rm", "-q", "sync/retry.go")
	c := f.code.commit("2026-10-06", "drop retries")
	got := f.check(t)
	for _, cite := range []string{"sync/retry.go", "sync/retry.go:4-7"} {
		g, ok := find(got, cite)
		if !ok || g.Problem != vault.ProblemRemoved || g.Commit != c || g.Date != "2026-10-06" {
			t.Errorf("%s: %+v in %+v", cite, g, got)
		}
	}
	g, ok := find(got, "backoffFor")
	if !ok || g.Problem != vault.ProblemIdentifier || g.Commit != c {
		t.Errorf("backoffFor: %+v in %+v", g, got)
	}
	if g.HeadingPath[len(g.HeadingPath)-1] != "Backoff" || g.Line != 8 {
		t.Errorf("where: %v line %d", g.HeadingPath, g.Line)
	}
}

func TestCheck_RenamedFileIsARename(t *testing.T) {
	f := newFixture(t)
	f.code.git("", "mv", "sync/retry.go", "sync/backoff.go")
	c := f.code.commit("2026-10-07", "rename")
	got := f.check(t)
	g, ok := find(got, "sync/retry.go")
	if !ok || g.Problem != vault.ProblemRenamed || g.RenamedTo != "sync/backoff.go" || g.Commit != c {
		t.Fatalf("rename: %+v in %+v", g, got)
	}
	if _, ok := find(got, "backoffFor"); ok {
		t.Fatalf("backoffFor is in the renamed file, yet marked: %+v", got)
	}
	if s := g.Sentence(); !strings.Contains(s, "renamed to sync/backoff.go in "+c[:7]+" on 2026-10-07 by Ada") {
		t.Fatalf("sentence: %s", s)
	}
}

func TestCheck_EditedCitedLines(t *testing.T) {
	f := newFixture(t)
	f.code.write("sync/retry.go", strings.Replace(retryGo, "5*time.Minute", "10*time.Minute", 1))
	c := f.code.commit("2026-10-08", "longer cap")
	f.code.write("sync/retry.go", strings.Replace(retryGo, "5*time.Minute", "10*time.Minute", 1)+"// tail\n")
	f.code.commit("2026-10-09", "tail")
	got := f.check(t)
	g, ok := find(got, "sync/retry.go:4-7")
	if !ok || g.Problem != vault.ProblemLines || g.Commit != c || g.Commits != 2 {
		t.Fatalf("edited lines: %+v in %+v", g, got)
	}
	if _, ok := find(got, "backoffFor"); ok {
		t.Fatalf("backoffFor is still there, yet marked: %+v", got)
	}
}

func TestCheck_IdentifierRemoved(t *testing.T) {
	f := newFixture(t)
	f.code.write("sync/retry.go", strings.ReplaceAll(retryGo, "backoffFor", "delayFor"))
	c := f.code.commit("2026-10-10", "rename the function")
	got := f.check(t)
	g, ok := find(got, "backoffFor")
	if !ok || g.Problem != vault.ProblemIdentifier || g.Path != "sync/retry.go" || g.Commit != c || g.Date != "2026-10-10" {
		t.Fatalf("removed identifier: %+v in %+v", g, got)
	}
	if s := g.Sentence(); s != "cites `backoffFor` in sync/retry.go, removed in "+c[:7]+" on 2026-10-10 by Ada" {
		t.Fatalf("sentence: %s", s)
	}
}

func TestCheck_RewrittenHistoryLosesTheCommit(t *testing.T) {
	f := newFixture(t)
	f.code.git("2026-10-11", "commit", "-q", "--amend", "-m", "retry, reworded")
	got := f.check(t)
	g, ok := find(got, f.first[:9])
	if !ok || g.Problem != vault.ProblemCommit || g.Kind != KindCommit {
		t.Fatalf("rewritten history: %+v in %+v", g, got)
	}
}

func TestCheck_ProseAndOtherToolsWordsRaiseNothing(t *testing.T) {
	f := newFixture(t)
	// Everything moves: every file the note does not cite, and a new file.
	f.code.write("sync/queue.go", "package sync\n\nfunc enqueue(n int) {}\n")
	f.code.write("README.md", "# code\n")
	f.code.commit("2026-10-12", "elsewhere")
	f.note = []byte("# Plain\n\nThe retry budget is a plain idea: wait longer each time, and stop.\n" +
		"Config is in `lore.yaml`; run `make test`; send `application/json`; call `fooBar()`; the checksum is `deadbeef1`.\n" +
		"```go\nfunc gone() { sync/retry.go }\n```\n")
	f.vault.write(notePath, string(f.note))
	f.vault.commit("2026-10-13", "prose")
	if got := f.check(t); len(got) != 0 {
		t.Fatalf("prose, words of other tools and a fenced block raised: %+v", got)
	}
}

func TestCheck_CacheRunsNoGitWhenNothingMoved(t *testing.T) {
	f := newFixture(t)
	f.code.write("sync/retry.go", strings.ReplaceAll(retryGo, "backoffFor", "delayFor"))
	f.code.commit("2026-10-10", "rename the function")
	file := filepath.Join(t.TempDir(), "stale")
	ctx := context.Background()
	c, err := New(ctx, f.code.dir, f.vault.dir, file)
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.CheckNote(ctx, notePath, f.note)
	if err != nil || len(first) == 0 || c.GitRuns() == 0 {
		t.Fatalf("first check: %v, %d findings, %d git runs", err, len(first), c.GitRuns())
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	// A second process (a new checker on the same cache file).
	c2, err := New(ctx, f.code.dir, f.vault.dir, file)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c2.CheckNote(ctx, notePath, f.note)
	if err != nil || len(second) != len(first) {
		t.Fatalf("second check: %v, %+v", err, second)
	}
	if n := c2.GitRuns(); n != 0 {
		t.Fatalf("nothing moved, yet the second check ran git %d times", n)
	}
	// The code moves: the cache no longer answers.
	f.code.write("other.go", "package x\n")
	f.code.commit("2026-10-14", "more")
	if _, err := c2.CheckNote(ctx, notePath, f.note); err != nil || c2.GitRuns() == 0 {
		t.Fatalf("after a code commit: %v, %d git runs", err, c2.GitRuns())
	}
}

func TestCheck_UncommittedSectionIsNew(t *testing.T) {
	f := newFixture(t)
	f.code.write("sync/retry.go", strings.Replace(retryGo, "5*time.Minute", "10*time.Minute", 1))
	f.code.commit("2026-10-08", "longer cap")
	// The person rewrites the section now (not committed yet): it vouches
	// for the code as it is.
	f.note = []byte(strings.Replace(string(f.note), "caps at five minutes", "caps at ten minutes", 1))
	f.vault.write(notePath, string(f.note))
	if got := f.check(t); len(got) != 0 {
		t.Fatalf("a section written after the change is marked: %+v", got)
	}
}

// A code commit that touches none of the note's cited paths and names none
// of its identifiers keeps its findings without checking it again (the
// three git commands that learn what the commit changed, once, and no
// more); one that touches the cited file checks it anew.
func TestCheck_AnUnrelatedCommitKeepsTheFindings(t *testing.T) {
	f := newFixture(t)
	f.note = []byte("# Retries\n\n## Backoff\n\n`backoffFor` in `sync/retry.go` caps the wait.\n")
	f.vault.write(notePath, string(f.note))
	f.vault.commit("2026-10-02", "note without a commit id")
	f.code.write("sync/retry.go", strings.ReplaceAll(retryGo, "backoffFor", "delayFor"))
	f.code.commit("2026-10-10", "rename the function")
	ctx := context.Background()
	c, err := New(ctx, f.code.dir, f.vault.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.CheckNote(ctx, notePath, f.note)
	if err != nil || len(broken(first)) != 1 {
		t.Fatalf("first: %v %+v", err, first)
	}
	f.code.write("sync/queue.go", "package sync\n\nfunc enqueue(n int) {}\n")
	f.code.commit("2026-10-11", "elsewhere")
	before := c.GitRuns()
	again, err := c.CheckNote(ctx, notePath, f.note)
	if err != nil || len(again) != len(first) || again[0].Commit != first[0].Commit || again[0].Cites != first[0].Cites {
		t.Fatalf("after an unrelated commit: %v %+v", err, again)
	}
	if n := c.GitRuns() - before; n > 3 {
		t.Fatalf("an unrelated commit made the check run %d git commands, want the 3 that read the commit", n)
	}
	f.code.write("sync/retry.go", retryGo)
	f.code.commit("2026-10-12", "bring backoffFor back")
	if got, err := c.CheckNote(ctx, notePath, f.note); err != nil || len(broken(got)) != 0 {
		t.Fatalf("after the cited file changed back: %v %+v", err, got)
	}
}

// A note that cites tens of thousands of things (an agent's careless or
// hostile text) is checked on its first MaxCitations, in a few git
// commands, and raises nothing for names the code never had.
func TestCheck_AHugeNoteIsBounded(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	b.WriteString("# Everything\n\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "`fooBar%d` in `pkg%d/file%d.go`; ", i, i, i)
	}
	f.note = []byte(b.String() + "\n")
	f.vault.write(notePath, string(f.note))
	f.vault.commit("2026-10-02", "huge")
	c, err := New(context.Background(), f.code.dir, f.vault.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	got, n, err := c.checkNote(context.Background(), notePath, f.note)
	if err != nil || len(got) != 0 {
		t.Fatalf("%v %+v", err, got)
	}
	if n != MaxCitations {
		t.Fatalf("%d citations read, want the first %d", n, MaxCitations)
	}
	if n := c.GitRuns(); n > 12 {
		t.Fatalf("%d git commands for one note", n)
	}
}

// One checker serves many requests at once (a warm server's, lore mcp's):
// concurrent checks of several notes agree with one check alone (run
// under -race by make test).
func TestCheck_ConcurrentChecksAgree(t *testing.T) {
	f := newFixture(t)
	f.code.write("sync/retry.go", strings.ReplaceAll(retryGo, "backoffFor", "delayFor"))
	f.code.commit("2026-10-10", "rename the function")
	want := len(broken(f.check(t)))
	c, err := New(context.Background(), f.code.dir, f.vault.dir, filepath.Join(t.TempDir(), "stale"))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		go func() {
			got, err := c.CheckNote(context.Background(), notePath, f.note)
			if err == nil && len(broken(got)) != want {
				err = fmt.Errorf("%d broken, want %d", len(broken(got)), want)
			}
			if err == nil {
				err = c.Flush()
			}
			errs <- err
		}()
	}
	for i := 0; i < 16; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
