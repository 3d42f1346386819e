package retrieve

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/safe"
)

// MaintainOptions say what Maintain does besides keeping the index fresh.
type MaintainOptions struct {
	// Embed makes vectors for new units as they appear (when the memory has
	// an embedding model).
	Embed bool
	// Sync, when set, runs every SyncEvery (30 s unless set): lore mcp sends
	// waiting Drafts to the vault's remote with it.
	Sync      func(ctx context.Context) error
	SyncEvery time.Duration
	// Log gets each step's failure, a panic's stack, and what the in-memory
	// copy holds, each line after Prefix ("lore mcp: ").
	Log    io.Writer
	Prefix string
	// Building counts the in-memory copies being built while one is (the
	// memory limit allows for their garbage).
	Building *atomic.Int32
}

// maintained is what Maintain keeps warm (*Memory is one).
type maintained interface {
	refresh(ctx context.Context, progress func(done, total int)) (fts.RefreshStats, error)
	watch(ctx context.Context) error
	keepInMemory(ctx context.Context) error
	postingsStats() (fts.MemStats, bool)
	embedder() embed.Embedder
	embedPending(ctx context.Context, progress func(done, total int)) (int, error)
	changes() <-chan struct{}
}

// Maintain keeps the memory warm off the query path until ctx ends: a first
// refresh, a watcher on the vault, the in-memory copy, then embedding of new
// units whenever the index reports a change (an edit the watcher saw, a
// stored Draft, a refresh that wrote units), after a short pause that lets
// a burst of changes settle, and o.Sync every o.SyncEvery. Each step runs
// contained: a panic in one (a bug, a file that trips it) is logged with
// its stack and the loop goes on, so no note and no Draft takes the server
// down.
func (m *Memory) Maintain(ctx context.Context, o MaintainOptions) { maintain(ctx, m, o) }

func maintain(ctx context.Context, ix maintained, o MaintainOptions) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.SyncEvery == 0 {
		o.SyncEvery = 30 * time.Second
	}
	step := func(what string, f func() error) {
		err := safe.Call(f)
		if pe, ok := err.(*safe.PanicError); ok {
			fmt.Fprintf(o.Log, "%s%s: %v (the server goes on)\n%s", o.Prefix, what, pe, pe.Stack)
		} else if err != nil && ctx.Err() == nil {
			fmt.Fprintf(o.Log, "%s%s: %v\n", o.Prefix, what, err)
		}
	}
	refresh := func() error { _, err := ix.refresh(ctx, nil); return err }
	step("refresh", refresh)
	step("watching the vault (every call still checks freshness)", func() error { return ix.watch(ctx) })
	// BM25 in Go from here on (FTS5 answers until the postings are built).
	step("in-memory postings (FTS5 scores every query)", func() error {
		began := time.Now()
		if o.Building != nil {
			o.Building.Add(1)
			defer o.Building.Add(-1)
		}
		if err := ix.keepInMemory(ctx); err != nil {
			return err
		}
		if st, kept := ix.postingsStats(); kept {
			how := "built from the index"
			if st.Mapped {
				how = "mapped from the copy saved beside the index"
			}
			fmt.Fprintf(o.Log, "%sin memory: %d units, %d postings (%.1f s; %s)\n", o.Prefix, st.Units, st.Postings, time.Since(began).Seconds(), how)
		} else if ctx.Err() == nil {
			fmt.Fprintf(o.Log, "%sthe vault is larger than the in-memory copy allows; BM25 and the vector search run in SQL (slower)\n", o.Prefix)
		}
		return nil
	})
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		timed := false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			timed = true
		case <-ix.changes():
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			step("refresh", refresh)
		}
		if o.Embed && ix.embedder() != nil {
			step("embedding", func() error { _, err := ix.embedPending(ctx, nil); return err })
		}
		if !timed {
			continue
		}
		if o.Sync != nil {
			step("sync", func() error { return o.Sync(ctx) })
		}
		t.Reset(o.SyncEvery)
	}
}
