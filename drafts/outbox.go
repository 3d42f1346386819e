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

// Outbox returns every Draft's sync state.
func (s *Store) Outbox(ctx context.Context) ([]OutboxEntry, error) { return s.out.Entries(ctx) }

// SyncStatus returns one Draft's sync status ("queued" when unknown).
func (s *Store) SyncStatus(ctx context.Context, id string) string { return s.out.Status(ctx, id) }

// OperationLogged reports whether a local operation id was acknowledged here.
func (s *Store) OperationLogged(ctx context.Context, lop string) bool {
	return s.out.OperationLogged(ctx, lop)
}

// Pending reports whether the outbox holds a Draft waiting to be synced.
func (s *Store) Pending(ctx context.Context) bool { return s.out.Pending(ctx) }

// OutboxError is the last error writing the outbox met in this process (nil:
// none); the next sync repairs the outbox from the Draft branches.
func (s *Store) OutboxError() error { return s.out.Err() }
