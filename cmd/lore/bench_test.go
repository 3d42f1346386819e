package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
)

// BenchmarkGuardStagedProcess times the whole `lore guard --staged` process
// (what the pre-commit hook runs) on a copy of the demo vault, with one
// staged file: process start, binding, index freshness, git diff, check.
func BenchmarkGuardStagedProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "lore")
	if out, err := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	run := func(wd string, name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@localhost", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@localhost")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	vault := filepath.Join(dir, "vault")
	demo, _ := filepath.Abs("../../testdata/demo-vault")
	run(dir, "cp", "-R", demo, vault)
	testvault.Repo(b, vault, nil)
	code := filepath.Join(dir, "code")
	os.MkdirAll(filepath.Join(code, "scripts"), 0o755)
	os.WriteFile(filepath.Join(code, ".lore.yaml"), []byte("vault: "+vault+"\nproject: api\n"), 0o644)
	os.WriteFile(filepath.Join(code, "scripts", "deploy.sh"), []byte("#!/bin/sh\ngit push origin main\n"), 0o644)
	testvault.Git(b, code, "init", "-q", "-b", "main")
	testvault.Git(b, code, "add", "-A") // staged: what guard --staged checks
	run(code, bin, "guard", "--staged") // builds the index once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(code, bin, "guard", "--staged")
	}
}
