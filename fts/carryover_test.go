package fts

import (
	"bytes"
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/vault"
)

// countingEmbedder is the hash model counting the texts it embedded; name
// tells one model from another.
type countingEmbedder struct {
	embed.HashEmbedder
	name  string
	texts atomic.Int64
}

func (e *countingEmbedder) Name() string { return e.name }

func (e *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.texts.Add(int64(len(texts)))
	return e.HashEmbedder.Embed(ctx, texts)
}

var carryNotes = map[string]string{
	"release.md": "# Release\n\nTag the build, then deploy.\n\n## Rollback\n\nRevert the tag and deploy again.\n",
	"sync.md":    "# Sync\n\nPush after every merge; retry a failed push three times.\n",
	"budget.md":  "# Retry budget\n\nmax_retry_count is 8 because the remote limits us.\n",
}

// embedded is every stored vector, by the name of its input.
func embedded(t *testing.T, ix *Index) map[string][]byte {
	t.Helper()
	rows, err := ix.db.Query(`SELECT ` + hashSQL("e.embed_hash") + `, v.embedding FROM embeddings e JOIN unit_vectors v ON v.rowid = e.vec_rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var h string
		var b []byte
		if err := rows.Scan(&h, &b); err != nil {
			t.Fatal(err)
		}
		out[h] = b
	}
	return out
}

// indexWithVectors is a test vault whose index holds every section's vector
// from e, and those vectors.
func indexWithVectors(t *testing.T, e embed.Embedder) (*testVault, map[string][]byte) {
	t.Helper()
	tv := newTestVault(t, carryNotes)
	ctx := context.Background()
	if err := tv.Ix.Vectors().Use(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	before := embedded(t, tv.Ix)
	if len(before) < 4 {
		t.Fatalf("only %d vectors", len(before))
	}
	return tv, before
}

// asOtherFormat makes the index's file one of another index format, as an
// older lore left it, and closes it.
func asOtherFormat(t *testing.T, tv *testVault, sql ...string) {
	t.Helper()
	for _, q := range append([]string{"UPDATE meta SET value = 'lore-0' WHERE key = 'format'"}, sql...) {
		if _, err := tv.Ix.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tv.Ix.Close(); err != nil {
		t.Fatal(err)
	}
}

// reopenWith opens the vault's index again (reopen) with e, refreshes it
// and runs one embedding pass.
func reopenWith(t *testing.T, tv *testVault, e embed.Embedder) *Index {
	t.Helper()
	ctx := context.Background()
	ix := reopen(t, tv)
	if err := ix.Vectors().Use(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// An index of another format is built anew, but the vectors of every
// section whose model input did not change come from the old file, byte for
// byte: only the edited section goes to the model. The old file is gone
// after that pass.
func TestVectors_CarriedOverAFormatChange(t *testing.T) {
	t.Parallel()
	e := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	tv, before := indexWithVectors(t, e)
	asOtherFormat(t, tv)
	tv.Write("sync.md", "# Sync\n\nPush after every merge; retry a failed push five times.\n")

	again := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	ix := reopenWith(t, tv, again)
	var format string
	ix.db.QueryRow("SELECT value FROM meta WHERE key = 'format'").Scan(&format)
	if format != IndexFormat {
		t.Fatalf("the index was not built anew: format %q", format)
	}
	if n := again.texts.Load(); n != 1 {
		t.Errorf("the model embedded %d texts; want 1, the edited section's", n)
	}
	after := embedded(t, ix)
	if len(after) != len(before) {
		t.Fatalf("%d vectors after, %d before", len(after), len(before))
	}
	carried := 0
	for h, b := range after {
		if old, ok := before[h]; ok {
			carried++
			if !bytes.Equal(old, b) {
				t.Errorf("vector %s changed on its way over", h)
			}
		}
	}
	if carried != len(before)-1 {
		t.Errorf("%d vectors carried over; want %d", carried, len(before)-1)
	}
	if _, err := os.Stat(previousPath(ix.path)); !os.IsNotExist(err) {
		t.Errorf("the old index is still there after the pass: %v", err)
	}
	n, err := ix.Vectors().Pending(context.Background())
	if err != nil || n != 0 {
		t.Errorf("pending after the pass: %d %v", n, err)
	}
	// The vector stage finds the carried vectors.
	qv, _ := again.Embed(context.Background(), []string{"revert the tag"})
	near, err := ix.Lookups().Nearest(context.Background(), qv[0], "", 3)
	if err != nil || len(near) == 0 {
		t.Fatalf("nearest: %v %v", near, err)
	}
}

// An older lore still running keeps the old file open, so what it last
// committed is still in the WAL, not in the file: the WAL moves aside with
// its file, and its vectors are carried over too.
func TestVectors_CarriedOverFromTheWAL(t *testing.T) {
	t.Parallel()
	e := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	tv, before := indexWithVectors(t, e)
	if _, err := tv.Ix.db.Exec("UPDATE meta SET value = 'lore-0' WHERE key = 'format'"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(tv.Ix.path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no WAL to test with: %v", err)
	}
	// tv.Ix stays open: the older lore, still running.
	again := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	ix := reopenWith(t, tv, again)
	var format string
	ix.db.QueryRow("SELECT value FROM meta WHERE key = 'format'").Scan(&format)
	if format != IndexFormat {
		t.Fatalf("the index was not built anew: format %q", format)
	}
	if n := again.texts.Load(); n != 0 {
		t.Errorf("the model embedded %d texts; want none", n)
	}
	if after := embedded(t, ix); len(after) != len(before) {
		t.Errorf("%d vectors after, %d before", len(after), len(before))
	}
}

// Vectors of another model, another dimension or another vectorsFormat are
// never carried over: every section is embedded again, and the old file
// does not stay behind.
func TestVectors_NotCarriedOverWhenTheyMeanSomethingElse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		now  *countingEmbedder
		sql  []string
	}{
		{"another model", &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:other"}, nil},
		{"another dimension", &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 32}, name: "test:counting"}, nil},
		{"another vectors format", &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"},
			[]string{"UPDATE meta SET value = 'vectors-0' WHERE key = 'vectors_format'"}},
		{"no vectors format", &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"},
			[]string{"DELETE FROM meta WHERE key = 'vectors_format'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
			tv, before := indexWithVectors(t, e)
			asOtherFormat(t, tv, tc.sql...)
			ix := reopenWith(t, tv, tc.now)
			if n := tc.now.texts.Load(); n != int64(len(before)) {
				t.Errorf("the model embedded %d texts; want all %d", n, len(before))
			}
			if _, err := os.Stat(previousPath(ix.path)); !os.IsNotExist(err) {
				t.Errorf("the old index stayed behind: %v", err)
			}
		})
	}
}

// movedAside is an index with vectors made again as of another format and
// reopened, with no model yet: it returns the new index, the path its old
// file was moved aside to, and the old file's vectors.
func movedAside(t *testing.T) (*Index, string, map[string][]byte) {
	t.Helper()
	e := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	tv, before := indexWithVectors(t, e)
	prev := previousPath(tv.Ix.path)
	asOtherFormat(t, tv)
	ix := reopen(t, tv)
	if _, err := os.Stat(prev); err != nil {
		t.Fatalf("the old index was not moved aside: %v", err)
	}
	return ix, prev, before
}

// A previous file that is not a database (damaged, or written by something
// else) is of no use: the pass embeds everything, fails nothing, and
// deletes it.
func TestVectors_ADamagedPreviousFileIsIgnored(t *testing.T) {
	t.Parallel()
	ix, prev, before := movedAside(t)
	ctx := context.Background()
	if err := os.WriteFile(prev, bytes.Repeat([]byte("not a database "), 512), 0o644); err != nil {
		t.Fatal(err)
	}
	again := &countingEmbedder{HashEmbedder: embed.HashEmbedder{Dims: 64}, name: "test:counting"}
	if err := ix.Vectors().Use(ctx, again); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Vectors().Embed(ctx, nil); err != nil {
		t.Fatalf("embedding with a damaged previous file: %v", err)
	}
	if n := again.texts.Load(); n != int64(len(before)) {
		t.Errorf("the model embedded %d texts; want all %d", n, len(before))
	}
	if _, err := os.Stat(prev); !os.IsNotExist(err) {
		t.Errorf("the damaged file stayed behind: %v", err)
	}
}

// An index without a model has no use for the old file's vectors: when it
// is told it has none (lore.yaml's embedding provider none), the file goes,
// rather than stay beside the index for ever.
func TestVectors_APreviousFileGoesWithoutAModel(t *testing.T) {
	t.Parallel()
	ix, prev, _ := movedAside(t)
	none, err := embed.FromConfig(vault.EmbeddingConfig{Provider: "none"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Vectors().Use(context.Background(), none); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prev); !os.IsNotExist(err) {
		t.Errorf("the old index stayed behind an index without a model: %v", err)
	}
}
