package drafts

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// BenchmarkStoreUpdate measures one store update (load for the hash
// included) in a long-lived process, as lore mcp runs it.
func BenchmarkStoreUpdate(b *testing.B) {
	tv := newVault(b, "", baseFiles)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cur := tv.load("api", "mem_release")
		last := cur.Content[strings.LastIndex(strings.TrimSuffix(cur.Content, "\n"), "\n")+1:]
		if _, err := tv.s.Apply(ctx, "api", update("mem_release", cur.ContentHash, last, last+fmt.Sprintf("line %d\n", i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreCreate measures one create, each a new Draft.
func BenchmarkStoreCreate(b *testing.B) {
	tv := newVault(b, "", baseFiles)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tv.s.Apply(ctx, "api", vault.Op{Create: &vault.CreateOp{Path: fmt.Sprintf("notes/n%d.md", i), Body: "# N\n\ntext\n"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMerge100 merges 100 Drafts in one call (each a merge commit).
func BenchmarkMerge100(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tv := newVault(b, "", baseFiles)
		var ids []string
		for j := 0; j < 100; j++ {
			r, err := tv.s.Apply(ctx, []string{"api", "web"}[j%2], vault.Op{Create: &vault.CreateOp{Path: fmt.Sprintf("notes/m%d.md", j), Body: "# M\n\ntext\n"}})
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, r.DraftID)
		}
		b.StartTimer()
		if res, err := tv.s.Merge(ctx, ids); err != nil || len(res.Merged) != 100 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkSyncTeammates100Drafts times a sync that brings 100 open Drafts
// of a teammate over a loopback git daemon: the fetch, and each Draft
// made a local branch laid over its project.
func BenchmarkSyncTeammates100Drafts(b *testing.B) {
	tm := newTeam(b)
	ctx := context.Background()
	alice := tm.person("alice")
	for j := 0; j < 100; j++ {
		if _, err := alice.s.Apply(ctx, []string{"api", "web"}[j%2], vault.Op{Create: &vault.CreateOp{Path: fmt.Sprintf("notes/d%d.md", j), Body: "# D\n\ntext\n"}}); err != nil {
			b.Fatal(err)
		}
	}
	alice.sync()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bob := tm.person(fmt.Sprintf("bob%d", i))
		b.StartTimer()
		if rep := bob.sync(); len(rep.Fetched) != 100 {
			b.Fatalf("fetched %d", len(rep.Fetched))
		}
	}
}

// BenchmarkSyncIn1000Notes times a sync that brings 1,000 changed notes of
// the published memory (one teammate's push) over a loopback git daemon:
// the fetch, the fast-forward of the org ref and the work tree, and the
// index brought up to date.
func BenchmarkSyncIn1000Notes(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tm := newTeam(b)
		alice, bob := tm.person("alice"), tm.person("bob")
		for j := 0; j < 1000; j++ {
			bob.write(fmt.Sprintf("notes/n%04d.md", j), fmt.Sprintf("# Note %d\n\nThe text of note %d, about topic %d.\n", j, j, j%37))
		}
		bob.git("add", "-A")
		bob.git("commit", "-qm", "1,000 notes")
		bob.git("push", "-q", "origin", "main")
		b.StartTimer()
		rep := alice.sync()
		if len(rep.CameIn) != 1000 {
			b.Fatalf("came in: %d", len(rep.CameIn))
		}
		if _, err := alice.ix.Index.Refresh(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}
