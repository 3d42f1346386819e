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
