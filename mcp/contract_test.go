package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// Holes between the spec (000, 002, 003) and what lore answered (issue: the
// contracts, exactly), each held at the handler.

var releaseFiles = map[string]string{
	"lore.yaml":        "projects:\n  api: {}\n",
	"howto/release.md": "---\nid: mem_release\n---\n# Release\n\nthe TTL is 30 seconds and the budget is 3.\n",
	"notes/plain.md":   "# Plain\n\nno id in the frontmatter\n",
}

func (ts *testServer) mem(t *testing.T, args string) (any, error) {
	t.Helper()
	return ts.memory(context.Background(), []byte(args))
}

func TestContract_ReplacementWithoutNewTextIsRefused(t *testing.T) {
	ts := newTestServer(t, "memory", releaseFiles)
	out, err := ts.mem(t, `{"op":{"load":{"ids":["mem_release"]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	hash := out.(loadResult).Resources[0].ContentHash
	_, err = ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"`+hash+`","replacements":[{"old_text":"the TTL is 30 seconds and "}]}}}}`)
	if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "op.store.update.replacements[0].new_text is required") {
		t.Fatalf("a replacement without new_text: %v; want invalid_input naming new_text", err)
	}
	// An empty new_text, given, deletes text as the spec allows.
	if _, err := ts.mem(t, `{"op":{"store":{"update":{"id":"mem_release","expected_hash":"`+hash+`","replacements":[{"old_text":"the TTL is 30 seconds and ","new_text":""}]}}}}`); err != nil {
		t.Fatalf("an empty new_text: %v", err)
	}
}
