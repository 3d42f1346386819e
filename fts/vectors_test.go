package fts

import (
	"testing"

	"github.com/lore-memory/lore/vault"
)

// The stored embed_hash names the text the model embeds: hashing it in parts
// must give the hash of embedInput, or stored vectors would be orphaned.
func TestEmbedHashIsTheHashOfEmbedInput(t *testing.T) {
	for _, tc := range []struct {
		title   string
		path    []string
		content string
	}{
		{"", nil, ""},
		{"Release", []string{"Release", "Steps"}, "Tag the commit.\n"},
		{"发布流程", []string{"回滚"}, "先回滚再排查。"},
		{"T", []string{"A", "T", "B"}, "x"},
	} {
		want := vault.HashBytes([]byte(embedInput(tc.title, tc.path, tc.content)))
		if got := embedHash(tc.title, tc.path, []byte(tc.content)); got != want {
			t.Errorf("embedHash(%q, %q, %q) = %s, want %s", tc.title, tc.path, tc.content, got, want)
		}
	}
}
