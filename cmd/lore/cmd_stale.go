package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
)

func runStale(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "stale", "[--all] [--json] [--code DIR]", `List the notes whose citations of code no longer hold in the bound
workspace's code repository: a cited path deleted or renamed, an identifier
removed, cited lines changed, a cited commit no branch or tag holds. Each
comes with the commit that did it, its author and date, oldest first, and
the edit that would mend the note. A note's first 500 citations are checked. --all adds the cited files that changed
since the section citing them was written (worth a look, not broken).

What counts as a citation: a code span that names a path (sync/retry.go,
sync/retry.go:40-60, cmd/lore) or a name in code (backoffFor, Store.Merge,
snake_case), a link to a file or commit of the code repository's remote,
a commit id on a line that says "commit", and the frontmatter's code: list.
A path or name the code repository never had is not a citation of it.

Checking changes no note and makes no commit. Exit status 1 when a citation
is broken or a note could not be checked (for CI), 0 otherwise.

--propose makes, for each cited path that was renamed, a Draft that points
the citation at the new name: you review and merge it as any other.

Example: lore stale --json`)
	all := fs.Bool("all", false, "also list cited files that changed since (not broken)")
	asJSON := fs.Bool("json", false, "print the findings as JSON")
	codeDir := fs.String("code", "", "the code repository (default: the bound workspace)")
	propose := fs.Bool("propose", false, "propose the fix of each renamed path as a Draft (to review and merge)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return usageError{"stale takes no arguments"}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	ws := orElse(*codeDir, b.Workspace)
	if ws == "" {
		return usageError{"no code repository to check against: run lore stale in a bound workspace, or give --code DIR"}
	}
	code := codeChecker(ctx, func(string) string { return "" }, ws, ix.Vault())
	if code == nil {
		return vault.Errorf(vault.CodeInvalid, "%s is not a git repository apart from the vault: give the code repository with --code DIR", ws)
	}
	rep, err := staleReport(ctx, ix, b.Project, code)
	flushCheckers()
	if err != nil {
		return err
	}
	broken := rep.Broken
	shown := []stale.Entry{}
	for _, s := range rep.Entries {
		if s.Broken() || *all {
			shown = append(shown, s)
		}
	}
	if *propose {
		if err := proposeRenames(ctx, e, a, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		if err := writeJSON(e.stdout, staleJSON{Code: rep.Code, Notes: rep.Notes, Citing: rep.Citing, Broken: broken, Findings: shown, Unchecked: append([]string{}, rep.Unchecked...)}); err != nil {
			return err
		}
	} else {
		printStale(e, rep, shown, broken)
	}
	if broken+len(rep.Unchecked) > 0 {
		return problemsFound{broken + len(rep.Unchecked)}
	}
	return nil
}

type staleJSON struct {
	Code     string        `json:"code"`
	Notes    int           `json:"notes_checked"`
	Citing   int           `json:"notes_citing_code"`
	Broken   int           `json:"broken"`
	Findings []stale.Entry `json:"findings"`
	// Unchecked: the notes that could not be checked, and why.
	Unchecked []string `json:"unchecked"`
}

// staleReport checks every note the project sees against code.
func staleReport(ctx context.Context, ix *retrieve.Memory, project string, code *stale.Checker) (stale.Report, error) {
	notes, err := ix.Under(ctx, "", project)
	if err != nil {
		return stale.Report{}, err
	}
	return code.Report(ctx, notes)
}

func printStale(e *env, rep stale.Report, shown []stale.Entry, broken int) {
	fmt.Fprintf(e.stdout, "%d notes checked, %d cite code; broken citations: %d\n", rep.Notes, rep.Citing, broken)
	for _, s := range shown {
		loc := s.Note
		if s.Line > 0 {
			loc += fmt.Sprintf(":%d", s.Line)
		}
		if len(s.HeadingPath) > 0 {
			loc += " › " + strings.Join(s.HeadingPath, " › ")
		}
		fmt.Fprintf(e.stdout, "\n%s\n  %s\n  edit: %s\n", loc, s.Sentence(), s.Edit)
	}
	for _, u := range rep.Unchecked {
		fmt.Fprintf(e.stdout, "\nnot checked: %s\n", u)
	}
}

// printStaleCount is doctor's line on the notes whose citations of code
// broke, when the binding names a code repository. Not counted among
// doctor's problems: those are files lore cannot read; this is what the
// notes say (lore stale lists it, with an exit status for CI).
func printStaleCount(ctx context.Context, e *env, ix *retrieve.Memory, b vault.Binding) {
	code := codeChecker(ctx, e.getenv, b.Workspace, ix.Vault())
	if code == nil {
		return
	}
	rep, err := staleReport(ctx, ix, b.Project, code)
	flushCheckers()
	if err != nil {
		fmt.Fprintf(e.stdout, "stale:      not checked: %v\n", err)
		return
	}
	notes := map[string]bool{}
	for _, s := range rep.Entries {
		if s.Broken() {
			notes[s.Note] = true
		}
	}
	if len(notes) == 0 {
		fmt.Fprintf(e.stdout, "stale:      none (%d of %d notes cite code in %s)\n", rep.Citing, rep.Notes, code.Code())
		return
	}
	what := fmt.Sprintf("%d notes cite", len(notes))
	if len(notes) == 1 {
		what = "1 note cites"
	}
	fmt.Fprintf(e.stdout, "stale:      %s code that changed (lore stale lists each, with the commit and the edit)\n", what)
}

// proposeRenames makes a Draft for each renamed path's citation that has
// a mechanical fix (stale.ProposeRename), as a Draft of a's project.
func proposeRenames(ctx context.Context, e *env, a *app, rep stale.Report) error {
	for _, s := range rep.Entries {
		if s.Problem != vault.ProblemRenamed {
			continue
		}
		res, ok, err := stale.ProposeRename(ctx, a.mem, a.store, a.b.Project, s)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(e.stderr, "lore: %s: `%s` has %s\n", s.Note, s.Cites, stale.NoFix)
			continue
		}
		fmt.Fprintf(e.stderr, "lore: proposed %s for %s: %s (lore drafts diff %s)\n", res.DraftID, s.Note, stale.RenameDescription(s), res.DraftID)
	}
	return nil
}
