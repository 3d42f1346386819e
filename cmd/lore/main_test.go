package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lore-memory/lore/internal/golden"
)

func TestMain(m *testing.M) {
	testscript.Main(removingBinary{m}, map[string]func(){
		"lore": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// removingBinary runs the tests, then removes the lore binary that some of
// them built (see binary) with its folder.
type removingBinary struct{ m *testing.M }

func (r removingBinary) Run() int {
	code := r.m.Run()
	if loreBin != "" {
		os.RemoveAll(filepath.Dir(loreBin))
	}
	return code
}

// TestScripts runs the txtar scripts in testdata/script: the lore binary (this
// test binary) and the real git CLI against vaults in temporary folders. Their
// cmp lines are the golden outputs of the CLI; -update rewrites them.
func TestScripts(t *testing.T) {
	demo, err := filepath.Abs("../../testdata/demo-vault")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Update(),
		Setup: func(e *testscript.Env) error {
			e.Setenv("DEMO", demo)
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, "home", ".config"))
			e.Setenv("GIT_AUTHOR_NAME", "Test")
			e.Setenv("GIT_AUTHOR_EMAIL", "test@localhost")
			e.Setenv("GIT_COMMITTER_NAME", "Test")
			e.Setenv("GIT_COMMITTER_EMAIL", "test@localhost")
			return nil
		},
	})
}
