package vault

import (
	"context"
	"time"
)

// The types the index and the Draft store exchange: the open Drafts the
// index lays over the working tree (OverlaySource, supplied by package
// drafts), what the store asks of the index (DraftIndex), and the outbox
// that keeps each Draft's sync state (Outbox, kept by package fts).
// OverlayDraft is one open Draft as the index lays it over the working tree
// for the project that carries it.
type OverlayDraft struct {
	ID      string
	Project string
	Head    string // the commit the Files come from
	// Unchanged: the index already holds this Draft at Head (Files is empty).
	Unchanged bool
	// Files are the Draft's versions of every path it changes. Data nil means
	// the path is gone in the Draft (deleted or renamed away).
	Files []OverlayFile
}

// OverlayFile is one path of a Draft.
type OverlayFile struct {
	Path string
	Data []byte
}

// OverlaySource supplies the open Drafts (package drafts implements it).
// OverlaySignature must be cheap and change whenever the Drafts do. Overlay
// returns every open Draft; those whose head is the one in have (draft id →
// head) come back Unchanged, without their files.
type OverlaySource interface {
	OverlaySignature(ctx context.Context) (string, error)
	Overlay(ctx context.Context, have map[string]string) ([]OverlayDraft, error)
}

// DraftIndex is what the Draft store needs of the index (*fts.Index is
// one): the vault, to be told of a store (a long-running server indexes and
// embeds it at once), the published path of an id, and to lay the store's
// Drafts over the working tree.
type DraftIndex interface {
	Vault() *Vault
	NotifyChanged()
	PublishedPath(ctx context.Context, id string) (string, error)
	UseOverlay(src OverlaySource)
}

// OutboxEntry is one Draft's sync state.
type OutboxEntry struct {
	DraftID    string    `json:"draft_id"`
	Project    string    `json:"project"`
	Branch     string    `json:"branch"`
	Head       string    `json:"head"`
	Status     string    `json:"sync_status"`
	Attempts   int       `json:"attempts"`
	LastError  string    `json:"last_error,omitempty"`
	NextAt     time.Time `json:"next_attempt_at,omitzero"`
	Pushed     string    `json:"pushed,omitempty"`
	UpdatedAt  time.Time `json:"updated_at"`
	DeleteOnly bool      `json:"delete_on_remote,omitempty"`
}

// DueDraft is a Draft the outbox holds for a push now: its head ("" to
// delete its branch on the remote) and the head the remote had when it was
// last pushed.
type DueDraft struct {
	ID, Branch, Head, Pushed string
	Attempts                 int
}

// Outbox keeps, per Draft, what sync must do and how it went, across
// restarts (package fts keeps it in a SQLite file beside the index), and
// logs every acknowledged store operation. Its writes are best effort: a
// failed one is kept for Err (the Draft branches are the truth, and sync
// reconciles the outbox with them).
type Outbox interface {
	Enqueue(ctx context.Context, id, project, branch, head string, now time.Time)
	// Discarded records a dropped Draft: a delete on the remote when it was
	// pushed, else nothing to sync. It returns the Draft's sync status.
	Discarded(ctx context.Context, id string, now time.Time) string
	RecordOp(ctx context.Context, lop, draft, project, op, resourceID, path, commit string, now time.Time)
	Entries(ctx context.Context) ([]OutboxEntry, error)
	Status(ctx context.Context, id string) string
	Head(ctx context.Context, id string) string
	OperationLogged(ctx context.Context, lop string) bool
	// CommitLogged reports whether a store here made the commit.
	CommitLogged(ctx context.Context, commit string) bool
	Pending(ctx context.Context) bool
	// Due returns the Drafts due for a push at now and marks them syncing.
	Due(ctx context.Context, now time.Time) ([]DueDraft, error)
	// Retry records a transport failure (status retrying or failed).
	Retry(ctx context.Context, id, status, reason string, next, now time.Time)
	Failed(ctx context.Context, id, reason string, now time.Time)
	Synced(ctx context.Context, id, head string, now time.Time)
	Forget(ctx context.Context, id string)
	// Tracked returns the ids of the rows that name a head (Drafts the
	// outbox follows, as opposed to deletes on the remote).
	Tracked(ctx context.Context) ([]string, error)
	// ReadOnly says why nothing can be written ("" when it can).
	ReadOnly() string
	Err() error
	Close() error
}
