package fts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval/synth"
	"github.com/lore-memory/lore/fts/internal/memindex"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// memQueries are the queries both scorers answer: the synthetic agent-like
// ones, CJK words and single characters (prefix phrases), identifiers, and
// the demo vault's own topics.
func memQueries() []string {
	qs := synth.Queries(150, 7)
	qs = append(qs, "检索", "并发控制", "检", "发布 回滚", "parseConfigFile", "max_retry_count", "internal/fts/index.go",
		"how do we release", "what is it", "deploy rollback incident", "postgres connection pool timeout",
		"ADR superseded decision", "café naïve", "retry retries retrying", "索引 index 缓存")
	return qs
}

// compareScorers checks that the two lexical engines (engine.go) answer
// alike — the in-memory postings rank exactly as FTS5 does:
// the same units, in the same order, with the same scores, for every query and
// project view.
func compareScorers(t *testing.T, tv *testVault, projects []string) {
	t.Helper()
	ctx := context.Background()
	m, err := tv.Ix.memFor(ctx)
	if err != nil || m == nil {
		t.Fatalf("in-memory postings: %v, %v", m, err)
	}
	compared := 0
	for _, project := range projects {
		for _, q := range memQueries() {
			ts := tokenize.QueryTerms(tokenize.CutQuery(q))
			if len(ts) == 0 {
				continue
			}
			want, err := lexical(sqlLexical{tv.Ix}).bm25(ctx, ts, project, 25)
			if err != nil {
				t.Fatal(err)
			}
			got, err := lexical(memLexical{tv.Ix, m}).bm25(ctx, ts, project, 25)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("project %q, query %q: in memory %d hits, FTS5 %d", project, q, len(got), len(want))
			}
			for i := range want {
				if got[i].UID != want[i].UID || got[i].Score != want[i].Score {
					t.Fatalf("project %q, query %q, hit %d: in memory uid %d (%s) score %v; FTS5 uid %d (%s) score %v",
						project, q, i, got[i].UID, got[i].Path, got[i].Score, want[i].UID, want[i].Path, want[i].Score)
				}
			}
			compared += len(want)
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d hits compared: the fixture is too thin to prove anything", compared)
	}
}

