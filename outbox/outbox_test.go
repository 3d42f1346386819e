package outbox

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T) (*Outbox, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "git", "lore", "outbox.db")
	o, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	if o.ReadOnly() != "" {
		t.Fatalf("a writable folder's outbox says read-only: %s", o.ReadOnly())
	}
	return o, p
}

var t0 = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// A Draft's head goes queued → syncing (Due) → synced, and the outbox no
// longer has anything pending; a second open of the file sees the same rows.
func TestOutbox_ADraftIsQueuedThenSynced(t *testing.T) {
	ctx := context.Background()
	o, p := open(t)
	o.Enqueue(ctx, "d1", "web", "drafts/web/d1", "h1", t0)
	if st := o.Status(ctx, "d1"); st != "queued" || !o.Pending(ctx) || o.Head(ctx, "d1") != "h1" {
		t.Fatalf("after Enqueue: status %q, pending %v, head %q", st, o.Pending(ctx), o.Head(ctx, "d1"))
	}
	due, err := o.Due(ctx, t0)
	if err != nil || len(due) != 1 || due[0].ID != "d1" || due[0].Head != "h1" || due[0].Branch != "drafts/web/d1" {
		t.Fatalf("Due = %+v, %v", due, err)
	}
	if st := o.Status(ctx, "d1"); st != "syncing" {
		t.Fatalf("Due left status %q, want syncing", st)
	}
	o.Synced(ctx, "d1", "h1", t0.Add(time.Second))
	if st := o.Status(ctx, "d1"); st != "synced" || o.Pending(ctx) {
		t.Fatalf("after Synced: status %q, pending %v", st, o.Pending(ctx))
	}
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}

	again, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	es, err := again.Entries(ctx)
	if err != nil || len(es) != 1 || es[0].Pushed != "h1" || es[0].Status != "synced" || !es[0].UpdatedAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("reopened Entries = %+v, %v", es, err)
	}
}

// A push of an older head that ends after the Draft moved on does not mark
// the newer head synced: it stays queued for the next sync.
func TestOutbox_SyncedForAnOlderHeadChangesNothing(t *testing.T) {
	ctx := context.Background()
	o, _ := open(t)
	o.Enqueue(ctx, "d1", "web", "drafts/web/d1", "h1", t0)
	o.Due(ctx, t0)
	o.Enqueue(ctx, "d1", "web", "drafts/web/d1", "h2", t0.Add(time.Second))
	o.Synced(ctx, "d1", "h1", t0.Add(2*time.Second))
	if st, head := o.Status(ctx, "d1"), o.Head(ctx, "d1"); st != "queued" || head != "h2" {
		t.Fatalf("status %q head %q, want queued h2", st, head)
	}
}

// A failed try waits until its next time: Due does not return it before,
// and does after; too many tries end as failed, with the reason kept.
func TestOutbox_RetryWaitsItsTurn(t *testing.T) {
	ctx := context.Background()
	o, _ := open(t)
	o.Enqueue(ctx, "d1", "web", "drafts/web/d1", "h1", t0)
	o.Due(ctx, t0)
	o.Retry(ctx, "d1", "retrying", "connection refused", t0.Add(time.Minute), t0)
	if due, _ := o.Due(ctx, t0.Add(30*time.Second)); len(due) != 0 {
		t.Fatalf("due before its next time: %+v", due)
	}
	due, _ := o.Due(ctx, t0.Add(time.Minute))
	if len(due) != 1 || due[0].Attempts != 1 {
		t.Fatalf("Due at its time = %+v, want d1 with one attempt", due)
	}
	o.Failed(ctx, "d1", "remote refused: protected branch", t0.Add(2*time.Minute))
	es, _ := o.Entries(ctx)
	if len(es) != 1 || es[0].Status != "failed" || es[0].Attempts != 2 || es[0].LastError != "remote refused: protected branch" {
		t.Fatalf("Entries = %+v", es)
	}
	if o.Pending(ctx) {
		t.Error("a failed Draft counts as pending")
	}
}

// A discarded Draft the remote never had leaves nothing to sync; one it
// had becomes a delete on the remote, which Tracked does not list.
func TestOutbox_DiscardedDeletesOnlyWhatWasPushed(t *testing.T) {
	ctx := context.Background()
	o, _ := open(t)
	o.Enqueue(ctx, "local", "web", "drafts/web/local", "h1", t0)
	if st := o.Discarded(ctx, "local", t0); st != "synced" {
		t.Errorf("never pushed: Discarded = %q, want synced", st)
	}
	o.Enqueue(ctx, "pushed", "web", "drafts/web/pushed", "h2", t0)
	o.Synced(ctx, "pushed", "h2", t0)
	if st := o.Discarded(ctx, "pushed", t0); st != "queued" {
		t.Errorf("pushed: Discarded = %q, want queued", st)
	}
	es, _ := o.Entries(ctx)
	if len(es) != 1 || es[0].DraftID != "pushed" || !es[0].DeleteOnly {
		t.Fatalf("Entries = %+v, want only the pushed Draft, as a delete", es)
	}
	if ids, err := o.Tracked(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Tracked = %v, %v; a delete names no head", ids, err)
	}
	o.Forget(ctx, "pushed")
	if es, _ := o.Entries(ctx); len(es) != 0 {
		t.Errorf("after Forget: %+v", es)
	}
}

// The operation log answers by operation id and by commit, once each.
func TestOutbox_OperationLog(t *testing.T) {
	ctx := context.Background()
	o, _ := open(t)
	o.RecordOp(ctx, "op1", "d1", "web", "create", "r1", "decisions/a.md", "c1", t0)
	o.RecordOp(ctx, "op1", "d1", "web", "create", "r1", "decisions/a.md", "c9", t0) // a retry: ignored
	if !o.OperationLogged(ctx, "op1") || o.OperationLogged(ctx, "op2") {
		t.Error("OperationLogged answers wrong")
	}
	if !o.CommitLogged(ctx, "c1") || o.CommitLogged(ctx, "c9") {
		t.Error("CommitLogged: the first record of an operation is the one kept")
	}
}

// A write that fails is kept for Err, not returned or panicked on: the
// store it records was already acknowledged (its commit is on its branch).
func TestOutbox_AFailedWriteIsKeptForErr(t *testing.T) {
	ctx := context.Background()
	o, _ := open(t)
	o.db.Close()
	o.Enqueue(ctx, "d1", "web", "drafts/web/d1", "h1", t0)
	if o.Err() == nil {
		t.Fatal("a write to a closed outbox left no error")
	}
	if st := o.Status(ctx, "d1"); st != "queued" {
		t.Errorf("Status of an unreadable row = %q, want the default queued", st)
	}
}
