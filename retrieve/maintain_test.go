package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// A long-running lore mcp indexes and embeds what changed as soon as it
// changes (an edit the watcher sees), with no query asking: before, it
// embedded 2 s after start-up and then every 30 s, and indexed only when a
// query came. The test polls without refreshing the index itself, for at
// most 20 s (less than the old period), and asserts no time.
// backgroundVault is a one-note vault's memory, with a test embedder, for
// the background loop's tests.
func backgroundVault(t *testing.T) (dir string, ix *Memory) {
	t.Helper()
	dir = testvault.Committed(t, map[string]string{"a.md": "# A\n\nfirst note\n"})
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ix, err = Open(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Index.Vectors().Use(context.Background(), &embed.HashEmbedder{Dims: 64}); err != nil {
		t.Fatal(err)
	}
	return dir, ix
}

func TestMaintain_EmbedsChangesAsTheyHappen(t *testing.T) {
	dir, ix := backgroundVault(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ix.Maintain(ctx, MaintainOptions{Embed: true})
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if n, err := ix.Index.Vectors().Pending(context.Background()); err == nil && n == 0 && !ix.VectorsBehind() {
				return
			}
		}
		t.Fatalf("%s: units still without vectors after 20 s", what)
	}
	waitFor("start-up")
	time.Sleep(100 * time.Millisecond) // the watcher is up
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n\na second note, written after start-up\n"), 0o644)
	// The edit reaches the index and its vectors without any query.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		p, _ := ix.Index.PublishedPath(context.Background(), vault.DerivedID("b.md")) // reads, never refreshes
		n, _ := ix.Index.Vectors().Pending(context.Background())
		if p == "b.md" && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new note was not indexed and embedded by the server on its own (indexed %q, pending %d)", p, n)
		}
	}
}

// panickyIndex is a real index whose refreshes and embedding panic, as a
// refresh did on a Draft of a shape the parser mishandled.
type panickyIndex struct {
	*Memory
	refreshes atomic.Int32
}

func (p *panickyIndex) refresh(context.Context, func(done, total int)) (fts.RefreshStats, error) {
	p.refreshes.Add(1)
	var s []byte
	_ = s[p.refreshes.Load():] // slice bounds out of range
	return fts.RefreshStats{}, nil
}

func (p *panickyIndex) embedPending(context.Context, func(done, total int)) (int, error) {
	panic("embedding bug")
}

// TestMaintain_APanicInAStepIsLoggedAndTheLoopGoesOn: no step of lore
// mcp's background work takes the process down. A refresh that panics is
// logged with its stack, and the loop keeps refreshing on the next change.
func TestMaintain_APanicInAStepIsLoggedAndTheLoopGoesOn(t *testing.T) {
	_, ix := backgroundVault(t)
	p := &panickyIndex{Memory: ix}
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		maintain(ctx, p, MaintainOptions{Embed: true, Log: &log, Prefix: "lore mcp: "})
	}()
	for deadline := time.Now().Add(20 * time.Second); p.refreshes.Load() < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no refresh after the first one panicked (%d); log:\n%s", p.refreshes.Load(), log.String())
		}
		ix.Index.NotifyChanged()
	}
	cancel()
	<-done
	out := log.String()
	for _, want := range []string{"lore mcp: refresh: a bug in lore", "lore mcp: embedding: a bug in lore: embedding bug", "goroutine"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}

// syncBuffer is a strings.Builder several goroutines may write.
type syncBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}
