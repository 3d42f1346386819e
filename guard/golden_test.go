package guard

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/lore-memory/lore/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./guard -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed; review and run go test ./guard -update:\n%s", name, got)
	}
}

// TestReportGolden pins the report people read when a commit is refused.
func TestReportGolden(t *testing.T) {
	warn := deny("no-todo", "TODO")
	warn.Severity, warn.Message = "warn", "Open an issue instead."
	req := vault.RuleSpec{ID: "license", Kind: "require", Pattern: "SPDX-License-Identifier", Literal: true, Paths: []string{"*.go"}, Severity: "error", Message: "Start each Go file with its licence line."}
	rs := Compile([]Source{
		src("decisions/0003-sync.md", "active", deny("no-force-push", `push.*--force`, "*.sh"), warn, req),
		src("decisions/0009-typo.md", "active", deny("bad", "(")),
	}, "api")
	rep := rs.Check([]FileDiff{
		{NewPath: "scripts/deploy.sh", Added: []Line{{2, "git push --force origin main"}}},
		{NewPath: "cmd/main.go", Status: "added", Added: []Line{{3, "// TODO: flags"}}},
	}, func(string) ([]byte, bool) { return []byte("package main\n"), true }, false)
	rep.ElapsedUS = 420
	golden(t, "report.txt", rep.Format())
	rep.Violations = nil
	rep.OK = true
	golden(t, "report-clean.txt", rep.Format())
}

func TestLoadoutGolden(t *testing.T) {
	sync := src("decisions/0003-sync.md", "active", deny("no-force-push", "x", "scripts/**"))
	sync.Tier, sync.Description = "L3", "Sync runs on demand and only fast-forwards."
	sql := Source{Path: "decisions/0008-sql.md", Tier: "L3", Status: "active", Description: "Name the columns of every query.",
		Rules: []vault.RuleSpec{{ID: "x#L9", Kind: "deny", Pattern: "SELECT * FROM", Form: "body"}}}
	vision := Source{Path: "vision.md", Tier: "L1", Status: "active", Description: "Project memory for coding agents."}
	stack := Source{Path: "guides/stack.md", Tags: []string{"stack"}, Status: "active", Description: "Go 1.26, SQLite (FTS5, sqlite-vec), git."}
	golden(t, "loadout.md", Loadout([]Source{sync, sql, vision, stack}, "api", nil))
	golden(t, "loadout-diff.md", Loadout([]Source{sync, sql, vision, stack}, "api", []string{"scripts/deploy.sh"}))
}
