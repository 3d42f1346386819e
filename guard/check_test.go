package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

func src(path, status string, specs ...vault.RuleSpec) Source {
	return Source{ResourceID: "mem_" + strings.ReplaceAll(path, "/", "_"), Path: path, Status: status, Rules: specs}
}

func deny(id, pattern string, paths ...string) vault.RuleSpec {
	return vault.RuleSpec{ID: id, Kind: "deny", Pattern: pattern, Paths: paths, Severity: "error", Message: "fix " + id}
}

func TestCheck(t *testing.T) {
	warn := deny("todo", "TODO")
	warn.Severity = "warn"
	lit := vault.RuleSpec{ID: "select-star", Kind: "deny", Pattern: "SELECT * FROM", Literal: true, Severity: "error"}
	req := vault.RuleSpec{ID: "license", Kind: "require", Pattern: `(?m)^// SPDX-License-Identifier:`, Paths: []string{"*.go"}, Severity: "error"}
	sources := []Source{
		src("decisions/0003.md", "active", deny("no-force-push", `push.*--force`, "scripts/**", "*.sh"), warn, lit, req),
		src("decisions/0001.md", "superseded", deny("old-rule", "anything")),
		src("projects/web/rules.md", "active", deny("web-only", "document\\.write")),
		src("projects/api/rules.md", "active", deny("api-only", "panic\\(")),
		src("decisions/0009.md", "active", deny("broken", "(unclosed"), deny("bad-glob", "x", "[")),
	}
	rs := Compile(sources, "api")
	if len(rs.Broken) != 2 || rs.Broken[0].Rule != "broken" || !strings.Contains(rs.Broken[0].Problem, "does not compile") {
		t.Fatalf("broken: %+v", rs.Broken)
	}
	diff := []FileDiff{
		{NewPath: "scripts/deploy.sh", Status: "added", Added: []Line{{1, "git push --force origin"}, {2, "echo anything; document.write(x)"}}},
		{NewPath: "db/q.go", OldPath: "db/q.go", Added: []Line{{7, `q := "SELECT * FROM users" // TODO`}, {8, "panic(err)"}}},
		{NewPath: "main.go", Status: "added", Added: []Line{{1, "package main"}}},
		{OldPath: "gone.go", Status: "deleted"},
		{NewPath: "logo.png", Binary: true},
	}
	content := func(p string) ([]byte, bool) {
		if p == "db/q.go" {
			return []byte("// SPDX-License-Identifier: MIT\npackage db\n"), true
		}
		return []byte("package main\n"), true
	}
	rep := rs.Check(diff, content, false)
	var got []string
	for _, v := range rep.Violations {
		got = append(got, fmt.Sprintf("%s@%s:%d", v.Rule, v.File, v.Line))
	}
	want := []string{"todo@db/q.go:7", "select-star@db/q.go:7", "api-only@db/q.go:8", "license@main.go:0", "no-force-push@scripts/deploy.sh:1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("violations\n got %v\nwant %v", got, want)
	}
	if rep.OK {
		t.Fatal("error violations must block")
	}
	v := rep.Violations[4]
	if v.ResourcePath != "decisions/0003.md" || v.Message != "fix no-force-push" || v.Text != "git push --force origin" || v.Kind != "deny" {
		t.Fatalf("%+v", v)
	}
	if out := rep.Format(); !strings.Contains(out, "❌") || !strings.Contains(out, "[[decisions/0003.md]]") || !strings.Contains(out, "broken rule [broken]") {
		t.Fatalf("format:\n%s", out)
	}
	// Warnings alone do not block, unless strict; broken rules block only with strict.
	only := []FileDiff{{NewPath: "a.txt", Added: []Line{{1, "TODO later"}}}}
	if r := rs.Check(only, nil, false); !r.OK || len(r.Violations) != 1 {
		t.Fatalf("warning: %+v", r)
	}
	if r := rs.Check(only, nil, true); r.OK {
		t.Fatal("strict: a warning blocks")
	}
	clean := Compile(sources[:1], "api")
	if r := clean.Check([]FileDiff{{NewPath: "a.txt", Added: []Line{{1, "fine"}}}}, nil, true); !r.OK {
		t.Fatalf("clean: %+v", r)
	}
	// Without a project only shared rules apply.
	if n := len(Compile(sources, "").Rules); n != 4 {
		t.Fatalf("shared rules: %d", n)
	}
}

