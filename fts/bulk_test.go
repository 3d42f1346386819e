package fts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
)

type countingBulk struct{ starts, ends, batches int }

func (c *countingBulk) Start() func() { c.starts++; return func() { c.ends++ } }
func (c *countingBulk) Batch()        { c.batches++ }

// A refresh of more than one batch tells the index's BulkMemory when it
// starts, after each batch and when it ends; a refresh of a few files
// tells it nothing.
func TestRefresh_TellsBulkMemoryOfManyBatches(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 2*batchSize + 5 {
		files[fmt.Sprintf("n/%04d.md", i)] = fmt.Sprintf("# Note %d\n\nword%d body.\n", i, i)
	}
	root := testvault.New(t, files)
	v, ix := testvault.Open(t, root, Open)
	var c countingBulk
	ix.UseBulkMemory(&c)
	if _, err := ix.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if c.starts != 1 || c.ends != 1 || c.batches != 3 {
		t.Fatalf("bulk refresh of %d files: %d starts, %d ends, %d batches; want 1, 1, 3", len(files), c.starts, c.ends, c.batches)
	}
	if err := os.WriteFile(filepath.Join(v.Root, "n", "0001.md"), []byte("# Note 1\n\nchanged.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if c.starts != 1 || c.batches != 3 {
		t.Errorf("a one-file refresh told BulkMemory: %d starts, %d batches", c.starts, c.batches)
	}
}
