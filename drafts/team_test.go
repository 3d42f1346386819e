package drafts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// team is one remote served by git daemon and the vaults of the people who
// share it: each a clone with its own git identity (its repository's
// user.name), its own index and store.
type team struct {
	t    testing.TB
	d    *testvault.Daemon
	bare string
}

func newTeam(t testing.TB) *team {
	d, bare := testvault.Remote(t, "vault.git")
	seed := newVault(t, "", baseFiles)
	seed.git("remote", "add", "origin", d.URL("vault.git"))
	seed.git("push", "-q", "origin", "main")
	return &team{t: t, d: d, bare: bare}
}

// person clones the remote as name and opens its vault.
func (tm *team) person(name string) *tvault {
	t := tm.t
	root := filepath.Join(t.TempDir(), name)
	if r, err := filepath.EvalSymlinks(filepath.Dir(root)); err == nil {
		root = filepath.Join(r, name)
	}
	testvault.Git(t, filepath.Dir(root), "clone", "-q", tm.d.URL("vault.git"), root)
	testvault.Git(t, root, "config", "user.name", name)
	testvault.Git(t, root, "config", "user.email", name+"@localhost")
	tv := &tvault{t: t, root: root, dir: root}
	tv.open()
	return tv
}

// remote runs git in the bare remote.
func (tm *team) remote(args ...string) string {
	tm.t.Helper()
	return strings.TrimSpace(testvault.Git(tm.t, tm.bare, args...))
}

func (tv *tvault) sync() SyncReport {
	tv.t.Helper()
	rep, err := tv.s.syncWith(context.Background(), SyncOptions{})
	if err != nil || rep.Error != "" {
		tv.t.Fatalf("sync: %v %+v", err, rep)
	}
	return rep
}

func has(list []string, id string) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

// The whole loop on two machines: alice's agent stores, alice syncs; bob
// syncs, sees her Draft with its author, diffs and merges it, and syncs
// (the org ref is pushed, the Draft's branch deleted there); alice syncs,
// and the published note comes in, by bob, her Draft retired and her work
// tree and index holding the merged text.
func TestTeam_ADraftGoesRoundTwoMachines(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	r := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/deploy.md", Body: "# Deploy\n\nUse the blue-green switch.\n"}})
	if rep := alice.sync(); !has(rep.Pushed, r.DraftID) {
		t.Fatalf("alice's sync: %+v", rep)
	}
	rep := bob.sync()
	if !has(rep.Fetched, r.DraftID) {
		t.Fatalf("bob's sync did not bring alice's Draft: %+v", rep)
	}
	ds, err := bob.s.List(ctx, "api", false)
	if err != nil || len(ds) != 1 || ds[0].ID != r.DraftID || ds[0].Author != "alice" || ds[0].Host != HostName() {
		t.Fatalf("bob's list: %+v %v", ds, err)
	}
	if other, _ := bob.s.List(ctx, "web", false); len(other) != 0 {
		t.Fatalf("alice's api Draft is laid over project web: %+v", other)
	}
	if l := bob.load("api", r.ResourceID); !strings.Contains(l.Content, "blue-green") {
		t.Fatalf("bob's project api does not read the Draft: %+v", l)
	}
	diff, seen, err := bob.s.Diff(ctx, r.DraftID)
	if err != nil || !strings.Contains(diff, "+Use the blue-green switch.") {
		t.Fatalf("bob's diff: %v\n%s", err, diff)
	}
	if _, err := bob.s.Merge(ctx, []string{r.DraftID + "@" + seen.Head}); err != nil {
		t.Fatal(err)
	}
	if rep := bob.sync(); rep.Org != "pushed" || !has(rep.Deleted, r.DraftID) {
		t.Fatalf("bob's sync after the merge: %+v", rep)
	}
	if out := tm.remote("branch", "--list", "drafts/*"); out != "" {
		t.Fatalf("the Draft's branch is left on the remote: %s", out)
	}
	rep = alice.sync()
	if !has(rep.Retired, r.DraftID) || len(rep.CameIn) != 1 || rep.CameIn[0].Path != "notes/deploy.md" || strings.Join(rep.CameIn[0].Authors, ",") != "alice" {
		// The note's commit is alice's (her agent's store); bob merged it.
		t.Fatalf("alice's sync after bob's merge: %+v", rep)
	}
	if alice.orgHead() != tm.remote("rev-parse", "main") || !strings.Contains(alice.read("notes/deploy.md"), "blue-green") {
		t.Fatal("alice's org ref or work tree did not come forward")
	}
	if ds, _ := alice.s.List(ctx, "api", true); len(ds) != 0 {
		t.Fatalf("alice still lists %+v", ds)
	}
	if _, err := alice.ix.Index.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if hits, err := alice.ix.Search(ctx, "blue-green switch", searchOpt("web")); err != nil || len(hits) == 0 || hits[0].Path != "notes/deploy.md" {
		t.Fatalf("alice's index: %+v %v", hits, err)
	}
	alice.git("fsck", "--strict")
}

