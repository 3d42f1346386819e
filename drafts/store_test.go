package drafts

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

func TestCreateIsADraftOnlyItsProjectSees(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	res := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "howto/deploy.md", Body: "# Deploy\n\nUse blue-green deploys.\n", Description: str("How we deploy")}})
	if res.Operation != "create" || !strings.HasPrefix(res.DraftID, "drf_") || !strings.HasPrefix(res.ResourceID, "mem_") ||
		!strings.HasPrefix(res.LocalOperationID, "lop_") || !res.Queued || res.SyncStatus != "queued" {
		t.Fatalf("result %+v", res)
	}
	got := tv.load("api", "howto/deploy.md")
	if got.ResourceID != res.ResourceID || got.DraftID != res.DraftID || got.Description != "How we deploy" {
		t.Fatalf("api sees %+v", got)
	}
	if !strings.HasPrefix(got.Content, "---\nid: "+res.ResourceID+"\ndescription: How we deploy\n---\n# Deploy") {
		t.Fatalf("content %q", got.Content)
	}
	tv.missing("web", "howto/deploy.md")
	tv.missing("", res.ResourceID)
	// The working tree is untouched; git sees the branch.
	if _, err := tv.v.ReadFile("howto/deploy.md"); err == nil {
		t.Fatal("store wrote the working tree")
	}
	if out := tv.git("branch", "-a"); !strings.Contains(out, "drafts/api/"+res.DraftID) {
		t.Fatalf("git branch -a:\n%s", out)
	}
	if out := tv.git("status", "--porcelain"); out != "" {
		t.Fatalf("git status after store:\n%s", out)
	}
	// Search and activate see it for api only.
	hits, err := tv.ix.Search(context.Background(), "blue-green deploys", searchOpt("api"))
	if err != nil || len(hits) == 0 || hits[0].ResourceID != res.ResourceID || hits[0].DraftID != res.DraftID {
		t.Fatalf("api search: %v %+v", err, hits)
	}
	hits, _ = tv.ix.Search(context.Background(), "blue-green deploys", searchOpt("web"))
	for _, h := range hits {
		if h.ResourceID == res.ResourceID {
			t.Fatal("web sees api's Draft")
		}
	}
	tv.git("fsck", "--strict")
}

func TestUpdateRenameDeleteStackOnOneDraft(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_release")
	r1 := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	after := tv.load("api", "mem_release")
	if !strings.Contains(after.Content, "Run the tests, then tag.") || after.DraftID != r1.DraftID {
		t.Fatalf("after update: %+v", after)
	}
	if web := tv.load("web", "mem_release"); web.ContentHash != cur.ContentHash || web.DraftID != "" {
		t.Fatalf("web sees %+v", web)
	}
	// The old hash is stale now.
	_, err := tv.s.Apply(context.Background(), "api", update("mem_release", cur.ContentHash, "tag", "sign"))
	if vault.ErrorCode(err) != vault.CodeContentChanged {
		t.Fatalf("stale hash: %v", err)
	}
	r2 := tv.apply("api", vault.Op{Rename: &vault.RenameOp{ID: "mem_release", NewPath: "howto/releasing.md"}})
	if r2.DraftID != r1.DraftID {
		t.Fatalf("rename opened a second Draft: %s vs %s", r2.DraftID, r1.DraftID)
	}
	tv.missing("api", "howto/release.md")
	if got := tv.load("api", "howto/releasing.md"); got.ResourceID != "mem_release" || !strings.Contains(got.Content, "then tag") {
		t.Fatalf("renamed: %+v", got)
	}
	tv.load("web", "howto/release.md")
	d, err := tv.s.Find(context.Background(), r1.DraftID)
	if err != nil || len(d.Operations) != 2 || d.Operations[0].Op != "update" || d.Operations[1].Op != "rename" ||
		d.Operations[0].LocalOperationID != r1.LocalOperationID || d.ResourceID != "mem_release" {
		t.Fatalf("draft %+v %v", d, err)
	}
	// Delete of a published resource stays a Draft.
	r3 := tv.apply("api", vault.Op{Delete: &vault.DeleteOp{ID: "mem_release"}})
	if r3.Operation != "delete" || r3.DraftID != r1.DraftID {
		t.Fatalf("delete %+v", r3)
	}
	tv.missing("api", "mem_release")
	tv.missing("api", "howto/releasing.md")
	tv.load("web", "mem_release")
	// Discard by resource id is refused (it is not visible now); by draft id it works.
	r4 := tv.apply("api", vault.Op{Discard: &vault.DiscardOp{ID: r1.DraftID}})
	if r4.Operation != "discard" || r4.DraftID != r1.DraftID {
		t.Fatalf("discard %+v", r4)
	}
	if got := tv.load("api", "mem_release"); got.DraftID != "" || got.ContentHash != cur.ContentHash {
		t.Fatalf("after discard api sees %+v", got)
	}
	if out := tv.git("branch", "-a"); strings.Contains(out, "drafts/") {
		t.Fatalf("discarded branch still there:\n%s", out)
	}
}