// editGenerated edits a generated vault (a rewrite, a deletion, a new note
// in Chinese and English, a rename) and refreshes the index, so that the
// copy has unit_log entries of every kind to follow.
func editGenerated(t *testing.T, tv *testVault) {
	t.Helper()
	tv.Write("bench/000/note-000001.md", "# Rewritten\n\nrelease deploy rollback cache 检索 parseConfigFile\n")
	os.Remove(filepath.Join(tv.Root, "bench/000/note-000002.md"))
	tv.Write("new/one.md", "---\ntitle: New one\ntags: [release, 发布]\n---\n# New\n\nretry timeout queue worker\n")
	os.Rename(filepath.Join(tv.Root, "bench/000/note-000003.md"), filepath.Join(tv.Root, "moved/note-3.md"))
	if _, err := tv.Ix.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestMemIndexMatchesFTS5(t *testing.T) {
	t.Parallel()
	files := testvault.ReadFixture(t, "../testdata/demo-vault")
	for p, s := range testvault.ReadFixture(t, "../testdata/cjk") {
		files["cjk/"+p] = s
	}
	tv := newTestVault(t, files)
	if _, err := synth.GenerateVault(tv.Root, 400, 3); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ { // project notes, so the project views differ
		tv.Write(fmt.Sprintf("projects/alpha/note-%d.md", i), fmt.Sprintf("# Alpha %d\n\nrelease deploy 检索 retry queue %d\n", i, i))
		tv.Write(fmt.Sprintf("projects/beta/note-%d.md", i), fmt.Sprintf("# Beta %d\n\nrelease rollback 并发 timeout cache %d\n", i, i))
	}
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	projects := []string{"", "alpha", "beta"}
	compareScorers(t, tv, projects)

	// Edits, deletions, new files and a rename: the postings follow unit_log.
	editGenerated(t, tv)
	compareScorers(t, tv, projects)

	// Drafts: alpha's Draft replaces a shared note and adds one; only alpha
	// sees them, and both count in the statistics as in FTS5.
	tv.Ix.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []OverlayFile{
		{Path: "bench/000/note-000004.md", Data: []byte("# Draft version\n\nrelease deploy draft 检索 queue\n")},
		{Path: "projects/alpha/draft-new.md", Data: []byte("# Draft new\n\nrollback retry timeout cache\n")},
	}}})
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	compareScorers(t, tv, projects)

	// Another process's changes arrive through unit_log too.
	other, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tv.Write("bench/001/note-000105.md", "# Changed elsewhere\n\nrelease 并发 worker\n")
	if _, err := other.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	compareScorers(t, tv, projects)

	// A rebuild (by another process) empties the tables with the units'
	// delete trigger set aside (see clear): its deletions still reach the
	// log, and the trigger is back for the deletes after it.
	if _, err := other.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	compareScorers(t, tv, projects)
	os.Remove(filepath.Join(tv.Root, "bench/001/note-000106.md"))
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	compareScorers(t, tv, projects)
	var units, ftsRows, logged int
	if err := tv.Ix.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM units), (SELECT COUNT(*) FROM units_fts_docsize),
		(SELECT COUNT(*) FROM units u WHERE (SELECT added FROM unit_log l WHERE l.uid = u.uid ORDER BY seq DESC LIMIT 1) IS NOT 1)`).Scan(&units, &ftsRows, &logged); err != nil {
		t.Fatal(err)
	}
	if units != ftsRows {
		t.Errorf("after a rebuild and a deletion: %d units, %d FTS rows", units, ftsRows)
	}
	if logged != 0 {
		t.Errorf("%d units present are logged as deleted last (or not at all)", logged)
	}
}

// A process that fell behind the trimmed end of unit_log builds its postings
// again instead of missing changes.
func TestMemIndexRebuildsWhenBehindTheLog(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha release\n", "b.md": "# B\n\nbravo release\n"})
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	tv.Write("c.md", "# C\n\ncharlie release\n")
	other, err := Open(ctx, tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Trim everything, as a long run of other writers would.
	if _, err := other.db.ExecContext(ctx, "DELETE FROM unit_log"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.db.ExecContext(ctx, "INSERT INTO unit_log(uid, added) VALUES (-1, 0)"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.db.ExecContext(ctx, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"); err != nil {
		t.Fatal(err)
	}
	if got := tv.topPath("charlie"); got != "c.md" {
		t.Fatalf("charlie: got %q, want c.md", got)
	}
	compareScorersSmall(t, tv)
}

func compareScorersSmall(t *testing.T, tv *testVault) {
	ctx := context.Background()
	m, _ := tv.Ix.memFor(ctx)
	if m == nil {
		t.Fatal("no postings")
	}
	ts := tokenize.QueryTerms("release")
	want, _ := tv.Ix.bm25FTS(ctx, MatchExpr(ts), "", DefaultWeights(), 10)
	got, _ := tv.Ix.memHits(ctx, m.Search(ts, memindex.View{}, 10))
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("release: in memory %d hits, FTS5 %d, want 3", len(got), len(want))
	}
	for i := range want {
		if got[i].UID != want[i].UID || got[i].Score != want[i].Score {
			t.Fatalf("hit %d differs: %+v vs %+v", i, got[i], want[i])
		}
	}
}

// When a file takes an id from another, the other's unit keys are rewritten
// in place; the in-memory doc table reads them again.
func TestMemIndexFollowsRewrittenUnitKeys(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"b.md": "---\nid: mem_dup\n---\n# B\n\nbee\n"})
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	tv.Write("a.md", "---\nid: mem_dup\n---\n# A\n\nant\n")
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	m, err := tv.Ix.memFor(ctx)
	if err != nil || m == nil {
		t.Fatal(m, err)
	}
	want := map[string]bool{}
	rows, err := tv.Ix.db.QueryContext(ctx, "SELECT unit_key FROM units")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		want[k] = true
	}
	rows.Close()
	docs, _ := m.Dump() // a line for each live unit: uid, key, …
	live := 0
	for _, d := range docs {
		f := strings.Fields(d)
		live++
		if !want[f[1]] {
			t.Errorf("in memory unit %s has key %q, which the index no longer has (%v)", f[0], f[1], want)
		}
	}
	if live != len(want) {
		t.Errorf("%d live units in memory, %d in the index", live, len(want))
	}
}

// An empty vault keeps an empty copy, which then follows the first notes.
func TestMemIndexFromEmpty(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{})
	ctx := context.Background()
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := tv.search("anything", vault.SearchOptions{}); len(hits) != 0 {
		t.Fatalf("empty vault found %v", hits)
	}
	tv.Write("a.md", "# A\n\nfirst walrus\n")
	if got := tv.topPath("walrus"); got != "a.md" {
		t.Fatalf("walrus: %q", got)
	}
	if m, _ := tv.Ix.memFor(ctx); m == nil || m.Live() != 1 {
		t.Fatalf("in-memory copy: %+v", m)
	}
}