// A Draft both machines added commits to is joined by a merge commit: no
// commit of either is lost, and the remote gets the join as a
// fast-forward. When the two change the same lines, both are kept and the
// outbox says what to do.
func TestTeam_ADraftWithCommitsFromTwoMachinesLosesNone(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	r := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/runbook.md", Body: "# Runbook\n\none\n\ntwo\n\nthree\n"}})
	alice.sync()
	bob.sync()
	cur := alice.load("api", r.ResourceID)
	a := alice.apply("api", update(r.ResourceID, cur.ContentHash, "one", "one (alice)"))
	b := bob.apply("api", update(r.ResourceID, bob.load("api", r.ResourceID).ContentHash, "three", "three (bob)"))
	branch := "drafts/api/" + r.DraftID
	aliceCommit, bobCommit := strings.TrimSpace(alice.git("rev-parse", branch)), strings.TrimSpace(bob.git("rev-parse", branch))
	if a.DraftID != r.DraftID || b.DraftID != r.DraftID {
		t.Fatalf("the updates made new Drafts: %s %s", a.DraftID, b.DraftID)
	}
	bob.sync()
	rep := alice.sync()
	if !has(rep.Combined, r.DraftID) || !has(rep.Pushed, r.DraftID) {
		t.Fatalf("alice's sync: %+v", rep)
	}
	head := tm.remote("rev-parse", "drafts/api/"+r.DraftID)
	for _, c := range []string{aliceCommit, bobCommit} {
		if _, err := gitTry(tm.bare, "merge-base", "--is-ancestor", c, head); err != nil {
			t.Errorf("commit %s is not in the remote's Draft", c)
		}
	}
	if l := alice.load("api", r.ResourceID); !strings.Contains(l.Content, "one (alice)") || !strings.Contains(l.Content, "three (bob)") {
		t.Fatalf("the joined Draft reads:\n%s", l.Content)
	}
	// The same line on both machines: kept apart, and said.
	bob.sync()
	x := alice.apply("api", update(r.ResourceID, alice.load("api", r.ResourceID).ContentHash, "two", "two (alice)"))
	bob.apply("api", update(r.ResourceID, bob.load("api", r.ResourceID).ContentHash, "two", "two (bob)"))
	bobsTwo := strings.TrimSpace(bob.git("rev-parse", branch))
	bob.sync()
	rep, err := alice.s.syncWith(ctx, SyncOptions{})
	if err != nil || !has(rep.Failed, r.DraftID) {
		t.Fatalf("a clash: %+v %v", rep, err)
	}
	if e := outboxOf(t, alice.s, r.DraftID); !strings.Contains(e.LastError, "change the same lines") {
		t.Fatalf("outbox: %+v", e)
	}
	if got := tm.remote("rev-parse", branch); got != bobsTwo {
		t.Fatalf("the remote's Draft is %s, want bob's %s", got, bobsTwo)
	}
	if !strings.Contains(alice.load("api", r.ResourceID).Content, "two (alice)") || x.DraftID != r.DraftID {
		t.Fatal("alice's commit left her Draft")
	}
}

