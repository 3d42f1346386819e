package drafts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// Remote, the store's side a reviewer's merge publishes through
// (vault.Publisher): without a remote a merge publishes nothing; with one
// it pushes the org ref and says so; while another sync holds the lock
// past its publishWait the merge stays done here and the publish waits for the
// next sync, which pushes it. The outbox's state reads back through it.
func TestRemote_PublishesAMergeOrLeavesItToTheNextSync(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	r := tv.s.Remote()
	if got := r.Publish(ctx); got != "" {
		t.Errorf("Publish without a remote = %q, want nothing", got)
	}
	_, bare := withRemote(t, tv)
	head := func(dir string) string { return strings.TrimSpace(testvault.Git(t, dir, "rev-parse", "main")) }

	d := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/one.md", Body: "# One\n\nfirst\n"}})
	if st := r.Status(ctx, d.DraftID); st != "queued" {
		t.Errorf("a new Draft's status = %q, want queued", st)
	}
	if es, err := r.Outbox(ctx); err != nil || len(es) != 1 || es[0].DraftID != d.DraftID {
		t.Errorf("Outbox = %+v, %v", es, err)
	}
	if _, err := tv.s.Merge(ctx, []string{d.DraftID}); err != nil {
		t.Fatal(err)
	}
	if got := r.Publish(ctx); got != "org ref: pushed" || head(bare) != head(tv.root) {
		t.Fatalf("Publish = %q; the remote's main %s, the vault's %s", got, head(bare), head(tv.root))
	}

	tv.s.publishWait = 50 * time.Millisecond
	unlock, err := lockFile(ctx, tv.s.syncLock()) // a sync that does not end
	if err != nil {
		t.Fatal(err)
	}
	d2 := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/two.md", Body: "# Two\n\nsecond\n"}})
	if _, err := tv.s.Merge(ctx, []string{d2.DraftID}); err != nil {
		t.Fatal(err)
	}
	got := r.Publish(ctx)
	if !strings.HasPrefix(got, "not published yet") || !strings.Contains(got, "another sync is still running") {
		t.Errorf("Publish while a sync holds the lock = %q", got)
	}
	if head(bare) == head(tv.root) {
		t.Fatal("the remote got the org ref while another sync held the lock")
	}
	unlock()
	if rep, err := r.Sync(ctx); err != nil || rep.Error != "" || head(bare) != head(tv.root) {
		t.Errorf("the next sync: %+v, %v; the remote's main %s, the vault's %s", rep, err, head(bare), head(tv.root))
	}
	if err := r.OutboxError(); err != nil {
		t.Errorf("OutboxError = %v", err)
	}
}
