package guard

import (
	"testing"

	"github.com/lore-memory/lore/internal/golden"
	"github.com/lore-memory/lore/vault"
)

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
	golden.Check(t, "report.txt", rep.Format())
	rep.Violations, rep.Total, rep.Blocks = nil, 0, 0
	rep.OK = true
	golden.Check(t, "report-clean.txt", rep.Format())
}

func TestLoadoutGolden(t *testing.T) {
	sync := src("decisions/0003-sync.md", "active", deny("no-force-push", "x", "scripts/**"))
	sync.Tier, sync.Description = "L3", "Sync runs on demand and only fast-forwards."
	sql := Source{Path: "decisions/0008-sql.md", Tier: "L3", Status: "active", Description: "Name the columns of every query.",
		Rules: []vault.RuleSpec{{ID: "x#L9", Kind: "deny", Pattern: "SELECT * FROM", Form: "body"}}}
	vision := Source{Path: "vision.md", Tier: "L1", Status: "active", Description: "Project memory for coding agents."}
	stack := Source{Path: "guides/stack.md", Tags: []string{"stack"}, Status: "active", Description: "Go 1.26, SQLite (FTS5, sqlite-vec), git."}
	golden.Check(t, "loadout.md", Loadout([]Source{sync, sql, vision, stack}, "api", nil))
	golden.Check(t, "loadout-diff.md", Loadout([]Source{sync, sql, vision, stack}, "api", []string{"scripts/deploy.sh"}))
	// The spec's shape: a root line and the recent logs.
	extra := Extra{Root: "projects/api/README.md", Recent: []Recent{
		{Date: "2026-10-08", Path: "logs/2026-10-08-webhook-retry-storm.md", Description: "Fixed the Stripe webhook retry storm."},
		{Date: "2026-09-30", Path: "logs/2026-09-30-ttl.md"},
	}}
	full := LoadoutWith([]Source{sync, sql, vision, stack}, "api", nil, extra)
	golden.Check(t, "loadout-full.md", full)
	if n := vault.EstimateTokens(full); n >= LoadoutBudget {
		t.Errorf("the loadout is %d tokens", n)
	}
}