// Merges made on the host, outside lore: a merge commit, a squash and a
// rebase (cherry-picked commits) by a third clone, pushed with the Draft
// branches left in place. Each Draft is recognized as merged and retired
// here and on the remote, and a merge of it is refused as done.
func TestTeam_MergesMadeOnTheHostAreRecognized(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice := tm.person("alice")
	var ids []string
	for _, n := range []string{"merged", "squashed", "rebased"} {
		ids = append(ids, alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/" + n + ".md", Body: "# " + n + "\n\ntext\n"}}).DraftID)
	}
	alice.sync()
	host := filepath.Join(t.TempDir(), "host")
	testvault.Git(t, filepath.Dir(host), "clone", "-q", tm.d.URL("vault.git"), host)
	br := func(id string) string { return "origin/drafts/api/" + id }
	testvault.Git(t, host, "merge", "-q", "--no-ff", "-m", "Merge pull request #1", br(ids[0]))
	testvault.Git(t, host, "merge", "-q", "--squash", br(ids[1]))
	testvault.Git(t, host, "commit", "-qm", "Squashed pull request #2")
	testvault.Git(t, host, "cherry-pick", br(ids[2]))
	testvault.Git(t, host, "push", "-q", "origin", "main")

	rep := alice.sync()
	for _, id := range ids {
		if !has(rep.Retired, id) {
			t.Errorf("%s not retired: %+v", id, rep)
		}
	}
	if out := tm.remote("branch", "--list", "drafts/*"); out != "" {
		t.Errorf("branches left on the remote: %s", out)
	}
	if ds, _ := alice.s.List(ctx, "", true); len(ds) != 0 {
		t.Errorf("still listed: %+v", ds)
	}
	for _, n := range []string{"merged", "squashed", "rebased"} {
		if !alice.published("notes/"+n+".md", "text") {
			t.Errorf("notes/%s.md did not come in", n)
		}
	}
	// A Draft squashed on the host while this machine still has it is
	// not merged again (never twice).
	b := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/twice.md", Body: "# twice\n\ntext\n"}})
	alice.sync()
	testvault.Git(t, host, "fetch", "-q")
	testvault.Git(t, host, "merge", "-q", "--squash", br(b.DraftID))
	testvault.Git(t, host, "commit", "-qm", "Squashed pull request #4")
	testvault.Git(t, host, "push", "-q", "origin", "main")
	testvault.Git(t, alice.root, "fetch", "-q", "origin", "main:refs/remotes/origin/main")
	alice.git("merge", "-q", "--ff-only", "origin/main")
	before := alice.orgHead()
	res, err := alice.s.Merge(ctx, []string{b.DraftID})
	if err != nil || !has(res.Skipped, b.DraftID) || alice.orgHead() != before {
		t.Fatalf("a Draft squashed on the host was merged again: %+v %v", res, err)
	}
}

// Both sides published since the last sync: nothing moves and nothing is
// lost, and the report says what to do; --merge makes the merge commit as
// the person and publishes it.
func TestTeam_BothSidesPublished(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	rb := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/bob.md", Body: "# Bob\n\nbob's\n"}})
	bob.s.Merge(ctx, []string{rb.DraftID})
	bob.sync()
	ra := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/alice.md", Body: "# Alice\n\nalice's\n"}})
	alice.s.Merge(ctx, []string{ra.DraftID})
	mine, theirs := alice.orgHead(), tm.remote("rev-parse", "main")
	rep := alice.sync()
	if !strings.Contains(rep.Org, "diverged") || !strings.Contains(rep.Org, "lore sync --merge") {
		t.Fatalf("report: %+v", rep)
	}
	if alice.orgHead() != mine || tm.remote("rev-parse", "main") != theirs {
		t.Fatal("a side moved")
	}
	rep, err := alice.s.syncWith(ctx, SyncOptions{Merge: true})
	if err != nil || rep.Org != "pushed" || !strings.Contains(rep.OrgNote, "merge commit") {
		t.Fatalf("--merge: %+v %v", rep, err)
	}
	head := tm.remote("rev-parse", "main")
	for _, c := range []string{mine, theirs} {
		if _, err := gitTry(tm.bare, "merge-base", "--is-ancestor", c, head); err != nil {
			t.Errorf("%s is not in the published history", c)
		}
	}
	if author := tm.remote("log", "-1", "--format=%an", "main"); author != "alice" {
		t.Errorf("the merge commit is %s's", author)
	}
	if !strings.Contains(alice.read("notes/bob.md"), "bob's") {
		t.Error("bob's note is not in alice's work tree")
	}
}

// Uncommitted edits to a file that came in keep the org ref where it is,
// and are named; edits to other files ride along.
func TestTeam_UncommittedEditsAreKept(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	cur := bob.load("api", "mem_release")
	r := bob.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	bob.s.Merge(ctx, []string{r.DraftID})
	bob.sync()
	alice.write("howto/release.md", alice.read("howto/release.md")+"\nmy own line\n")
	alice.write("decisions/0001.md", alice.read("decisions/0001.md")+"\nanother edit\n")
	before := alice.orgHead()
	rep := alice.sync()
	if alice.orgHead() != before || !strings.Contains(rep.OrgNote, "howto/release.md") || strings.Contains(rep.OrgNote, "0001") {
		t.Fatalf("report: %+v", rep)
	}
	if !strings.Contains(alice.read("howto/release.md"), "my own line") || !strings.Contains(alice.read("decisions/0001.md"), "another edit") {
		t.Fatal("an edit was lost")
	}
	// The edit to the changed file put aside, the next sync comes forward
	// and the other edit stays.
	alice.git("checkout", "--", "howto/release.md")
	alice.sync()
	if alice.orgHead() == before || !strings.Contains(alice.read("howto/release.md"), "then tag") || !strings.Contains(alice.read("decisions/0001.md"), "another edit") {
		t.Fatal("the second sync did not come forward, or lost the other edit")
	}
}

// A remote that refuses the org ref (a protected branch): the merged
// Draft's branch stays on the remote, where teammates still see it, and
// the reason is shown.
func TestTeam_AProtectedOrgBranchKeepsTheDraftThere(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice := tm.person("alice")
	r := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/p.md", Body: "# P\n\nx\n"}})
	alice.sync()
	hook := "#!/bin/sh\nwhile read old new ref; do [ \"$ref\" = refs/heads/main ] && { echo 'main is protected: open a pull request' >&2; exit 1; }; done\nexit 0\n"
	os.WriteFile(filepath.Join(tm.bare, "hooks", "pre-receive"), []byte(hook), 0o755)
	if _, err := alice.s.Merge(ctx, []string{r.DraftID}); err != nil {
		t.Fatal(err)
	}
	rep, err := alice.s.syncWith(ctx, SyncOptions{})
	if err != nil || !strings.Contains(rep.Org, "refused") || has(rep.Deleted, r.DraftID) {
		t.Fatalf("report: %+v %v", rep, err)
	}
	if got := tm.remote("branch", "--list", "drafts/api/"+r.DraftID); got == "" {
		t.Fatal("the Draft's branch was deleted on the remote")
	}
	if e := outboxOf(t, alice.s, r.DraftID); !strings.Contains(e.LastError, "stays on the remote") || !strings.Contains(e.LastError, "protected") {
		t.Fatalf("outbox: %+v", e)
	}
}

// syncCrashWorker syncs LORE_DIR and dies (exit 137, as a SIGKILL) at the
// step LORE_SYNC_CRASH names.
func syncCrashWorker() int {
	_, _, s, err := openAll(os.Getenv("LORE_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crashHook = func(point string) {
		if point == os.Getenv("LORE_SYNC_CRASH") {
			os.Exit(137)
		}
	}
	_, err = s.syncWith(context.Background(), SyncOptions{Merge: true})
	fmt.Fprintln(os.Stderr, "sync returned without crashing:", err)
	return 1
}

// A SIGKILL at each step of a sync, then the next sync: no half state and
// no lost Draft. The sync brings a teammate's Draft, a published note, and
// pushes a new Draft of this machine.
func TestAttack_SyncKilledAtEachStepLosesNothing(t *testing.T) {
	for _, point := range []string{"sync-after-fetch", "sync-mid-adopt", "after-worktree", "after-org", "sync-after-team", "sync-after-push"} {
		t.Run(point, func(t *testing.T) {
			tm := newTeam(t)
			ctx := context.Background()
			alice, bob := tm.person("alice"), tm.person("bob")
			shared := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/bobs-draft.md", Body: "# Bob's Draft\n\nx\n"}})
			pub := bob.apply("web", vault.Op{Create: &vault.CreateOp{Path: "notes/published.md", Body: "# Published\n\ny\n"}})
			bob.s.Merge(ctx, []string{pub.DraftID})
			bob.sync()
			mine := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/alices.md", Body: "# Alice's\n\nz\n"}})
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(append(os.Environ(), gitEnv...), "LORE_SYNC_CRASH="+point, "LORE_DIR="+alice.dir)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 137 {
				t.Fatalf("the worker did not die at %s: %v\n%s", point, err, out)
			}
			alice.open() // the next lore process
			alice.sync()
			ids := map[string]bool{}
			ds, _ := alice.s.List(ctx, "", false)
			for _, d := range ds {
				ids[d.ID] = true
			}
			if !ids[shared.DraftID] || !ids[mine.DraftID] || len(ds) != 2 {
				t.Fatalf("Drafts after the crash and a sync: %+v", ds)
			}
			if tm.remote("rev-parse", "drafts/api/"+mine.DraftID) == "" || !alice.published("notes/published.md", "y") {
				t.Fatal("alice's Draft is not on the remote, or the published note did not come in")
			}
			if st := alice.git("status", "--porcelain"); strings.TrimSpace(st) != "" {
				t.Fatalf("the work tree differs from the org ref:\n%s", st)
			}
			alice.git("fsck", "--strict")
		})
	}
}

// A Draft branch deleted on the remote: a teammate's that bob discarded
// (nothing new at alice's) is retired at alice's; alice's own, deleted on
// the host by someone, is pushed again — the remote losing a branch never
// takes away the only copy of a Draft.
func TestTeam_ABranchGoneFromTheRemote(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	theirs := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/bobs.md", Body: "# Bob's\n\nx\n"}})
	mine := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/alices.md", Body: "# Alice's\n\ny\n"}})
	bob.sync()
	alice.sync()
	if _, err := bob.s.Discard(ctx, []string{theirs.DraftID}); err != nil {
		t.Fatal(err)
	}
	bob.sync()
	testvault.Git(t, tm.bare, "branch", "-D", "drafts/api/"+mine.DraftID) // someone, on the host
	rep := alice.sync()
	if !has(rep.Retired, theirs.DraftID) || has(rep.Retired, mine.DraftID) || !has(rep.Pushed, mine.DraftID) {
		t.Fatalf("alice's sync: %+v", rep)
	}
	ds, _ := alice.s.List(ctx, "api", false)
	if len(ds) != 1 || ds[0].ID != mine.DraftID {
		t.Fatalf("alice's Drafts: %+v", ds)
	}
	if tm.remote("rev-parse", "drafts/api/"+mine.DraftID) != strings.TrimSpace(alice.git("rev-parse", "drafts/api/"+mine.DraftID)) {
		t.Fatal("alice's Draft is not back on the remote")
	}
}

// TestAttack_ATeammateCannotRetireThePersonsDraft: with push rights to
// drafts/* only, a teammate added one commit whose tree is the org's to the
// person's own Draft branch; the person's sync fast-forwarded it, found
// every file "as the org has it", and retired it here and on the remote,
// leaving the agent's text with no ref. A force-pushed remote org branch
// did the same (retiring trusted refs/remotes/origin/main). Now a Draft
// made here is retired by content only while its head is a commit made
// here, only against the local org ref, and whatever sync retires keeps its
// head under refs/lore/retired/.
func TestAttack_ATeammateCannotRetireThePersonsDraft(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	alice := tm.person("alice")
	cur := alice.load("api", "mem_release")
	d := alice.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	alice.sync()
	// The org ref moves on (published elsewhere), then a teammate adds to
	// alice's Draft branch a commit whose tree is the org's current one.
	mallory := filepath.Join(t.TempDir(), "mallory")
	testvault.Git(t, filepath.Dir(mallory), "clone", "-q", tm.d.URL("vault.git"), mallory)
	os.WriteFile(filepath.Join(mallory, "howto", "release.md"), []byte("---\nid: mem_release\n---\n# Release\n\nRun the tests first, always.\n"), 0o644)
	testvault.Git(t, mallory, "commit", "-qam", "publish")
	testvault.Git(t, mallory, "push", "-q", "origin", "main")
	branch := "drafts/api/" + d.DraftID
	testvault.Git(t, mallory, "checkout", "-q", "-b", "x", "origin/"+branch)
	testvault.Git(t, mallory, "checkout", "-q", "main", "--", "howto/release.md")
	msg := testvault.Git(t, mallory, "log", "-1", "--format=%B")
	testvault.Git(t, mallory, "commit", "-qm", msg) // the Draft's own trailers, copied
	testvault.Git(t, mallory, "push", "-q", "origin", "x:"+branch)

	rep := alice.sync()
	if has(rep.Retired, d.DraftID) {
		t.Fatalf("the person's Draft was retired by a teammate's commit: %+v", rep)
	}
	if !has(rep.Kept, d.DraftID) {
		t.Errorf("the sync does not say it kept the Draft: %+v", rep)
	}
	if out := tm.remote("branch", "--list", branch); !strings.Contains(out, d.DraftID) {
		t.Errorf("the Draft's branch is gone from the remote")
	}
	// What sync does retire (a teammate's Draft published as is) stays
	// recoverable.
	bob := tm.person("bob")
	b := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/bob.md", Body: "# Bob\n\ntext\n"}})
	bob.sync()
	alice.sync()
	host := filepath.Join(t.TempDir(), "host")
	testvault.Git(t, filepath.Dir(host), "clone", "-q", tm.d.URL("vault.git"), host)
	testvault.Git(t, host, "merge", "-q", "--squash", "origin/drafts/api/"+b.DraftID)
	testvault.Git(t, host, "commit", "-qm", "Squashed")
	testvault.Git(t, host, "push", "-q", "origin", "main")
	rep = alice.sync()
	if !has(rep.Retired, b.DraftID) {
		t.Fatalf("bob's published Draft was not retired: %+v", rep)
	}
	if out := alice.git("rev-parse", "--verify", "-q", RetiredPrefix+b.DraftID); strings.TrimSpace(out) == "" {
		t.Errorf("the retired Draft's head was not kept")
	}
}

// TestAttack_AnUntrackedFileBlocksNoSync: an untracked file "guides" in
// the person's vault, where the remote adds a folder guides/, made every
// sync fail before it pushed the person's Drafts. The published memory now
// stays out (nothing of the file is lost), the Drafts still go out, and
// the report names the file and what to do.
func TestAttack_AnUntrackedFileBlocksNoSync(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	rb := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "guides/style.md", Body: "# Style\n\nshort lines\n"}})
	if _, err := bob.s.Merge(ctx, []string{rb.DraftID}); err != nil {
		t.Fatal(err)
	}
	bob.sync()
	alice.write("guides", "my own scratch file\n")
	ra := alice.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/alice.md", Body: "# Alice\n\nalice's\n"}})
	before := alice.orgHead()
	rep, err := alice.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatalf("the sync failed: %v", err)
	}
	if !has(rep.Pushed, ra.DraftID) {
		t.Errorf("alice's Draft was not pushed: %+v", rep)
	}
	if !strings.Contains(rep.OrgNote, "guides") || !strings.Contains(rep.OrgNote, "untracked") || !strings.Contains(rep.OrgNote, "move it aside") {
		t.Errorf("the report does not name the untracked file and what to do: %q", rep.OrgNote)
	}
	if alice.orgHead() != before {
		t.Error("the org ref moved though its work tree could not")
	}
	if got := alice.read("guides"); got != "my own scratch file\n" {
		t.Errorf("the untracked file now holds %q", got)
	}
	// Moved aside, the next sync brings the published memory in.
	os.Rename(filepath.Join(alice.dir, "guides"), filepath.Join(alice.dir, "scratch.txt"))
	alice.sync()
	if !strings.Contains(alice.read("guides/style.md"), "short lines") {
		t.Error("the next sync did not bring bob's note in")
	}
}

