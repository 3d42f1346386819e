package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/setup"
	"github.com/lore-memory/lore/vault"
)

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "doctor", "", `Check the binding, lore.yaml and the index, and list every file that could not
be read as memory and why. Exit status 1 when any file has a problem.

Example: lore doctor`)
	if pos, err := e.parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError{"doctor takes no arguments"}
	}
	a, err := e.open(ctx, withModels)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	v := ix.Vault()
	project := b.Project
	if project == "" {
		project = "(none: every project's notes are visible)"
	}
	fmt.Fprintf(e.stdout, "binding:    vault %s, project %s (from %s)\n", v.Root, project, b.Source)
	fmt.Fprintf(e.stdout, "git:        %s\n", v.GitDir)
	guide := "present"
	if _, err := os.Stat(filepath.Join(v.Root, filepath.FromSlash(v.Config.Guidelines))); err != nil {
		guide = "missing"
	}
	fmt.Fprintf(e.stdout, "config:     org ref %s, guidelines %s (%s)\n", v.Config.OrgRef, v.Config.Guidelines, guide)
	if len(v.Config.AutoPublish) > 0 {
		fmt.Fprintln(e.stdout, "            auto_publish in lore.yaml is ignored: nothing an agent stores is published (remove the key)")
	}
	st, err := ix.Index.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "index:      %s (%.1f MB)\n", v.IndexPath(), float64(st.DBBytes)/1e6)
	fmt.Fprintf(e.stdout, "            %d resources, %d units, %d links, %d files skipped\n", st.Resources, st.Units, st.Links, st.Skipped)
	if why := ix.Index.ReadOnly(); why != "" {
		fmt.Fprintf(e.stdout, "            read-only: %s\n", why)
	}
	if _, err := os.Stat(v.IndexPath() + ".damaged"); err == nil {
		fmt.Fprintf(e.stdout, "            a damaged index was set aside as %s.damaged and built anew (you may delete it)\n", v.IndexPath())
	}
	if err := printVectors(ctx, e, ix); err != nil {
		return err
	}
	rs, err := ruleSet(ctx, ix, b.Project)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "guard:      %d rules, %d broken\n", len(rs.Rules), len(rs.Broken))
	for _, br := range rs.Broken {
		st.Problems = append(st.Problems, vault.Problem{Path: br.ResourcePath, Message: fmt.Sprintf("guard rule %s is broken (not checked): %s", br.Rule, br.Problem)})
	}
	st.Problems = append(st.Problems, storeProblems(ctx, a.store, v)...)
	if b.Project != "" {
		if _, known := v.Config.Projects[b.Project]; !known {
			if fi, err := os.Stat(filepath.Join(v.Root, "projects", b.Project)); err != nil || !fi.IsDir() {
				// Named, not counted as a problem: a project may be new.
				fmt.Fprintf(e.stdout, "warning:    the binding (%s) names project %q, which %s's lore.yaml does not declare and which has no projects/%s/ folder: a typo? Add it under projects: in lore.yaml, or bind the right one\n", b.Source, b.Project, v.Root, b.Project)
			}
		}
	}
	for _, f := range []struct{ name, what string }{{"MERGE_HEAD", "a merge"}, {"rebase-merge", "a rebase"}, {"rebase-apply", "a rebase or git am"}, {"CHERRY_PICK_HEAD", "a cherry-pick"}} {
		if _, err := os.Stat(filepath.Join(v.GitDir, f.name)); err == nil {
			st.Problems = append(st.Problems, vault.Problem{Path: v.Root, Message: "the vault is in the middle of " + f.what + ": notes with conflict markers are left out; finish it (git status in the vault says how) or abort it"})
		}
	}
	printPendingEdits(ctx, e, a.store, v)
	if repo, err := git.PlainOpenWithOptions(v.Root, &git.PlainOpenOptions{DetectDotGit: true}); err == nil && !drafts.HasIdentity(repo) {
		fmt.Fprintln(e.stdout, "identity:   git has no user.name and user.email, so lore commits your edits as \"lore <lore@localhost>\"; set them with git config --global user.name \"Your Name\" and git config --global user.email you@example.com")
	}
	boundHere := strings.HasSuffix(b.Source, vault.WorkspaceFile) || strings.HasSuffix(b.Source, "bindings.yaml")
	if ws, err := workspaceRoot(ctx); err == nil && boundHere {
		if w := vaultInWorkspace(ws, v.Root); w != "" && ws != v.Root {
			fmt.Fprintln(e.stdout, "warning:    "+w)
		}
	}
	printStaleCount(ctx, e, ix, b)
	printClients(ctx, e)
	if len(st.Problems) == 0 {
		fmt.Fprintln(e.stdout, "problems:   none")
		return nil
	}
	fmt.Fprintf(e.stdout, "problems:   %d\n", len(st.Problems))
	for _, p := range st.Problems {
		fmt.Fprintf(e.stdout, "  %s: %s\n", p.Path, p.Message)
	}
	return problemsFound{len(st.Problems)}
}