func TestDeleteOfUnpublishedCreateIsDiscard(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	c := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/tmp.md", Body: "# Tmp\n\nscratch\n"}})
	tv.apply("api", vault.Op{Rename: &vault.RenameOp{ID: c.ResourceID, NewPath: "notes/tmp2.md"}})
	d := tv.apply("api", vault.Op{Delete: &vault.DeleteOp{ID: c.ResourceID}})
	if d.Operation != "discard" || d.DraftID != c.DraftID {
		t.Fatalf("delete of an unpublished create: %+v", d)
	}
	tv.missing("api", c.ResourceID)
	if ds, _ := tv.s.List(context.Background(), "", true); len(ds) != 0 {
		t.Fatalf("drafts left: %+v", ds)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	cur := tv.load("api", "mem_adr1")
	long := strings.Repeat("x", MaxBody+1)
	for name, c := range map[string]struct {
		op   vault.Op
		code string
	}{
		"dotdot":         {vault.Op{Create: &vault.CreateOp{Path: "../out.md", Body: "x"}}, vault.CodeInvalid},
		"absolute":       {vault.Op{Create: &vault.CreateOp{Path: "/etc/x.md", Body: "x"}}, vault.CodeInvalid},
		"git dir":        {vault.Op{Create: &vault.CreateOp{Path: ".git/x.md", Body: "x"}}, vault.CodeInvalid},
		"not md":         {vault.Op{Create: &vault.CreateOp{Path: "notes/x.txt", Body: "x"}}, vault.CodeInvalid},
		"other project":  {vault.Op{Create: &vault.CreateOp{Path: "projects/web/x.md", Body: "x"}}, vault.CodeInvalid},
		"exists":         {vault.Op{Create: &vault.CreateOp{Path: "howto/release.md", Body: "x"}}, vault.CodeInvalid},
		"nul":            {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: "a\x00b"}}, vault.CodeInvalid},
		"bad utf8":       {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: "a\xffb"}}, vault.CodeInvalid},
		"too big":        {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: long}}, vault.CodeInvalid},
		"id in body":     {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: "---\nid: mem_mine\n---\n# x\n"}}, vault.CodeInvalid},
		"empty body":     {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: " \n"}}, vault.CodeInvalid},
		"two ops":        {vault.Op{Create: &vault.CreateOp{Path: "notes/n.md", Body: "x"}, Delete: &vault.DeleteOp{ID: "mem_adr1"}}, vault.CodeInvalid},
		"no op":          {vault.Op{}, vault.CodeInvalid},
		"resource":       {vault.Op{Resource: str("rule"), Delete: &vault.DeleteOp{ID: "mem_adr1"}}, vault.CodeInvalid},
		"missing id":     {update("mem_nope", cur.ContentHash, "SQLite", "x"), vault.CodeNotFound},
		"no replacement": {vault.Op{Update: &vault.UpdateOp{ID: "mem_adr1", ExpectedHash: cur.ContentHash}}, vault.CodeInvalid},
		"empty old_text": {update("mem_adr1", cur.ContentHash, "", "x"), vault.CodeInvalid},
		"stale hash":     {update("mem_adr1", "sha256:"+strings.Repeat("0", 64), "FTS5", "x"), vault.CodeContentChanged},
		"not found":      {update("mem_adr1", cur.ContentHash, "FTS5", "x", "Postgres", "y"), vault.CodeReplacementNotFound},
		"ambiguous":      {update("mem_adr1", cur.ContentHash, "SQLite", "x"), vault.CodeReplacementAmbiguous},
		"overlap":        {update("mem_adr1", cur.ContentHash, "with FTS5", "a", "SQLite with", "b"), vault.CodeReplacementOverlap},
		"rename onto":    {vault.Op{Rename: &vault.RenameOp{ID: "mem_adr1", NewPath: "howto/release.md"}}, vault.CodeInvalid},
		"rename dotdot":  {vault.Op{Rename: &vault.RenameOp{ID: "mem_adr1", NewPath: "a/../../x.md"}}, vault.CodeInvalid},
		"discard none":   {vault.Op{Discard: &vault.DiscardOp{ID: "mem_adr1"}}, vault.CodeNotFound},
		"delete missing": {vault.Op{Delete: &vault.DeleteOp{ID: "nope.md"}}, vault.CodeNotFound},
	} {
		_, err := tv.s.Apply(context.Background(), "api", c.op)
		if vault.ErrorCode(err) != c.code {
			t.Errorf("%s: want %s, got %v", name, c.code, err)
		}
	}
	if _, err := tv.s.Apply(context.Background(), "", vault.Op{Delete: &vault.DeleteOp{ID: "mem_adr1"}}); vault.ErrorCode(err) != vault.CodeUnbound {
		t.Errorf("no project: %v", err)
	}
	if out := tv.git("for-each-ref", "refs/heads/drafts/"); out != "" {
		t.Fatalf("a refused operation left a branch:\n%s", out)
	}
	if got := tv.load("api", "mem_adr1"); got.ContentHash != cur.ContentHash {
		t.Fatal("a refused update changed the resource")
	}
}