// TestAttack_AHugeNoteIsNeverRead: a Draft with one 512 MiB note of one
// letter packs to about 2 MiB, and every teammate's sync read it whole
// (2.4 GB of memory). A Draft that writes a file over vault.MaxFileBytes
// is refused by sync with its size, by a merge, and by the overlay, which
// leaves it out while doctor names it; the blob reader refuses it from its
// header. (That sync no longer reads it is measured, not asserted: 2.9 GB
// → 24 MB on a 572 MiB note, docs/RELIABILITY.md.)
func TestAttack_AHugeNoteIsNeverRead(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	ctx := context.Background()
	alice, bob := tm.person("alice"), tm.person("bob")
	r := bob.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/big.md", Body: "# Big\n\nsmall for now\n"}})
	branch := "drafts/api/" + r.DraftID
	bob.git("checkout", "-q", branch)
	huge := "---\nid: " + r.ResourceID + "\n---\n# Big\n\n" + strings.Repeat("a", vault.MaxFileBytes+1) + "\n"
	bob.write("notes/big.md", huge)
	bob.git("commit", "-q", "--amend", "--no-edit", "-a") // its trailers kept: lore reads it as its own
	bob.git("checkout", "-q", "main")
	bob.git("push", "-q", "origin", branch)

	rep, err := alice.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if has(rep.Fetched, r.DraftID) || len(rep.Refused) != 1 || !strings.Contains(rep.Refused[0], "notes/big.md (8.0 MiB)") {
		t.Fatalf("the huge Draft was not refused with its size: %+v", rep)
	}
	if _, err := alice.s.Merge(ctx, []string{r.DraftID}); err == nil {
		t.Error("alice merged a Draft she never adopted")
	}
	// On bob's machine, where the Draft is, a merge refuses it by size.
	bob.open()
	if _, err := bob.s.Merge(ctx, []string{r.DraftID}); err == nil || !strings.Contains(err.Error(), "over the 8.0 MiB") {
		t.Errorf("bob's merge of the huge Draft: %v", err)
	}
	// bob's own reads go on: the overlay leaves the Draft out, and doctor's
	// list of broken Drafts names it with its size.
	if _, err := (overlays{bob.s}).Overlay(ctx, nil); err != nil {
		t.Errorf("bob's overlay failed on the huge Draft: %v", err)
	}
	if broken, _ := bob.s.Health().BrokenDrafts(ctx); !strings.Contains(broken["refs/heads/"+branch], "notes/big.md (8.0 MiB)") {
		t.Errorf("BrokenDrafts: %v", broken)
	}
	// The reader itself refuses a blob over the bound without reading it.
	repo, _ := bob.s.repo()
	head, _ := bob.s.refs.read("refs/heads/" + branch)
	c, _ := repo.CommitObject(head)
	if _, _, err := readBlob(repo.Storer, c.TreeHash, "notes/big.md"); err == nil || !strings.Contains(err.Error(), "lore does not read it") {
		t.Errorf("readBlob of the huge note: %v", err)
	}
}
