package drafts

import (
	"context"
	"time"
)

// Background is the sync a long-running server (lore mcp) runs beside its
// work: it syncs when something waits in the outbox, and every fetch
// interval otherwise (lore.yaml's fetch_every_seconds, 300 by default), so
// that teammates' Drafts and merges come in: a merge on any machine
// reaches this server's agents after its next fetch. The outbox keeps the
// backoff of failed pushes; what a sync brings into the work tree the
// index's watcher sees.
type Background struct {
	r     Remote
	every time.Duration // 0: fetch only when something waits
	last  time.Time     // the last sync Step ran
}

// Background returns the remote's background sync, fetching every every
// (0: never only to fetch).
func (r Remote) Background(every time.Duration) *Background {
	return &Background{r: r, every: every}
}

// defaultInterval is how often the background step runs when no fetch
// interval asks for more often.
const defaultInterval = 30 * time.Second

// Interval is how often Step should run: every 30 s, or as often as a
// fetch is due when that is more often.
func (b *Background) Interval() time.Duration {
	if b.every > 0 && b.every < defaultInterval {
		return b.every
	}
	return defaultInterval
}

// Step syncs when a Draft waits in the outbox, or when a fetch is due and
// the vault has a remote. It reports whether it synced and the sync's
// report (whose Error says why a push will be retried).
func (b *Background) Step(ctx context.Context) (synced bool, rep SyncReport, err error) {
	now := b.r.s.clock()
	due := b.every > 0 && now.Sub(b.last) >= b.every && b.r.Exists(ctx)
	if !b.r.Pending(ctx) && !due {
		return false, SyncReport{}, nil
	}
	b.last = now
	rep, err = b.r.Sync(ctx)
	return true, rep, err
}
