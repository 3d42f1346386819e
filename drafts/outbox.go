package drafts

import (
	"context"

	"github.com/lore-memory/lore/vault"
)

// The outbox keeps, per Draft, what sync must do and how it went, across
// restarts (vault.Outbox; package fts keeps it in a SQLite file beside the
// index). The Draft branches are the truth: the outbox is reconciled with
// them at every sync, so a crash between a ref update and an outbox write
// loses nothing.

// OutboxEntry is one Draft's sync state.
type OutboxEntry = vault.OutboxEntry

// enqueue marks a Draft's new head for sync.
func (s *Store) enqueue(ctx context.Context, id, project, branch, head string) {
	s.out.Enqueue(ctx, id, project, branch, head, s.clock())
}

// outboxDiscarded records a dropped Draft (see vault.Outbox.Discarded).
func (s *Store) outboxDiscarded(ctx context.Context, id string) string {
	return s.out.Discarded(ctx, id, s.clock())
}

func (s *Store) recordOp(ctx context.Context, lop, draft, project, op, rid, path, commit string) {
	s.out.RecordOp(ctx, lop, draft, project, op, rid, path, commit, s.clock())
}

// outboxEntries returns every Draft's sync state.
func (s *Store) outboxEntries(ctx context.Context) ([]OutboxEntry, error) { return s.out.Entries(ctx) }

// syncStatus returns one Draft's sync status ("queued" when unknown).
func (s *Store) syncStatus(ctx context.Context, id string) string { return s.out.Status(ctx, id) }

// pending reports whether the outbox holds a Draft waiting to be synced.
func (s *Store) pending(ctx context.Context) bool { return s.out.Pending(ctx) }

// outboxError is the last error writing the outbox met in this process (nil:
// none); the next sync repairs the outbox from the Draft branches.
func (s *Store) outboxError() error { return s.out.Err() }
