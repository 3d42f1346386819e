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

// The interfaces of the write side. Package drafts implements each with
// *drafts.Store; mcp and journal hold the ones agents' calls need, web and
// the review commands the one people need.

// Proposer proposes changes to memory: each a commit on the project's Draft
// branch. Nothing it does publishes (an agent's store, the vault tools).
type Proposer interface {
	Apply(ctx context.Context, project string, op Op) (StoreResult, error)
	// CreateSuperseding creates a note and marks the notes it supersedes,
	// in one Draft.
	CreateSuperseding(ctx context.Context, project string, c CreateOp, supersede []string) (StoreResult, error)
}

// Rememberer writes the journal's new notes: a create inside a namespace's
// own folder, the one write that may publish at once (append-only diary).
type Rememberer interface {
	Remember(ctx context.Context, project, folder string, c CreateOp) (StoreResult, error)
}

// Reviewer is how people review Drafts: list them, see one's diff (with
// the head it shows), merge the heads they reviewed, discard.
type Reviewer interface {
	List(ctx context.Context, project string, all bool) ([]Draft, error)
	Diff(ctx context.Context, id string) (patch string, d Draft, err error)
	// Merge refuses while the vault's work tree holds uncommitted edits:
	// they are not the person's review.
	Merge(ctx context.Context, reviewed []string) (MergeResult, error)
	// CommitEdits records the work tree's uncommitted edits to notes as
	// the person's own commit, when they ask (lore commit, merge
	// --with-edits), and returns the commit and the paths.
	CommitEdits(ctx context.Context) (string, []string, error)
	Discard(ctx context.Context, ids []string) ([]string, error)
	OrgRef() string
}

// Publisher is the vault's side that faces its git remote, as a reviewer
// sees it: each Draft's sync state, whether there is a remote, and
// publishing what a merge changed.
type Publisher interface {
	Status(ctx context.Context, id string) string
	Exists(ctx context.Context) bool
	// Publish sends what a merge changed to the vault's remote (the org
	// ref, the merged Drafts' branches deleted) and says how it went; ""
	// without a remote.
	Publish(ctx context.Context) string
}
