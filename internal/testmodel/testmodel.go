// Package testmodel gives tests the installed built-in embedding model.
// The weights come only from `lore model fetch` (make model); a test that
// needs them skips without them, unless LORE_REQUIRE_MODEL is set (CI sets
// it after installing the model), where a missing model fails the test.
package testmodel

import (
	"context"
	"os"
	"testing"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
)

// Builtin returns the installed built-in model, ready to embed, or skips
// (fails, when LORE_REQUIRE_MODEL is set) when it is not installed.
func Builtin(t testing.TB) *embed.Builtin {
	t.Helper()
	dir, err := embed.DefaultModelDir()
	if err != nil {
		t.Skip(err)
	}
	b := &embed.Builtin{Dir: dir}
	if err := b.Ready(); err != nil {
		if os.Getenv("LORE_REQUIRE_MODEL") != "" {
			t.Fatalf("LORE_REQUIRE_MODEL is set: %v", err)
		}
		t.Skipf("the built-in model is not installed (make model): %v", err)
	}
	return b
}

// EmbedAll makes e the index's model and embeds every unit, as a server
// with that model does, and fails t unless none is left: figures without
// the vectors would be lexical ones.
func EmbedAll(t testing.TB, ix *fts.Index, e embed.Embedder) {
	t.Helper()
	ctx := context.Background()
	if err := ix.Vectors().Use(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	n, err := ix.Vectors().Embed(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if left, err := ix.Vectors().Pending(ctx); err != nil || n == 0 || left != 0 {
		t.Fatalf("embedded %d unit texts, %d left (%v): the figures would be lexical ones", n, left, err)
	}
	t.Logf("embedded %d unit texts", n)
}