func TestReplaceAllAtOnce(t *testing.T) {
	t.Parallel()
	out, err := Replace("a b c d", []vault.Replacement{{OldText: "d", NewText: "D"}, {OldText: "a", NewText: ""}, {OldText: "c", NewText: "cc"}})
	if err != nil || out != " b cc D" {
		t.Fatalf("%q %v", out, err)
	}
	// Replacements apply to the original, not to each other's output.
	out, err = Replace("x y", []vault.Replacement{{OldText: "x", NewText: "y"}, {OldText: "y", NewText: "z"}})
	if err != nil || out != "y z" {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := Replace("aaa", []vault.Replacement{{OldText: "aa", NewText: "b"}}); vault.ErrorCode(err) != vault.CodeReplacementAmbiguous {
		t.Fatalf("overlapping self-occurrence: %v", err)
	}
}

func TestSetFrontmatterKeepsOtherLines(t *testing.T) {
	t.Parallel()
	in := "---\ntitle:   Spaced  # comment\ndescription: >\n  old\n  text\ntags: [a]\n---\n# Body\n"
	out, err := setFrontmatter(in, "description", "new: text")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntitle:   Spaced  # comment\ndescription: 'new: text'\ntags: [a]\n---\n# Body\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if out, _ := setFrontmatter("# Plain\n", "id", "mem_1"); out != "---\nid: mem_1\n---\n# Plain\n" {
		t.Fatalf("no frontmatter: %q", out)
	}
}
