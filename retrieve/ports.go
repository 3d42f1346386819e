package retrieve

import (
	"context"
	"encoding/json"

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

// ResolveLink resolves a wikilink target written in the note at src ("":
// none) in the project's Effective Memory.
func (m *Memory) ResolveLink(ctx context.Context, target, project, src string) (id, path string, err error) {
	return m.Index.Lookups().ResolveLink(ctx, target, project, src)
}

// Search finds units for a query (vault.Searcher).
func (m *Memory) Search(ctx context.Context, query string, opt vault.SearchOptions) ([]vault.Hit, error) {
	return m.Pipeline.Search(ctx, query, opt)
}

// Activate answers activate (vault.Activator).
func (m *Memory) Activate(ctx context.Context, req vault.ActivateRequest) (*vault.Activation, error) {
	return m.Pipeline.Activate(ctx, req)
}

// Recall answers recall_memory (vault.Activator).
func (m *Memory) Recall(ctx context.Context, q, mode, project string, limit int) ([]vault.RecallHit, error) {
	return m.Pipeline.Recall(ctx, q, mode, project, limit)
}

// Run returns a retrieval run's record (vault.RunReader).
func (m *Memory) Run(ctx context.Context, id string) (json.RawMessage, error) {
	return m.Pipeline.Run(ctx, id)
}

// RunsByQuery returns the ids of a project's runs of exactly q (vault.RunReader).
func (m *Memory) RunsByQuery(ctx context.Context, project, q string) ([]string, error) {
	return m.Pipeline.RunsByQuery(ctx, project, q)
}

// DefaultMode is the pipeline's mode: hybrid, or lexical without a model.
func (m *Memory) DefaultMode() string { return m.Pipeline.DefaultMode() }

// Load reads whole notes (vault.Loader).
func (m *Memory) Load(ctx context.Context, targets []string, project string) ([]vault.Loaded, error) {
	return m.Index.Load(ctx, targets, project)
}

// Vault is the vault the memory is of.
func (m *Memory) Vault() *vault.Vault { return m.Index.Vault() }

// Close closes the index.
func (m *Memory) Close() error { return m.Index.Close() }

// What Maintain keeps warm, by the index's handles.
func (m *Memory) refresh(ctx context.Context, progress func(done, total int)) (fts.RefreshStats, error) {
	return m.Index.Refresh(ctx, progress)
}
func (m *Memory) watch(ctx context.Context) error        { return m.Index.Watch(ctx) }
func (m *Memory) changes() <-chan struct{}               { return m.Index.Changes() }
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
