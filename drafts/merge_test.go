package drafts

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

func TestMergeFastForwardUpdatesCleanWorkTree(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	r := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	res, err := tv.s.Merge(context.Background(), []string{r.DraftID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Merged) != 1 || res.WorkTree != "updated" {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(tv.read("howto/release.md"), "then tag") {
		t.Fatal("work tree not updated")
	}
	if out := tv.git("status", "--porcelain"); out != "" {
		t.Fatalf("git status after merge:\n%s", out)
	}
	if head := strings.TrimSpace(tv.git("rev-parse", "main")); head != res.Commit {
		t.Fatalf("main at %s, merge says %s", head, res.Commit)
	}
	if out := tv.git("branch", "--list", "drafts/*"); out != "" {
		t.Fatalf("merged branch left:\n%s", out)
	}
	// Everyone sees it now, from the working tree.
	if got := tv.load("web", "mem_release"); !strings.Contains(got.Content, "then tag") || got.DraftID != "" {
		t.Fatalf("web after merge: %+v", got)
	}
	tv.git("fsck", "--strict")
}

func TestMergeCommitConflictAndDirtyTree(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	a := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/a.md", Body: "# A\n\nalpha\n"}})
	cur := tv.load("web", "mem_adr1")
	b := tv.apply("web", update("mem_adr1", cur.ContentHash, "One file, no server.", "One file."))
	// A person commits to main meanwhile (another file).
	tv.write("howto/other.md", "# Other\n")
	tv.git("add", "-A")
	tv.git("commit", "-qm", "person")
	res, err := tv.s.Merge(ctx, []string{a.DraftID, b.DraftID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Merged) != 2 {
		t.Fatalf("%+v", res)
	}
	parents := strings.Fields(tv.git("log", "-1", "--format=%P", "main"))
	if len(parents) != 2 {
		t.Fatalf("want a merge commit, parents %v", parents)
	}
	if !strings.Contains(tv.read("decisions/0001.md"), "One file.\n") || !strings.Contains(tv.read("notes/a.md"), "alpha") {
		t.Fatal("merge did not reach the work tree")
	}
	// Conflict: a Draft forked before a person changed the same file.
	cur = tv.load("api", "mem_api")
	c := tv.apply("api", update("mem_api", cur.ContentHash, "JSON", "protobuf"))
	tv.write("projects/api/api.md", strings.Replace(tv.read("projects/api/api.md"), "JSON", "XML", 1))
	tv.git("commit", "-qam", "person edits api.md")
	before := strings.TrimSpace(tv.git("rev-parse", "main"))
	_, err = tv.s.Merge(ctx, []string{c.DraftID})
	if vault.ErrorCode(err) != vault.CodeConflict || !strings.Contains(err.Error(), "projects/api/api.md") {
		t.Fatalf("conflict: %v", err)
	}
	if after := strings.TrimSpace(tv.git("rev-parse", "main")); after != before {
		t.Fatal("a conflicting merge moved main")
	}
	// Uncommitted changes to an affected file: the person's edit becomes
	// their own commit, and the Draft is merged with it (different lines).
	cur = tv.load("api", "mem_release")
	d := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Tests first."))
	tv.write("howto/release.md", strings.Replace(tv.read("howto/release.md"), "# Release\n", "# Release (my unsaved note)\n", 1))
	if _, err = tv.s.Merge(ctx, []string{d.DraftID}); err == nil || !strings.Contains(err.Error(), "uncommitted edit") {
		t.Fatalf("a merge over an unrecorded edit went ahead: %v", err)
	}
	if _, _, err := tv.s.CommitEdits(ctx); err != nil { // the person asks (merge --with-edits)
		t.Fatal(err)
	}
	if _, err = tv.s.Merge(ctx, []string{d.DraftID}); err != nil {
		t.Fatalf("merge over a person's recorded edit: %v", err)
	}
	got := tv.read("howto/release.md")
	if !strings.Contains(got, "my unsaved note") || !strings.Contains(got, "Tests first.") {
		t.Fatalf("the merge lost one of the two edits:\n%s", got)
	}
	// Authored as git's own configuration gives the person (as lore, this
	// process, sees it), not as an agent or lore.
	ident, _ := runGit(ctx, tv.root, "var", "GIT_AUTHOR_IDENT")
	name := strings.TrimSpace(ident[:strings.Index(ident, " <")])
	if log := tv.git("log", "--format=%an|%s", "main"); !strings.Contains(log, name+"|Record edits to notes") {
		t.Fatalf("the person's edit is not their own commit (%s):\n%s", name, log)
	}
	if st := strings.TrimSpace(tv.git("status", "--porcelain")); st != "" {
		t.Fatalf("after the merge the work tree differs from main:\n%s", st)
	}
	tv.git("fsck", "--strict")
}

// With commit_edits: false, people commit themselves: a merge touching an
// uncommitted note is refused, and nothing changes.
func TestMergeWaitsForPeopleWhoCommitThemselves(t *testing.T) {
	t.Parallel()
	files := withFiles(map[string]string{
		"lore.yaml": "projects:\n  api: {}\ncommit_edits: false\n",
	})
	tv := newVault(t, "", files)
	cur := tv.load("api", "mem_release")
	d := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Tests first."))
	tv.write("howto/release.md", tv.read("howto/release.md")+"\nmy unsaved note\n")
	before := strings.TrimSpace(tv.git("rev-parse", "main"))
	_, err := tv.s.Merge(context.Background(), []string{d.DraftID})
	if vault.ErrorCode(err) != vault.CodeConflict || !strings.Contains(err.Error(), "howto/release.md") {
		t.Fatalf("dirty tree: %v", err)
	}
	if !strings.Contains(tv.read("howto/release.md"), "my unsaved note") {
		t.Fatal("merge clobbered an uncommitted edit")
	}
	if after := strings.TrimSpace(tv.git("rev-parse", "main")); after != before {
		t.Fatal("a refused merge moved main")
	}
}

func TestPersonsGitMergeIsUnderstood(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	r := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/by-git.md", Body: "# By git\n\nmerged by hand\n"}})
	tv.git("merge", "-q", "--no-edit", "drafts/api/"+r.DraftID)
	ds, err := tv.s.List(ctx, "api", false)
	if err != nil || len(ds) != 0 {
		t.Fatalf("open drafts after git merge: %+v %v", ds, err)
	}
	all, _ := tv.s.List(ctx, "api", true)
	if len(all) != 1 || !all[0].Merged {
		t.Fatalf("with --all: %+v", all)
	}
	// Web sees it from the work tree now; api sees exactly one copy.
	if got := tv.load("web", "notes/by-git.md"); got.DraftID != "" || got.ResourceID != r.ResourceID {
		t.Fatalf("web: %+v", got)
	}
	if got := tv.load("api", r.ResourceID); got.DraftID != "" {
		t.Fatalf("api still reads the Draft: %+v", got)
	}
	res, err := tv.s.Merge(ctx, []string{r.DraftID})
	if err != nil || len(res.Skipped) != 1 {
		t.Fatalf("merge of a merged Draft: %+v %v", res, err)
	}
}

// A vault in a folder of a larger repository: its Drafts change paths under
// that folder, and a merge reaches its work tree. A folder whose name
// begins with two dots ("..memory") is inside the repository all the same
// (it was refused as outside it: "..memory" begins with "..").
func TestVaultInsideALargerRepository(t *testing.T) {
	t.Parallel()
	for _, folder := range []string{"memory", "..memory"} {
		t.Run(folder, func(t *testing.T) {
			files := map[string]string{"README.md": "# code\n"}
			for p, s := range baseFiles {
				files[folder+"/"+p] = s
			}
			root := newVault(t, "", files) // commit everything
			tv := &tvault{t: t, root: root.root, dir: root.root + "/" + folder}
			tv.open()
			cur := tv.load("api", "mem_release")
			r := tv.apply("api", update("mem_release", cur.ContentHash, "first", "second"))
			if out := tv.git("diff", "--stat", "main", "drafts/api/"+r.DraftID); !strings.Contains(out, folder+"/howto/release.md") {
				t.Fatalf("draft changes the wrong path:\n%s", out)
			}
			if _, err := tv.s.Merge(context.Background(), []string{r.DraftID}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tv.read("howto/release.md"), "Run the tests second.") {
				t.Fatal(tv.read("howto/release.md"))
			}
		})
	}
}

func TestRemember_PublishesUnlessTurnedOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tv := newVault(t, "", baseFiles)
	r, err := tv.s.Remember(ctx, "api", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/2026-11-30.md", Body: "# Today\n\nshipped drafts\n"})
	if err != nil || !r.Published {
		t.Fatalf("%+v %v", r, err)
	}
	if !strings.Contains(tv.read("journal/u1/p1/2026-11-30.md"), "shipped drafts") {
		t.Fatal("the remembered note is not in the work tree")
	}
	off := newVault(t, "", withFiles(map[string]string{"lore.yaml": "projects:\n  api: {}\njournal: {auto_publish: false}\n"}))
	r, err = off.s.Remember(ctx, "api", "journal/u1/p1/", vault.CreateOp{Path: "journal/u1/p1/x.md", Body: "# X\n\nwaits\n"})
	if err != nil || r.Published {
		t.Fatalf("journal.auto_publish: false still published: %+v %v", r, err)
	}
}

func TestDiffAgainstOrgRef(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	r := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	out, _, err := tv.s.Diff(context.Background(), r.DraftID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "-Run the tests first.") || !strings.Contains(out, "+Run the tests, then tag.") || !strings.Contains(out, "howto/release.md") {
		t.Fatalf("diff:\n%s", out)
	}
}
