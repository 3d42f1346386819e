package activity

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"
)

// IndexRuns reads retrieval runs from each vault's index, opening each
// index once. (activity uses fts for this, beside vault: a departure from
// DESIGN.md's layout, like drafts and guard.)
type IndexRuns struct {
	mu       sync.Mutex
	ixs      map[string]*fts.Index
	borrowed map[*fts.Index]bool // added by the caller, who closes them
}

// NewIndexRuns returns an empty set; Close closes what it opened.
func NewIndexRuns() *IndexRuns {
	return &IndexRuns{ixs: map[string]*fts.Index{}, borrowed: map[*fts.Index]bool{}}
}

// Add makes an already open index serve its vault's runs.
func (r *IndexRuns) Add(ix *fts.Index) {
	r.mu.Lock()
	r.ixs[ix.Vault().Root] = ix
	r.borrowed[ix] = true
	r.mu.Unlock()
}

func (r *IndexRuns) index(ctx context.Context, dir string) (*fts.Index, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix, ok := r.ixs[dir]; ok {
		return ix, nil
	}
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	if ix, ok := r.ixs[v.Root]; ok {
		v.Close()
		return ix, nil
	}
	ix, err := fts.Open(ctx, v)
	if err != nil {
		v.Close()
		return nil, err
	}
	r.ixs[dir] = ix
	return ix, nil
}

// Run returns a run's record.
func (r *IndexRuns) Run(ctx context.Context, dir, id string) (json.RawMessage, error) {
	ix, err := r.index(ctx, dir)
	if err != nil {
		return nil, err
	}
	return ix.Run(ctx, id)
}

// RunsByQuery returns the ids of the project's runs of exactly that query.
func (r *IndexRuns) RunsByQuery(ctx context.Context, dir, project, q string) ([]string, error) {
	ix, err := r.index(ctx, dir)
	if err != nil {
		return nil, err
	}
	return ix.RunsByQuery(ctx, project, q)
}

// Close closes the indexes it opened.
func (r *IndexRuns) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[*fts.Index]bool{}
	for _, ix := range r.ixs {
		if !seen[ix] && !r.borrowed[ix] {
			seen[ix] = true
			v := ix.Vault()
			ix.Close()
			v.Close()
		}
	}
	r.ixs = map[string]*fts.Index{}
}
