package drafts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lore-memory/lore/vault"
)

// TestRefsListWhileGitPacksRefs lists the Draft refs while new ones keep
// arriving as loose files and the git CLI packs them (what `git gc --auto`,
// run by a person's `git commit`, does: it writes every loose ref into
// packed-refs, then deletes the loose files). Every listing must hold every
// Draft made before it began: one left out drops the Draft's rows from the
// index, and its agent is then told the note it just stored does not exist.
func TestRefsListWhileGitPacksRefs(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", map[string]string{"a.md": "# A\n"})
	head := strings.TrimSpace(tv.git("rev-parse", "HEAD"))
	r := refs{dir: filepath.Join(tv.root, ".git")}
	rounds, perRound := 60, 4
	if testing.Short() {
		rounds = 15
	}
	// git runs in its own goroutine, so its failures are sent, not fatal.
	run := func(stdin string, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = tv.root, append(os.Environ(), gitEnv...), strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	var made atomic.Int64 // Drafts whose refs exist, all of them from then on
	stop := make(chan struct{})
	gitErr := make(chan error, 1)
	go func() {
		defer close(stop)
		for round := 0; round < rounds; round++ {
			// New Drafts are loose refs, as a store writes them ...
			var in strings.Builder
			for i := 0; i < perRound; i++ {
				fmt.Fprintf(&in, "create refs/heads/drafts/api/d%03d-%d %s\n", round, i, head)
			}
			if err := run(in.String(), "update-ref", "--stdin"); err != nil {
				gitErr <- err
				return
			}
			made.Store(int64((round + 1) * perRound))
			// ... and then git packs them.
			if err := run("", "pack-refs", "--all", "--prune"); err != nil {
				gitErr <- err
				return
			}
		}
	}()
	listings, short := 0, 0
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		want := int(made.Load())
		heads, err := r.list(BranchPrefix)
		if err != nil {
			t.Fatal(err)
		}
		listings++
		if len(heads) < want {
			short++
			if short <= 3 {
				t.Errorf("listing %d holds %d of the %d Draft refs", listings, len(heads), want)
			}
		}
	}
	select {
	case err := <-gitErr:
		t.Fatal(err)
	default:
	}
	if short > 0 {
		t.Errorf("%d of %d listings left Drafts out", short, listings)
	}
	t.Logf("%d listings while git packed the refs %d times", listings, rounds)
}

// TestRefsDeleteNeverShowsAnOlderValue deletes packed Draft refs that have a
// newer loose value (a Draft that was packed, then stored to again, then
// merged or discarded) while another reader reads them: no reading may show
// the older, packed value, which would bring back a state of the Draft that
// a later store replaced. The reader samples the state between the delete's
// two steps (packed-refs, then the loose file), which is also what a crash
// there would leave.
func TestRefsDeleteNeverShowsAnOlderValue(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", map[string]string{"a.md": "# A\n"})
	older := plumbing.NewHash(strings.TrimSpace(tv.git("rev-parse", "HEAD")))
	tv.write("b.md", "# B\n")
	tv.git("add", "-A")
	tv.git("commit", "-qm", "second")
	newer := plumbing.NewHash(strings.TrimSpace(tv.git("rev-parse", "HEAD")))
	r := refs{dir: filepath.Join(tv.root, ".git")}
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	name := "refs/heads/drafts/api/d1"
	// phase is odd while the ref must be newer or gone: a read that starts
	// then and returns the older value is stale.
	var phase, stale atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			before := phase.Load()
			h, err := r.read(name)
			if err == nil && h == older && before%2 == 1 && phase.Load() == before {
				stale.Add(1)
			}
		}
	}()
	for round := 0; round < rounds; round++ {
		tv.git("update-ref", name, older.String())
		tv.git("pack-refs", "--all", "--prune")
		if err := r.cas(name, older, newer); err != nil {
			t.Fatal(err)
		}
		phase.Add(1) // from here on the ref is newer (loose) or gone, never older
		if err := r.cas(name, newer, plumbing.ZeroHash); err != nil {
			t.Fatal(err)
		}
		phase.Add(1)
	}
	close(stop)
	<-done
	if n := stale.Load(); n > 0 {
		t.Errorf("%d reads saw the older, packed value of a ref being deleted", n)
	}
}

// TestListAfterGitPacksObjects: git gc (which a person's `git commit` runs
// by itself once loose objects pile up) moves a Draft's objects into a new
// pack and deletes the loose files. A repository handle that had already
// read the pack list (go-git reads it once per handle) finds them in neither
// place; the listing must read again rather than leave the Draft out as
// broken.
func TestListAfterGitPacksObjects(t *testing.T) {
	t.Parallel()
	tv, repo := draftPackedAfterOpen(t)
	heads, org, err := tv.s.readHeads()
	if err != nil {
		t.Fatal(err)
	}
	tv.s.infos = map[string]*Draft{} // what another process would know: nothing
	ds, _, err := tv.s.listFrom(repo, heads, org)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 {
		broken, _ := tv.s.brokenDrafts(context.Background())
		t.Fatalf("listed %d Drafts, want the 1 stored (broken: %v)", len(ds), broken)
	}
}

// TestRepoFindsObjectsPackedAfterItOpened: any read through a repository
// handle (here a Draft's head commit and its tree, not only a listing)
// finds objects git packed after the handle read the pack list; and a
// lookup of an object that is really missing re-reads the list only when
// the pack folder changed, not at every miss.
func TestRepoFindsObjectsPackedAfterItOpened(t *testing.T) {
	t.Parallel()
	tv, repo := draftPackedAfterOpen(t)
	heads, _, err := tv.s.readHeads()
	if err != nil || len(heads) != 1 {
		t.Fatalf("Draft heads %v, %v", heads, err)
	}
	for _, h := range heads {
		c, err := repo.CommitObject(h)
		if err != nil {
			t.Fatalf("the Draft's head after git packed it: %v", err)
		}
		if _, err := c.File("notes/new.md"); err != nil {
			t.Fatalf("the Draft's note after git packed it: %v", err)
		}
	}
	st := repo.Storer.(*rereadingStorage)
	if _, err := repo.CommitObject(madeUpCommit); err == nil {
		t.Fatal("a made-up commit was found")
	}
	if st.reread() {
		t.Error("a miss with the pack folder unchanged read the pack list again")
	}
}

// madeUpCommit is the hash of no object.
var madeUpCommit = plumbing.NewHash("0123456789012345678901234567890123456789")

// draftPackedAfterOpen stores a Draft, opens a repository handle and makes
// it read the pack list (a lookup that misses the loose objects does), then
// has the git CLI move every object into a new pack and delete the loose
// files, as git gc does.
func draftPackedAfterOpen(t *testing.T) (*tvault, *git.Repository) {
	t.Helper()
	tv := newVault(t, "", map[string]string{"a.md": "# A\n"})
	tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/new.md", Body: "# New\n\nfresh text\n"}})
	repo, err := tv.s.repo()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CommitObject(madeUpCommit); err == nil {
		t.Fatal("a made-up commit was found")
	}
	tv.git("repack", "-a", "-d", "-q")
	tv.git("prune-packed", "-q")
	return tv, repo
}