// printVectors prints the embedding model's state and how many sections wait
// for a vector.
func printVectors(ctx context.Context, e *env, ix *retrieve.Memory) error {
	em := ix.Index.Vectors().Embedder()
	if em == nil {
		fmt.Fprintln(e.stdout, "vectors:    none (embedding provider none: lexical search only)")
		return nil
	}
	pending, err := ix.PendingEmbeddings(ctx)
	if err != nil {
		return err
	}
	ready := "ready"
	if b, ok := em.(*embed.Builtin); ok {
		if err := b.Ready(); err != nil {
			ready = err.Error()
		}
	}
	fmt.Fprintf(e.stdout, "vectors:    %s (%s), %d sections waiting to be embedded (`lore index`, or a running `lore mcp`, embeds them)\n", em.Name(), ready, pending)
	return nil
}

// storeProblems are the Draft store's problems: an org ref without a commit,
// Draft branches lore cannot read, a failed outbox write, stale locks.
func storeProblems(ctx context.Context, st *drafts.Store, v *vault.Vault) []vault.Problem {
	var out []vault.Problem
	if head, err := st.Health().OrgHead(); err != nil || head.IsZero() {
		why := "has no commit yet"
		if err != nil {
			why = "cannot be read: " + err.Error()
		}
		out = append(out, vault.Problem{Path: "org ref " + v.Config.OrgRef, Message: why + "; agents cannot store until it has one: run `lore commit` to record the vault's notes as its first commit (or set org_ref in lore.yaml to the branch that holds your notes)"})
	}
	if broken, err := st.Health().BrokenDrafts(ctx); err == nil {
		for branch, why := range broken {
			out = append(out, vault.Problem{Path: branch, Message: "a Draft branch lore cannot read (left out of every project's memory; fix it with git or delete the branch): " + why})
		}
	}
	if err := st.Remote().OutboxError(); err != nil {
		out = append(out, vault.Problem{Path: "sync outbox", Message: "a write to the outbox failed (" + err.Error() + "); the next lore sync rebuilds it from the Draft branches"})
	}
	if p, ok := hookFailures(v.DataDir(), time.Now()); ok {
		out = append(out, p)
	}
	for _, l := range st.Health().StaleLocks() {
		out = append(out, vault.Problem{Path: l, Message: fmt.Sprintf("a lock file left by a git or lore process that died (older than %s); lore clears a ref's stale lock when it next writes that ref, or remove it yourself if no git process is running", drafts.StaleLock)})
	}
	return out
}

// printPendingEdits lists the person's uncommitted edits to notes.
func printPendingEdits(ctx context.Context, e *env, st *drafts.Store, v *vault.Vault) {
	pending, err := st.Health().PendingEdits(ctx)
	if err != nil || len(pending) == 0 {
		return
	}
	what := "a merge waits for them: lore commit, or lore drafts merge --with-edits, records them as your own commit"
	if !v.Config.CommitsEdits() {
		what = "commit_edits is false: commit them yourself; a merge that touches one waits until you do"
	}
	fmt.Fprintf(e.stdout, "edits:      %d uncommitted note(s) (%s)\n", len(pending), what)
	for _, p := range pending[:min(len(pending), 10)] {
		fmt.Fprintf(e.stdout, "            %s\n", p)
	}
	if len(pending) > 10 {
		fmt.Fprintf(e.stdout, "            … and %d more\n", len(pending)-10)
	}
}

// hookFailures reports lore hook's failures of the last day from the
// vault's hooks.log (a hook prints nothing when it fails, so the person
// learns of it here).
func hookFailures(dataDir string, now time.Time) (vault.Problem, bool) {
	p := filepath.Join(dataDir, hook.LogFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return vault.Problem{}, false
	}
	n, last := 0, ""
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		at, _, ok := strings.Cut(line, " ")
		t, err := time.Parse(time.RFC3339, at)
		if !ok || err != nil || now.Sub(t) > 24*time.Hour {
			continue
		}
		n, last = n+1, line
	}
	if n == 0 {
		return vault.Problem{}, false
	}
	return vault.Problem{Path: p, Message: fmt.Sprintf("lore hook failed %d time(s) in the last day, so agents' sessions got no memory then (a hook prints nothing when it fails); the last: %s", n, last)}, true
}

// printClients says, for each client lore is set up for here (this
// workspace's files, or the home folder's), whether the client will run
// it, and what the person still has to do.
func printClients(ctx context.Context, e *env) {
	ws, err := workspaceRoot(ctx)
	if err != nil {
		return
	}
	home, _ := os.UserHomeDir()
	for _, client := range setup.Clients {
		for _, scope := range setup.Scopes {
			o := setup.Options{Client: client, Scope: scope, Workspace: ws, Home: home}
			if !setup.Installed(o) {
				continue
			}
			todo := setup.Check(o)
			if len(todo) == 0 {
				fmt.Fprintf(e.stdout, "client:     %s (%s scope): set up and ready\n", clientName[client], scope)
				continue
			}
			fmt.Fprintf(e.stdout, "client:     %s (%s scope): set up, but not running yet\n", clientName[client], scope)
			for _, t := range todo {
				fmt.Fprintf(e.stdout, "            %s\n", t)
			}
		}
	}
}
