package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A unit key names its resource and its section: every chunk of one long
// section has the section's key, another section another key.

func TestCleanPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"notes/a.md", "notes/a.md", true},
		{"notes/./a.md", "notes/a.md", true},
		{"notes/x/../a.md", "notes/a.md", true},
		{"Cafe\u0301.md", "Caf\u00e9.md", true},
		{"../a.md", "", false},
		{"notes/../../a.md", "", false},
		{"/etc/passwd", "", false},
		{"", "", false},
		{".", "", false},
		{"a\x00b.md", "", false},
		{`a\b.md`, "", false},
		{".git/config", "", false},
		{"notes/.hidden/a.md", "", false},
	} {
		got, err := CleanPath(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if !tc.ok && (err == nil || ErrorCode(err) != CodeInvalid) {
			t.Errorf("CleanPath(%q) = %q, %v; want an invalid_input error", tc.in, got, err)
		}
	}
}

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte("org_ref: trunk\nprojects:\n  api: {description: x}\n"))
	if err != nil || cfg.OrgRef != "trunk" || cfg.Guidelines != "LORE.md" || len(cfg.Projects) != 1 {
		t.Fatalf("cfg = %+v, %v", cfg, err)
	}
	if cfg, err := ParseConfig(nil); err != nil || cfg.OrgRef != "main" {
		t.Errorf("empty config = %+v, %v; want defaults", cfg, err)
	}
	// The guidelines' path is kept as the index names the file, so the
	// rules that name it (activate leaves it out) see it however it is
	// written.
	if cfg, err := ParseConfig([]byte("guidelines: ./docs/../GUIDE.md\n")); err != nil || cfg.Guidelines != "GUIDE.md" {
		t.Errorf("guidelines ./docs/../GUIDE.md = %q, %v; want GUIDE.md", cfg.Guidelines, err)
	}
	for in, word := range map[string]string{
		"org_rfe: main\n":                 "org_rfe",
		"projects:\n  bad/name: {}\n":     "bad/name",
		"guidelines: ../x.md\n":           "guidelines",
		"embedding: {provider: magic}\n":  "magic",
		"retrieval: {token_budget: many}": "token_budget",
		"retrieval: {vector_weight: -1}":  "vector_weight",
		"retrieval: {vector_weight: 20}":  "vector_weight",
	} {
		_, err := ParseConfig([]byte(in))
		if ErrorCode(err) != CodeConfig || !strings.Contains(err.Error(), word) {
			t.Errorf("ParseConfig(%q) = %v; want an invalid_config error naming %q", in, err, word)
		}
	}
}

func TestResolveBinding(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "code", "sub")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	bindings := filepath.Join(dir, "bindings.yaml")

	if _, err := ResolveBinding(ws, noEnv, bindings); ErrorCode(err) != CodeUnbound || !strings.Contains(err.Error(), "lore bind") {
		t.Errorf("unbound: err = %v, want unbound_workspace saying how to bind", err)
	}
	if err := Bind(bindings, filepath.Join(dir, "code"), "/v", "api"); err != nil {
		t.Fatal(err)
	}
	if b, err := ResolveBinding(ws, noEnv, bindings); err != nil || b.Vault != "/v" || b.Project != "api" {
		t.Errorf("bindings file: %+v, %v", b, err)
	}
	// A .lore.yaml that disagrees with the person's binding is refused,
	// naming both; one that agrees, or one with no binding to disagree
	// with, binds.
	if err := os.WriteFile(filepath.Join(dir, "code", WorkspaceFile), []byte("vault: ../memory\nproject: web\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveBinding(ws, noEnv, bindings); ErrorCode(err) != CodeConfig || !strings.Contains(err.Error(), "/v") || !strings.Contains(err.Error(), filepath.Join(dir, "memory")) {
		t.Errorf(".lore.yaml against lore bind: %v; want invalid_config naming both", err)
	}
	if err := Bind(bindings, filepath.Join(dir, "code"), filepath.Join(dir, "memory"), "web"); err != nil {
		t.Fatal(err)
	}
	if b, err := ResolveBinding(ws, noEnv, bindings); err != nil || b.Vault != filepath.Join(dir, "memory") || b.Project != "web" {
		t.Errorf(".lore.yaml that agrees: %+v, %v", b, err)
	}
	if b, err := ResolveBinding(ws, noEnv, filepath.Join(dir, "none.yaml")); err != nil || b.Vault != filepath.Join(dir, "memory") || b.Project != "web" || !strings.HasSuffix(b.Source, WorkspaceFile) {
		t.Errorf(".lore.yaml alone: %+v, %v", b, err)
	}
	env := map[string]string{"LORE_VAULT": "/env-vault", "LORE_PROJECT": "cli"}
	if b, err := ResolveBinding(ws, func(k string) string { return env[k] }, bindings); err != nil || b.Vault != "/env-vault" || b.Project != "cli" {
		t.Errorf("env: %+v, %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "code", WorkspaceFile), []byte("vault: x\nprojet: typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveBinding(ws, noEnv, bindings); ErrorCode(err) != CodeConfig || !strings.Contains(err.Error(), "projet") {
		t.Errorf("typo in .lore.yaml: err = %v, want invalid_config naming the key", err)
	}
}

func TestScan_SkipsDotFoldersAndRefusesSymlinksOut(t *testing.T) {
	outside := t.TempDir()
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	write("a.md", "# a")
	write("sub/b.MD", "# b")
	write(".obsidian/c.md", "# c")
	write("notes.txt", "not memory")
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link-out.md")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	if err := os.Symlink("a.md", filepath.Join(root, "link-in.md")); err != nil {
		t.Fatal(err)
	}
	v, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, problems, err := v.Scan()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	for _, want := range []string{"a.md", "sub/b.MD"} {
		if !slices.Contains(got, want) {
			t.Errorf("scan missed %s (got %q)", want, got)
		}
	}
	// A link to a note is another name of it, not a file of its own.
	if to, err := v.LinkTarget("link-in.md"); err != nil || to != "a.md" {
		t.Errorf("LinkTarget(link-in.md) = %q, %v; want a.md", to, err)
	}
	if slices.Contains(got, ".obsidian/c.md") || slices.Contains(got, "link-out.md") || slices.Contains(got, "notes.txt") || slices.Contains(got, "link-in.md") {
		t.Errorf("scan returned files it must skip: %q", got)
	}
	if len(problems) != 1 || problems[0].Path != "link-out.md" {
		t.Errorf("problems = %+v, want the symlink out of the vault", problems)
	}
	if _, err := v.ReadFile("link-out.md"); err == nil {
		t.Errorf("ReadFile followed a symlink out of the vault")
	}
	if _, err := v.ReadFile("../" + filepath.Base(outside) + "/secret.md"); err == nil {
		t.Errorf("ReadFile read a path with ..")
	}
}

func TestOpen_NotAGitRepository(t *testing.T) {
	_, err := Open(t.TempDir())
	if ErrorCode(err) != CodeNotVault || !strings.Contains(err.Error(), "lore init") {
		t.Errorf("err = %v, want not_a_vault saying to run lore init", err)
	}
}
