// Package testmodel gives tests the installed built-in embedding model.
// The weights come only from `lore model fetch` (make model); a test that
// needs them skips without them, unless LORE_REQUIRE_MODEL is set (CI sets
// it after installing the model), where a missing model fails the test.
package testmodel

import (
	"os"
	"testing"

	"github.com/lore-memory/lore/embed"
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
