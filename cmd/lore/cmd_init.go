package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/vault"
)

func runInit(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "init", "[DIR]", `Create a vault in DIR (default: --vault, else the current folder), or adopt
an existing folder of Markdown notes. Writes lore.yaml and LORE.md only if
they are missing and never rewrites a file. When DIR is not in a git
repository, one is created and everything in it is committed as the first
version of the org ref. A DIR inside another repository becomes a vault in
that repository, unless --git asks for a repository of its own.

Example: lore init ~/notes`)
	ownRepo := fs.Bool("git", false, "create a git repository in DIR even when DIR is inside another one")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"init takes at most one folder"}
	}
	// --vault names the folder as it names the vault for every other
	// command: "lore --vault ~/notes init" must not adopt the current
	// folder, which may be a code repository.
	dir := "."
	switch {
	case len(pos) == 1 && e.vaultDir != "" && !sameFolder(pos[0], e.vaultDir):
		return usageError{fmt.Sprintf("init: --vault %s and the folder %s name two different folders: give one", e.vaultDir, pos[0])}
	case len(pos) == 1:
		dir = pos[0]
	case e.vaultDir != "":
		dir = e.vaultDir
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usageError{fmt.Sprintf("%s is a file, not a folder: give the folder of your notes", dir)}
	}
	res, err := drafts.Init(dir, *ownRepo, time.Now)
	if err != nil {
		return err
	}
	if res.CreatedRepo {
		fmt.Fprintf(e.stdout, "Created a git repository in %s\n", res.Root)
	} else {
		fmt.Fprintf(e.stdout, "Adopted %s (an existing git repository)\n", res.Root)
		if res.OrgRef != "" {
			fmt.Fprintf(e.stdout, "Its branch %s holds published memory (org_ref: %s in lore.yaml)\n", res.OrgRef, res.OrgRef)
		}
	}
	if len(res.Wrote) > 0 {
		fmt.Fprintf(e.stdout, "Wrote %s\n", strings.Join(res.Wrote, ", "))
	}
	fmt.Fprintf(e.stdout, "%d notes found; no existing file was changed\n", res.Notes)
	if len(res.Ignore) > 0 {
		fmt.Fprintf(e.stdout, "Obsidian's per-device files change on every device; add them to your .gitignore (lore does not edit it):\n  %s\n", strings.Join(res.Ignore, "\n  "))
	}
	if res.NoIdentity {
		fmt.Fprintln(e.stdout, "git does not know who you are, so lore commits your edits as \"lore <lore@localhost>\" until you say:\n  git config --global user.name \"Your Name\"\n  git config --global user.email you@example.com")
	}
	if res.CreatedRepo {
		fmt.Fprintf(e.stdout, "Committed %d files as the first version of branch main\n", res.Committed)
	}
	fmt.Fprintf(e.stdout, "Next: lore --vault %s index\n", dir)
	return nil
}

// sameFolder reports whether a and b name one folder, as paths: both made
// absolute and cleaned (neither need exist yet).
func sameFolder(a, b string) bool {
	x, errA := filepath.Abs(a)
	y, errB := filepath.Abs(b)
	return errA == nil && errB == nil && x == y
}

func runBind(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bind", "--vault DIR --project NAME [--workspace DIR]", `Bind a working directory (default: the current one) and everything under it to
a vault and project, in your bindings file. Agents started there use that memory.

Example: lore bind --vault ~/notes --project api`)
	vaultDir := fs.String("vault", e.vaultDir, "the vault folder")
	project := fs.String("project", e.project, "the project name")
	workspace := fs.String("workspace", "", "the working directory to bind (default: current)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *vaultDir == "" || *project == "" {
		fs.Usage()
		return usageError{"bind needs --vault and --project"}
	}
	ws := *workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return err
		}
	}
	ws, _ = filepath.Abs(ws)
	vd, _ := filepath.Abs(*vaultDir)
	v, err := vault.Open(vd)
	if err != nil {
		return err
	}
	v.Close()
	// A project the vault does not know is allowed (it may be new), but said.
	if _, known := v.Config.Projects[*project]; !known {
		if st, err := os.Stat(filepath.Join(v.Root, "projects", *project)); err != nil || !st.IsDir() {
			var names []string
			for n := range v.Config.Projects {
				names = append(names, n)
			}
			sort.Strings(names)
			known := "none yet"
			if len(names) > 0 {
				known = strings.Join(names, ", ")
			}
			fmt.Fprintf(e.stderr, "lore: note: project %q is not in %s's lore.yaml (projects: %s) and has no projects/%s/ folder; binding it anyway. Add it under projects: in lore.yaml if it is meant to exist.\n", *project, v.Root, known, *project)
		}
	}
	p, err := vault.BindingsPath()
	if err != nil {
		return err
	}
	if err := vault.Bind(p, ws, v.Root, *project); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Bound %s to vault %s, project %s (in %s)\n", ws, v.Root, *project, p)
	if w := vaultInWorkspace(ws, v.Root); w != "" {
		fmt.Fprintln(e.stderr, "lore: warning: "+w)
	}
	return nil
}

// vaultInWorkspace warns when the vault lies inside a bound workspace: an
// agent working there can write the notes, so what it writes must not pass
// for the person's. "" when the vault is elsewhere.
func vaultInWorkspace(ws, vaultRoot string) string {
	if !within.Dir(ws, vaultRoot) {
		return ""
	}
	return fmt.Sprintf("the vault %s lies inside the workspace %s: an agent working there can edit its notes. The guard and the hooks' rules read the org ref's committed notes, the prompt hook marks notes with uncommitted edits, and a merge waits until you record such edits yourself (lore commit); keep the vault outside the workspace where you can", vaultRoot, ws)
}
