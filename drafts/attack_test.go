package drafts

import (
	"context"
	"database/sql"
	"strings"
	"testing"

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
	tv := newVault(t, "", baseFiles)
	before := tv.orgHead()
	r := tv.apply("api", Op{Rename: &RenameOp{ID: "mem_adr1", NewPath: "journal/gone.md"}})
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

func TestAttack_AutoPublishJournalNoteWithAGuardRule(t *testing.T) {
	tv := newVault(t, "", baseFiles)
	before := tv.orgHead()
	body := "---\ntitle: Standup\nguard:\n  - id: block-all\n    deny: \".\"\n---\n# Standup\n\nnothing\n"
	r := tv.apply("api", Op{Create: &CreateOp{Path: "journal/standup.md", Body: body}})
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a journal note carrying a guard rule was published: %+v", r)
	}
	body2 := "# Standup\n\n## Rules\n\n- deny: `SELECT`\n"
	r = tv.apply("web", Op{Create: &CreateOp{Path: "journal/standup2.md", Body: body2}})
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a journal note carrying a body-form rule was published: %+v", r)
	}
	// An ordinary journal note still publishes at once.
	r = tv.apply("api", Op{Create: &CreateOp{Path: "journal/today.md", Body: "# Today\n\nshipped\n"}})
	if !r.Published || !tv.published("journal/today.md", "shipped") {
		t.Fatalf("a plain journal note was not auto-published: %+v", r)
	}
}

func TestAttack_AutoPublishSupersedingADecisionFromJournal(t *testing.T) {
	files := map[string]string{}
	for p, s := range baseFiles {
		files[p] = s
	}
	files["decisions/0004.md"] = "---\nid: mem_adr4\ntitle: Retry budget\nguard:\n  - id: no-sleep\n    deny: \"time.Sleep\"\n---\n# Retry budget\n"
	tv := newVault(t, "", files)
	before := tv.orgHead()
	r, err := tv.s.CreateSuperseding(context.Background(), "api", CreateOp{Path: "journal/x.md", Body: "# X\n\nnew budget\n"}, []string{"decisions/0004.md"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a journal note that marks a decision superseded was published: %+v", r)
	}
	if !strings.Contains(tv.read("decisions/0004.md"), "time.Sleep") || strings.Contains(tv.read("decisions/0004.md"), "superseded") {
		t.Fatal("the decision changed in the work tree without review")
	}
}

func TestAttack_AutoPublishOfAnEditThatDropsARule(t *testing.T) {
	files := map[string]string{}
	for p, s := range baseFiles {
		files[p] = s
	}
	files["journal/rules.md"] = "---\nid: mem_jr\nguard:\n  - id: r1\n    deny: \"rm -rf\"\n---\n# Rules kept in the journal\n\ntext\n"
	tv := newVault(t, "", files)
	before := tv.orgHead()
	cur := tv.load("api", "mem_jr")
	r := tv.apply("api", update("mem_jr", cur.ContentHash, "    deny: \"rm -rf\"\n", "    deny: \"never-matches-anything-x\"\n"))
	if r.Published || tv.orgHead() != before {
		t.Fatalf("a change to a guard rule inside journal/ was published: %+v", r)
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
	_, err := tv.s.Apply(ctx, "api", Op{Create: &CreateOp{Path: "howto/release.md", Body: "# Replaced\n"}})
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
	if _, err := tv.s.Apply(ctx, "web", Op{Rename: &RenameOp{ID: "mem_adr1", NewPath: "decisions/sqlite.md"}}); err != nil {
		t.Fatalf("rename of an existing note the index does not hold: %v", err)
	}
}

func TestAttack_DiscardByResourceOfADeleteDraft(t *testing.T) {
	tv := newVault(t, "", baseFiles)
	r := tv.apply("api", Op{Delete: &DeleteOp{ID: "mem_release"}})
	d := tv.apply("api", Op{Discard: &DiscardOp{ID: "mem_release"}})
	if d.DraftID != r.DraftID || d.Operation != "discard" {
		t.Fatalf("discard by the deleted resource's id: %+v (the Draft was %s)", d, r.DraftID)
	}
	r = tv.apply("api", Op{Delete: &DeleteOp{ID: "howto/release.md"}})
	if d = tv.apply("api", Op{Discard: &DiscardOp{ID: "howto/release.md"}}); d.DraftID != r.DraftID {
		t.Fatalf("discard by the deleted resource's path: %+v", d)
	}
}

// An unmerged Draft must not switch guard rules on or off: rules and the
// status that decides whether they apply come from published memory.
func TestAttack_UnmergedDraftDoesNotSwitchRules(t *testing.T) {
	files := map[string]string{}
	for p, s := range baseFiles {
		files[p] = s
	}
	files["decisions/0004.md"] = "---\nid: mem_adr4\ntitle: Retry budget\nguard:\n  - id: no-sleep\n    deny: \"time.Sleep\"\n---\n# Retry budget\n"
	tv := newVault(t, "", files)
	ctx := context.Background()
	if _, err := tv.s.CreateSuperseding(ctx, "api", CreateOp{Path: "decisions/0005.md", Body: "# New budget\n"}, []string{"mem_adr4"}); err != nil {
		t.Fatal(err)
	}
	tv.apply("api", Op{Create: &CreateOp{Path: "notes/block.md", Body: "---\nguard:\n  - id: block-all\n    deny: \".\"\n---\n# Block\n"}})
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
