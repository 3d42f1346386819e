package stale

import (
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A renamed path's citations, as code spans, become the new path, each
// line an exact replacement; links, other findings and ambiguous lines
// get no mechanical fix.
func TestRenameFix(t *testing.T) {
	note := []byte("# Retries\n\nSee `sync/retry.go` and `sync/retry.go:4-7`.\n\nAgain `sync/retry.go`.\n")
	f := vault.CodeFinding{Cites: "sync/retry.go", Kind: KindPath, Problem: vault.ProblemRenamed, Path: "sync/retry.go", RenamedTo: "sync/backoff.go", Line: 3}
	reps, ok := RenameFix(note, f)
	if !ok || len(reps) != 2 || reps[0].NewText != "See `sync/backoff.go` and `sync/retry.go:4-7`." || reps[1].NewText != "Again `sync/backoff.go`." {
		t.Fatalf("%v %+v", ok, reps)
	}
	lines := f
	lines.Cites, lines.Kind = "sync/retry.go:4-7", KindLines
	if reps, ok := RenameFix(note, lines); !ok || len(reps) != 1 || reps[0].NewText != "See `sync/retry.go` and `sync/backoff.go:4-7`." {
		t.Fatalf("lines: %v %+v", ok, reps)
	}
	for name, g := range map[string]vault.CodeFinding{
		"removed":     {Cites: "sync/retry.go", Problem: vault.ProblemRemoved, Path: "sync/retry.go", Line: 3},
		"a link":      {Cites: "https://h/o/n/blob/main/sync/retry.go", Problem: vault.ProblemRenamed, Path: "sync/retry.go", RenamedTo: "x.go", Line: 3},
		"frontmatter": {Cites: "sync/retry.go", Problem: vault.ProblemRenamed, Path: "sync/retry.go", RenamedTo: "x.go"},
	} {
		if _, ok := RenameFix(note, g); ok {
			t.Errorf("%s got a fix", name)
		}
	}
	twice := []byte("`sync/retry.go` here\n\n`sync/retry.go` here\n")
	if _, ok := RenameFix(twice, f); ok {
		t.Error("a line that is not unique got a fix")
	}
}
