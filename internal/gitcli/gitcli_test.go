package gitcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := Run(ctx, dir, nil, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	// Pathspecs are literal: a file named "*.md" is itself, not a pattern.
	os.WriteFile(filepath.Join(dir, "*.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("y"), 0o644)
	if _, err := Run(ctx, dir, nil, "add", "--", "*.md"); err != nil {
		t.Fatal(err)
	}
	out, err := Run(ctx, dir, nil, "-c", "core.quotePath=false", "diff", "--cached", "--name-only")
	if err != nil || strings.TrimSpace(string(out)) != "*.md" {
		t.Fatalf("staged %q, %v; want only the file named *.md", out, err)
	}
	// A failure names the git command (past -c options) and what git said.
	_, err = Run(ctx, dir, nil, "-c", "x.y=z", "rev-parse", "--verify", "nope")
	if err == nil || !strings.HasPrefix(err.Error(), "git rev-parse: ") {
		t.Fatalf("error %v", err)
	}
}