func TestRequiredLiteral(t *testing.T) {
	for expr, want := range map[string]string{
		`push.*--force`: "--force", `SELECT \* FROM`: "SELECT * FROM", `(?i)select`: "", `a|b`: "",
		`fmt\.Println\(`: "fmt.Println(", `^package \w+`: "package ",
	} {
		if got := requiredLiteral(expr); got != want {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}

func TestLoadout(t *testing.T) {
	l3 := src("decisions/0003.md", "active", deny("no-force-push", "x", "scripts/**"))
	l3.Tier, l3.Description = "L3", "Sync only fast-forwards."
	vision := Source{Path: "vision.md", Tier: "L1", Description: "Memory for agents.", Status: "active"}
	old := Source{Path: "decisions/0001.md", Tier: "L3", Status: "superseded", Description: "old"}
	other := Source{Path: "projects/web/x.md", Tier: "L3", Status: "active", Description: "web only"}
	out := Loadout([]Source{l3, vision, old, other}, "api", nil)
	if !strings.Contains(out, "# Context Loadout: api") || !strings.Contains(out, "[[vision.md]]: Memory for agents.") ||
		!strings.Contains(out, "[[decisions/0003.md]]: Sync only fast-forwards. (rules: no-force-push)") ||
		strings.Contains(out, "0001") || strings.Contains(out, "web only") {
		t.Fatalf("loadout:\n%s", out)
	}
	withDiff := Loadout([]Source{vision, l3}, "api", []string{"scripts/deploy.sh"})
	if i, j := strings.Index(withDiff, "Active for this change"), strings.Index(withDiff, "0003"); i < 0 || j < i {
		t.Fatalf("with diff:\n%s", withDiff)
	}
	var many []Source
	for i := 0; i < 80; i++ {
		s := Source{Path: fmt.Sprintf("decisions/%04d-a-long-name.md", i), Tier: "L3", Status: "active", Description: "A decision with a description that takes some room in the loadout."}
		many = append(many, s)
	}
	big := Loadout(many, "api", nil)
	if n := vault.EstimateTokens(big); n > LoadoutBudget {
		t.Fatalf("loadout is %d tokens:\n%s", n, big)
	}
	if !strings.Contains(big, "more; load them by path") {
		t.Fatalf("no overflow note:\n%s", big)
	}
}

func TestWholeFilesStayInTheRepository(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if fs, err := WholeFiles(root, []string{"a.go"}); err != nil || fs[0].NewPath != "a.go" || fs[0].Added[0].Text != "package a" {
		t.Fatalf("%v %+v", err, fs)
	}
	for _, p := range []string{"../x", "/etc/passwd", outside, "a\x00b", "link.txt", ""} {
		if _, err := WholeFiles(root, []string{p}); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	if _, ok := Files(root)("link.txt"); ok {
		t.Error("Files followed a symlink out of the repository")
	}
}

// TestAttack_InvisibleCharactersBreakARule: a deny pattern with U+200B,
// U+2060 or U+00AD inside (FR\u200bOM) never matches, while the diff's
// removed and added lines look the same and doctor said "0 broken". Such a
// rule (or a path glob) is broken, and the problem shows the character.
func TestAttack_InvisibleCharactersBreakARule(t *testing.T) {
	var specs []vault.RuleSpec
	for i, p := range []string{"SELECT \\* FR\u200bOM", "SELECT \\* FR\u2060OM", "SELECT \\* FR\u00adOM", "SELECT\u202e FROM", "x\x1b[2Jy"} {
		specs = append(specs, deny(fmt.Sprintf("r%d", i), p))
	}
	specs = append(specs, deny("glob", "SELECT", "src/\u200b*.go"), deny("fine", `SELECT \* FROM`, "*.go"))
	rs := Compile([]Source{src("decisions/adr-015.md", "active", specs...)}, "api")
	if len(rs.Rules) != 1 || rs.Rules[0].ID != "fine" {
		t.Fatalf("rules kept: %d; want only the one written in visible characters", len(rs.Rules))
	}
	if len(rs.Broken) != 6 {
		t.Fatalf("broken: %+v", rs.Broken)
	}
	for _, b := range rs.Broken {
		if !strings.Contains(b.Problem, "invisible or control character") || !strings.Contains(b.Problem, `\u`) && !strings.Contains(b.Problem, `\x1b`) {
			t.Errorf("%s: %q does not show the character", b.Rule, b.Problem)
		}
	}
}
