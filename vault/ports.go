package vault

import (
	"context"
	"encoding/json"
)

// The interfaces the edges need of memory. Package retrieve implements every
// one with *retrieve.Memory (the index of package fts with the retrieval
// pipeline over it); mcp, web, journal, guard, activity and cmd hold these
// instead, so each edge names what it uses and a test can tell.

// Searcher finds units by words (search).
type Searcher interface {
	Search(ctx context.Context, query string, opt SearchOptions) ([]Hit, error)
}

// Loader returns whole resources by id or exact path, in request order
// (load).
type Loader interface {
	Load(ctx context.Context, targets []string, project string) ([]Loaded, error)
}

// Activator ranks memory for a task and assembles what to deliver
// (activate), or the best resources alone (recall).
type Activator interface {
	Activate(ctx context.Context, req ActivateRequest) (*Activation, error)
	Recall(ctx context.Context, q, mode, project string, limit int) ([]RecallHit, error)
}

// RuleReader reads the published rules and the recent notes the guard and
// the loadout need.
type RuleReader interface {
	Vault() *Vault
	RuleSources(ctx context.Context, project string) ([]RuleSource, error)
	RecentNotes(ctx context.Context, project string, folders []string, n int) ([]RecentNote, error)
}

// RunReader reads retrieval runs: one run's record, and the runs of one
// query.
type RunReader interface {
	Run(ctx context.Context, id string) (json.RawMessage, error)
	RunsByQuery(ctx context.Context, project, q string) ([]string, error)
}

// Lister returns the resources under a folder, with their text.
type Lister interface {
	Under(ctx context.Context, prefix, project string) ([]Loaded, error)
}
