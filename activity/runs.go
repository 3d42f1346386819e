package activity

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/lore-memory/lore/vault"
)

// RunIndex is one vault's retrieval runs as IndexRuns holds them
// (*retrieve.Memory is one).
type RunIndex interface {
	vault.RunReader
	Vault() *vault.Vault
	Close() error
}

// OpenRuns opens the runs of the vault at dir; closing what it returns
// releases everything it opened.
type OpenRuns func(ctx context.Context, dir string) (RunIndex, error)

// IndexRuns reads retrieval runs from each vault's index, opening each
// index once, through the opener the caller gives (activity never opens a
// database itself).
type IndexRuns struct {
	open     OpenRuns
	mu       sync.Mutex
	ixs      map[string]RunIndex
	borrowed map[RunIndex]bool // added by the caller, who closes them
}

// NewIndexRuns returns an empty set that opens indexes with open (nil: only
// those added); Close closes what it opened.
func NewIndexRuns(open OpenRuns) *IndexRuns {
	return &IndexRuns{open: open, ixs: map[string]RunIndex{}, borrowed: map[RunIndex]bool{}}
}

// Add makes an already open index serve its vault's runs.
func (r *IndexRuns) Add(ix RunIndex) {
	r.mu.Lock()
	r.ixs[ix.Vault().Root] = ix
	r.borrowed[ix] = true
	r.mu.Unlock()
}

func (r *IndexRuns) index(ctx context.Context, dir string) (RunIndex, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ix, ok := r.ixs[dir]; ok {
		return ix, nil
	}
	if r.open == nil {
		return nil, vault.Errorf(vault.CodeNotFound, "no index is open for %s", dir)
	}
	ix, err := r.open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if old, ok := r.ixs[ix.Vault().Root]; ok {
		ix.Close()
		r.ixs[dir] = old
		return old, nil
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
	seen := map[RunIndex]bool{}
	for _, ix := range r.ixs {
		if !seen[ix] && !r.borrowed[ix] {
			seen[ix] = true
			ix.Close()
		}
	}
	r.ixs = map[string]RunIndex{}
}
