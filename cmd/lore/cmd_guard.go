package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func ruleSet(ctx context.Context, ix *retrieve.Memory, project string) (*guard.RuleSet, error) {
	src, notes, err := guard.Sources(ctx, ix, project)
	if err != nil {
		return nil, err
	}
	rs := guard.Compile(src, project)
	rs.Notes = notes
	return rs, nil
}

const guardHelp = `Check code changes against the rules written in memory (guard: lists in
frontmatter, "- deny:"/"- require:" bullets under a rules heading). deny
patterns are checked on added lines, require patterns on the whole of each
touched file their globs cover. Exit status 1 when an error rule is violated
(with --strict, also a warning or a broken rule).

Examples:
  lore guard                      # the staged changes (what the pre-commit hook runs)
  lore guard --branch main        # everything this branch changed since main
  git diff | lore guard --diff -
  lore guard --files cmd/main.go
  lore guard install              # pre-commit hook, chained with any hook already there`

func runGuard(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return runGuardHook(ctx, e, args[0], args[1:])
	}
	fs := newFlags(e, "guard", "[--staged | --diff FILE|- | --branch BASE | --files F…] [--strict] [--json] | install | uninstall", guardHelp)
	staged := fs.Bool("staged", false, "check the staged changes (the default)")
	diffFile := fs.String("diff", "", "check a unified diff from FILE (\"-\": stdin)")
	branch := fs.String("branch", "", "check the changes of HEAD since it forked from BASE")
	files := fs.Bool("files", false, "check the whole files named as arguments")
	strict := fs.Bool("strict", false, "warnings and broken rules block too")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	repoDir := fs.String("repo", ".", "the code repository")
	var pin guard.Pin
	fs.StringVar(&pin.Vault, "hook-vault", "", "(the hook) the vault lore guard install bound")
	fs.StringVar(&pin.Project, "hook-project", "", "(the hook) the project lore guard install bound")
	fs.IntVar(&pin.Rules, "hook-rules", 0, "(the hook) how many rules applied at install")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	modes := 0
	for _, on := range []bool{*staged, *diffFile != "", *branch != "", *files} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageError{"choose one of --staged, --diff, --branch, --files"}
	}
	if len(pos) > 0 && !*files {
		return usageError{"file arguments need --files"}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	rs, err := ruleSet(ctx, ix, b.Project)
	if err != nil {
		return err
	}
	if pin.Vault != "" {
		if err := checkPin(pin, b, len(rs.Rules)); err != nil {
			return err
		}
	}
	in, err := guardInput(e, *diffFile, *branch, *files, pos)
	if err != nil {
		return err
	}
	diffs, content, done, err := guard.Changes(ctx, *repoDir, in)
	defer done()
	if err != nil {
		return err
	}
	rep := rs.Check(diffs, content, *strict)
	if *asJSON {
		if err := printJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		out := e.stdout
		if !rep.OK {
			out = e.stderr
		}
		fmt.Fprint(out, rep.Format())
	}
	if !rep.OK {
		return problemsFound{rep.Total}
	}
	return nil
}

// guardInput is what guard checks: a diff read from a file or stdin, whole
// files (relative to the working directory), or a branch's changes (the
// staged ones when branch is empty).
func guardInput(e *env, diffFile, branch string, files bool, pos []string) (guard.Input, error) {
	var in guard.Input
	var err error
	switch {
	case diffFile == "-":
		in.Diff, err = io.ReadAll(io.LimitReader(e.stdin, 256<<20))
	case diffFile != "":
		in.Diff, err = os.ReadFile(diffFile)
	case files:
		if len(pos) == 0 {
			return in, usageError{"--files needs file arguments"}
		}
		cwd, _ := os.Getwd()
		for _, p := range pos { // relative to here, not to the repository root
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			in.Files = append(in.Files, p)
		}
	default:
		in.Branch = branch
	}
	return in, err
}

// checkPin refuses a hook's check when the binding changed since lore
// guard install (a .lore.yaml planted in the workspace once re-bound the
// guard to a vault without rules, and every commit passed), and fails
// closed when the vault has no rules now but had some then.
func checkPin(pin guard.Pin, b vault.Binding, rules int) error {
	if !sameVault(pin.Vault, b.Vault) || pin.Project != b.Project {
		return vault.Errorf(vault.CodeConfig, "nothing was checked: this repository is now bound to vault %s, project %q (from %s), not vault %s, project %q, which lore guard install bound; if that is right, run lore guard install again", b.Vault, b.Project, b.Source, pin.Vault, pin.Project)
	}
	if rules == 0 && pin.Rules > 0 {
		return vault.Errorf(vault.CodeConfig, "nothing was checked: vault %s has no rules for project %q now, but had %d when lore guard install ran; if that is right, run lore guard install again", b.Vault, b.Project, pin.Rules)
	}
	return nil
}

// sameVault reports whether two paths name one folder.
func sameVault(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func runGuardHook(ctx context.Context, e *env, which string, args []string) error {
	fs := newFlags(e, "guard "+which, "[--repo DIR]", `Install or remove the pre-commit hook that runs lore guard --staged. An
existing hook is kept and runs first; uninstall puts it back.`)
	repoDir := fs.String("repo", ".", "the code repository")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	repo, err := guard.OpenRepo(ctx, *repoDir)
	if err != nil {
		return err
	}
	var did string
	if which == "install" {
		// The hook runs lore guard in the repository: without a binding
		// there, every later commit would be blocked by unbound_workspace.
		if _, err := e.bindingFor(repo.Root); err != nil {
			return vault.Errorf(vault.CodeUnbound, "the hook would block every commit of %s: it is not bound to a vault (%s). Bind it first: lore bind --vault DIR --project NAME --workspace %s", repo.Root, vault.Message(err), repo.Root)
		}
		b, _ := e.bindingFor(repo.Root)
		pin := guard.Pin{Vault: b.Vault, Project: b.Project}
		if a, err := openApp(ctx, b.Vault, 0, nil); err == nil {
			if rs, err := ruleSet(ctx, a.mem, b.Project); err == nil {
				pin.Rules = len(rs.Rules)
			}
			a.Close()
		}
		bin, _ := os.Executable()
		if bin == "" {
			bin = "lore"
		}
		did, err = repo.Install(ctx, bin, pin)
	} else {
		did, err = repo.Uninstall(ctx)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, did)
	return nil
}

func runLoadout(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "loadout", "[--diff] [--branch BASE]", `Print the project's loadout: vision (tier L1), stack (notes tagged stack)
and invariants (tier L3, and notes with guard rules), with the project's root
note and its recent logs, in at most 300 tokens.
With --diff (the work tree's changes) or --branch BASE, the notes whose rules
cover the changed files come first.`)
	withDiff := fs.Bool("diff", false, "put the notes whose rules cover the uncommitted changes first")
	branch := fs.String("branch", "", "put the notes whose rules cover the changes since BASE first")
	repoDir := fs.String("repo", ".", "the code repository")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	var changed []string
	if *withDiff || *branch != "" {
		if changed, err = guard.ChangedPaths(ctx, *repoDir, *branch); err != nil {
			return err
		}
	}
	text, err := guard.LoadoutFrom(ctx, ix, b.Project, changed)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, text)
	return nil
}
