package fts

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// The stored embed_hash names the text the model embeds: units whose
// inputs are equal share it (and one vector), any difference in title,
// heading path or content makes another, and it is the documented formula.
func TestEmbedHashNamesEmbedInput(t *testing.T) {
	t.Parallel()
	type input struct {
		title   string
		path    []string
		content string
	}
	inputs := []input{
		{"", nil, ""},
		{"Release", []string{"Release", "Steps"}, "Tag the commit.\n"},
		{"Release", []string{"Steps"}, "Tag the commit.\n"}, // the same input: the title is not repeated
		{"Release", []string{"Steps"}, "Tag the commit!\n"},
		{"Release", []string{"Step"}, "Tag the commit.\n"},
		{"Releases", []string{"Steps"}, "Tag the commit.\n"},
		{"发布流程", []string{"回滚"}, "先回滚再排查。"},
		{"T", []string{"A", "T", "B"}, "x"},
		{"T › A", []string{"B"}, "x"}, // same first line as {"T", [A B]}
		{"T", []string{"A", "B"}, "x"},
	}
	names := map[string]string{} // embed hash → embedInput
	texts := map[string]bool{}
	for _, in := range inputs {
		text := embedInput(in.title, in.path, in.content)
		got := embedHash(in.title, in.path, vault.HashBytes([]byte(in.content)))
		head, _, _ := strings.Cut(text, "\n")
		if want := vault.HashBytes([]byte(head + "\n" + vault.HashBytes([]byte(in.content)))); got != want {
			t.Errorf("embedHash(%q, %q, %q) = %s, want %s", in.title, in.path, in.content, got, want)
		}
		if other, ok := names[got]; ok && other != text {
			t.Errorf("inputs %q and %q share the embed hash %s", other, text, got)
		}
		names[got], texts[text] = text, true
	}
	if len(names) != len(texts) {
		t.Errorf("%d distinct embed hashes for %d distinct inputs", len(names), len(texts))
	}
}

// The model embeds a section as a reader reads it: no link destinations,
// no comments (markdown.ReadableText); a section without them keeps the embed
// hash it had, so its vector is kept.
func TestEmbedInput_IsTheReadableText(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"a.md": "# A\n\nSee [the guide](https://example.com/secret-path.md). %% note to self %%\n",
		"b.md": "# B\n\nplain words\n",
	})
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	uids, err := tv.Ix.pendingUnits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hashes, texts, _, err := tv.Ix.unitInputs(ctx, uids)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if strings.Contains(text, "secret-path") || strings.Contains(text, "note to self") {
			t.Errorf("the model would embed %q", text)
		}
	}
	plain := vault.HashBytes([]byte("# B\n\nplain words"))
	want := embedHash("B", []string{"B"}, plain)
	found := false
	for _, h := range hashes {
		found = found || h == want
	}
	if !found {
		t.Errorf("b.md's embed hash is not %s (the content hash of a text that is its own readable text): %v", want, hashes)
	}
}
