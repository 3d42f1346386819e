package drafts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// The background sync pushes what waits in the outbox at once, fetches
// only once its interval has passed (by the store's clock), and does
// nothing in between; with no fetch interval it syncs only what waits.
func TestBackground_SyncsWhatWaitsAndFetchesWhenDue(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	_, bare := withRemote(t, tv)
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	tv.s.setClock(func() time.Time { return now })
	bg := tv.s.Remote().Background(5 * time.Minute)
	if got := bg.Interval(); got != 30*time.Second {
		t.Errorf("Interval with a 5-minute fetch = %v, want 30s", got)
	}

	r := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/bg.md", Body: "# Background\n\nfirst\n"}})
	synced, rep, err := bg.Step(ctx)
	if err != nil || !synced || len(rep.Pushed) != 1 || rep.Pushed[0] != r.DraftID {
		t.Fatalf("a waiting Draft: synced %v, %+v, %v", synced, rep, err)
	}
	if got := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "drafts/api/"+r.DraftID)); got == "" {
		t.Fatal("the remote does not have the Draft")
	}
	now = now.Add(time.Minute)
	if synced, _, err := bg.Step(ctx); err != nil || synced {
		t.Errorf("nothing waits and no fetch is due: synced %v, %v", synced, err)
	}
	now = now.Add(5 * time.Minute)
	if synced, _, err := bg.Step(ctx); err != nil || !synced {
		t.Errorf("a fetch is due: synced %v, %v", synced, err)
	}
	if synced, _, err := bg.Step(ctx); err != nil || synced {
		t.Errorf("right after a fetch: synced %v, %v", synced, err)
	}

	never := tv.s.Remote().Background(0)
	now = now.Add(time.Hour)
	if synced, _, err := never.Step(ctx); err != nil || synced {
		t.Errorf("no fetch interval and nothing waits: synced %v, %v", synced, err)
	}
	if got := tv.s.Remote().Background(10 * time.Second).Interval(); got != 10*time.Second {
		t.Errorf("Interval with a 10-second fetch = %v", got)
	}
}
