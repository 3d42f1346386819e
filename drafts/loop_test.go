package drafts

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// The everyday loop for a person who never types git (issue: the first
// hour): write a note in an editor, let an agent propose a change to it,
// keep editing, review, merge, keep editing — no git command, no error, and
// nothing the person typed hidden or lost.
func TestLoop_EditProposeReviewMergeWithoutGit(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	// 1. A note written in an editor, never committed; 2. an agent proposes
	// a change to it.
	r := proposeOnUncommittedNote(tv)
	note := retryNote
	// 3. Review: the diff is the agent's change, not the whole file as new.
	diff, _, err := tv.s.Diff(ctx, r.DraftID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "-The sync retries five times.") || !strings.Contains(diff, "+The sync retries three times.") || strings.Contains(diff, "+## Why") {
		t.Fatalf("the Draft's diff is not just the agent's change:\n%s", diff)
	}
	// 4. The person keeps editing: the project sees the new word at once,
	// together with the agent's change, never hidden behind the Draft.
	tv.write("decisions/0002-retry-budget.md", strings.Replace(note, "Networks fail.", "Networks fail, and flaky proxies too.", 1))
	hits, err := tv.ix.Search(ctx, "flaky proxies", searchOpt("api"))
	if err != nil || len(hits) == 0 || hits[0].Path != "decisions/0002-retry-budget.md" {
		t.Fatalf("the person's newer edit is hidden from their project: %v %v", hits, err)
	}
	got := tv.load("api", "decisions/0002-retry-budget.md").Content
	if !strings.Contains(got, "flaky proxies") || !strings.Contains(got, "three times") {
		t.Fatalf("the project's view lacks one of the two edits:\n%s", got)
	}
	// 5. Merge, without git: the merge waits while the work tree holds
	// edits nobody recorded (an agent or a plugin may have made them); the
	// person records them as their own commit when they ask (lore commit,
	// merge --with-edits), and the agent's change is combined with them.
	if _, err := tv.s.Merge(ctx, []string{r.DraftID}); err == nil || !strings.Contains(err.Error(), "decisions/0002-retry-budget.md") {
		t.Fatalf("a merge over unrecorded edits: %v", err)
	}
	if _, paths, err := tv.s.CommitEdits(ctx); err != nil || len(paths) != 1 {
		t.Fatalf("record the edits: %v %v", paths, err)
	}
	if _, err := tv.s.Merge(ctx, []string{r.DraftID}); err != nil {
		t.Fatalf("merge: %v", err)
	}
	want := strings.Replace(strings.Replace(note, "Networks fail.", "Networks fail, and flaky proxies too.", 1), "five times", "three times", 1)
	if got := tv.read("decisions/0002-retry-budget.md"); got != want {
		t.Fatalf("after the merge the note is\n%s\nwant\n%s", got, want)
	}
	if !tv.published("decisions/0002-retry-budget.md", "flaky proxies") || !tv.published("decisions/0002-retry-budget.md", "three times") {
		t.Fatal("the org ref lacks one of the edits")
	}
	if st := strings.TrimSpace(tv.git("status", "--porcelain")); st != "" {
		t.Fatalf("the work tree differs from the org ref after the merge:\n%s", st)
	}
	// 6. And keeps editing; the next proposal works the same way.
	tv.write("decisions/0002-retry-budget.md", want+"\n## Later\n\nMore thoughts.\n")
	cur := tv.load("api", "decisions/0002-retry-budget.md")
	r = tv.apply("api", update(cur.ResourceID, cur.ContentHash, "More thoughts.", "More thoughts, reviewed."))
	if _, _, err := tv.s.CommitEdits(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.s.Merge(ctx, []string{r.DraftID}); err != nil {
		t.Fatalf("second merge: %v", err)
	}
	if !strings.Contains(tv.read("decisions/0002-retry-budget.md"), "More thoughts, reviewed.") {
		t.Fatal("the second merge did not reach the work tree")
	}
}

// A person who commits with git themselves is not stuck either: a Draft made
// before their commit of the same note merges when the two touched
// different lines.
func TestLoop_DraftMergesAfterThePersonsOwnCommit(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	r := proposeOnUncommittedNote(tv)
	tv.write("decisions/0002-retry-budget.md", strings.Replace(retryNote, "Networks fail.", "Networks fail often.", 1))
	tv.git("add", "-A")
	tv.git("commit", "-qm", "my retry note")
	if _, err := tv.s.Merge(ctx, []string{r.DraftID}); err != nil {
		t.Fatalf("merge after the person's own commit: %v", err)
	}
	got := tv.read("decisions/0002-retry-budget.md")
	if !strings.Contains(got, "three times") || !strings.Contains(got, "Networks fail often.") {
		t.Fatalf("after the merge:\n%s", got)
	}
}

const retryNote = "# Retry budget\n\nThe sync retries five times.\n\n## Why\n\nNetworks fail.\n"

// proposeOnUncommittedNote writes retryNote as a person's uncommitted note
// and has project api's agent propose "three times" instead of "five times".
func proposeOnUncommittedNote(tv *tvault) vault.StoreResult {
	tv.t.Helper()
	tv.write("decisions/0002-retry-budget.md", retryNote)
	cur := tv.load("api", "decisions/0002-retry-budget.md")
	return tv.apply("api", update(cur.ResourceID, cur.ContentHash, "five times", "three times"))
}
