package retrieve

import (
	"context"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"
)

// The read ports Memory implements beyond its pipeline's: each one named
// here, from the index's lookups, rather than passed through from the
// index's whole method set.

// Under returns the notes under a folder prefix (vault.Lister).
func (m *Memory) Under(ctx context.Context, prefix, project string) ([]vault.Loaded, error) {
	return m.Index.Lookups().Under(ctx, prefix, project)
}

// RuleSources returns the notes that hold guard rules (vault.RuleReader).
func (m *Memory) RuleSources(ctx context.Context, project string) ([]vault.RuleSource, error) {
	return m.Index.Lookups().RuleSources(ctx, project)
}

// RecentNotes returns the project's newest notes in folders
// (vault.RuleReader).
func (m *Memory) RecentNotes(ctx context.Context, project string, folders []string, n int) ([]vault.RecentNote, error) {
	return m.Index.Lookups().RecentNotes(ctx, project, folders, n)
}

// ResolveLink resolves a wikilink target in the project's Effective Memory.
func (m *Memory) ResolveLink(ctx context.Context, target, project string) (id, path string, err error) {
	return m.Index.Lookups().ResolveLink(ctx, target, project)
}

// What Maintain keeps warm, by the index's handles.
func (m *Memory) keepInMemory(ctx context.Context) error { return m.Index.Resident().Keep(ctx) }
func (m *Memory) postingsStats() (fts.MemStats, bool)    { return m.Index.Resident().Stats() }
func (m *Memory) embedder() embed.Embedder               { return m.Index.Vectors().Embedder() }
func (m *Memory) embedPending(ctx context.Context, progress func(done, total int)) (int, error) {
	return m.Index.Vectors().Embed(ctx, progress)
}

// VectorsBehind reports whether units wait for a vector (vault_search says
// its vector results are incomplete meanwhile).
func (m *Memory) VectorsBehind() bool { return m.Index.Vectors().Behind() }

// PendingEmbeddings counts the units without a vector.
func (m *Memory) PendingEmbeddings(ctx context.Context) (int, error) {
	return m.Index.Vectors().Pending(ctx)
}
