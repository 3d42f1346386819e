package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/lore-memory/lore/activity"
	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// homeFlags adds each log source's folder as a flag (--codex-home …),
// its default from the environment.
func homeFlags(fs *flag.FlagSet, e *env) activity.Homes {
	h := activity.DefaultHomes(e.getenv)
	for _, src := range activity.Sources() {
		vars := "$" + strings.Join(src.Env, ", $")
		fs.Var(homeFlag{h, src.Host}, src.Flag, src.Agent+"'s log `folder` ("+vars+")")
	}
	return h
}

// homeFlag is one source's folder in Homes, as a flag.
type homeFlag struct {
	h    activity.Homes
	host string
}

func (f homeFlag) String() string {
	if f.h == nil {
		return ""
	}
	return f.h[f.host]
}

func (f homeFlag) Set(v string) error { f.h[f.host] = v; return nil }

// workspaces are the bound workspaces: the bindings file's, and this
// directory's binding (from --vault, the environment or a .lore.yaml).
func (e *env) workspaces() []activity.Workspace {
	var out []activity.Workspace
	seen := map[string]bool{}
	add := func(root, v, project string) {
		if root == "" || v == "" || seen[root] {
			return
		}
		seen[root] = true
		out = append(out, activity.Workspace{Root: root, Vault: v, Project: project})
	}
	if bp, err := vault.BindingsPath(); err == nil {
		if bs, err := vault.ListBindings(bp); err == nil {
			for _, b := range bs {
				add(b.Workspace, b.Vault, b.Project)
			}
		}
	}
	if b, err := e.binding(); err == nil {
		root, _ := os.Getwd()
		if ws, ok := strings.CutSuffix(b.Source, string(filepath.Separator)+vault.WorkspaceFile); ok {
			root = ws
		}
		add(root, b.Vault, b.Project)
	}
	return out
}

func runActivity(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "activity", "list [--project P] [--workspace DIR] | show SESSION [--page N]", `What your agents asked of memory and what they got, from their own session
logs on this machine (Codex CLI, Claude Code, DSH), for the workspaces bound to
a vault: each user request, each memory query, the fragments delivered.

Examples:
  lore activity list
  lore activity show codex:0193a…`)
	project := fs.String("project", "", "only this project's workspaces")
	workspace := fs.String("workspace", "", "only this bound workspace")
	limit := fs.Int("limit", activity.DefaultPage, "sessions (or requests) per page, at most 100")
	cursor := fs.String("cursor", "", "list: the next_cursor of the previous page")
	page := fs.Int("page", 1, "show: the page of requests")
	asJSON := fs.Bool("json", false, "print JSON")
	homes := homeFlags(fs, e)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return usageError{"activity needs list or show"}
	}
	a := activity.New(homes, e.workspaces())
	switch pos[0] {
	case "list":
		p, err := a.List(activity.Filter{Project: *project, Workspace: *workspace}, *cursor, *limit)
		if err != nil {
			return usageError{err.Error()}
		}
		if *asJSON {
			return printJSON(e.stdout, p)
		}
		printSessions(e, a, p, homes)
		return nil
	case "show":
		if len(pos) != 2 {
			return usageError{"activity show needs one session (host:id, from activity list)"}
		}
		runs := activity.NewIndexRuns(openRuns)
		defer runs.Close()
		s, err := a.Open(ctx, pos[1], runs, *page, *limit)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, s)
		}
		printSession(e, s)
		return nil
	}
	return usageError{fmt.Sprintf("unknown activity subcommand %q", pos[0])}
}

// deliveredLabel says what a delta action means for the agent's context
// (it is not a write to memory).
func deliveredLabel(a string) string {
	switch a {
	case "add":
		return "sent"
	case "replace":
		return "sent, replacing an older version"
	case "reuse":
		return "already in context"
	}
	return a
}

func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// openRuns opens a vault and its index for the activity view's runs;
// closing the result closes both.
func openRuns(ctx context.Context, dir string) (activity.RunIndex, error) {
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	ix, err := openIndexOf(ctx, v)
	if err != nil {
		v.Close()
		return nil, err
	}
	return vaultIndex{ix}, nil
}

// vaultIndex is an index that closes its vault with it.
type vaultIndex struct{ *retrieve.Memory }

func (x vaultIndex) Close() error {
	err := x.Index.Close()
	if cerr := x.Vault().Close(); err == nil {
		err = cerr
	}
	return err
}

// printSessions prints a page of sessions as a table.
func printSessions(e *env, a *activity.Activity, p activity.Page, h activity.Homes) {
	if len(a.Workspaces()) == 0 {
		fmt.Fprintln(e.stdout, "no bound workspaces: run `lore bind` in a code folder first")
		return
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tHOST\tUPDATED\tPROJECT\tTITLE")
	for _, s := range p.Sessions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Token, s.Host, s.Updated.Local().Format("2006-01-02 15:04"), s.Project, s.Title)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d of %d sessions", len(p.Sessions), p.Total)
	if p.Next != "" {
		fmt.Fprintf(e.stdout, "; next page: --cursor %s", p.Next)
	}
	fmt.Fprintln(e.stdout)
	if p.Total == 0 {
		// Say where it looked: an empty table alone reads as broken.
		var dirs, flags []string
		for _, src := range activity.Sources() {
			dirs, flags = append(dirs, h[src.Host]), append(flags, "--"+src.Flag)
		}
		fmt.Fprintf(e.stdout, "no session of an agent in a bound workspace found in the logs under %s (%s read others)\n",
			joinLast(dirs, " or "), joinLast(flags, " and "))
	}
	for _, pr := range p.Problems {
		fmt.Fprintln(e.stderr, "lore activity:", pr)
	}
}

// printSession prints one session's requests, the memory queries each made
// and the fragments each got.
func printSession(e *env, s activity.SessionPage) {
	fmt.Fprintf(e.stdout, "%s  %s  %s\n%s\n", s.Token, s.Project, s.Workspace, s.Title)
	for _, r := range s.Requests {
		text := oneLineText(r.Text, 200)
		if text == "" {
			text = "(before a prompt: a session start, a resume, a clear or a compaction)"
		}
		fmt.Fprintf(e.stdout, "\n#%d %s\n", r.Index, text)
		for _, act := range r.Activations {
			timing := ""
			if act.TotalUS != nil {
				timing = fmt.Sprintf(", %.1f ms", float64(*act.TotalUS)/1000)
			}
			switch {
			case act.Via == "hook" && act.Event == hook.SessionStart:
				fmt.Fprintf(e.stdout, "  lore hook at session start — %s", act.Status)
			case act.Via == "hook":
				fmt.Fprintf(e.stdout, "  lore hook on the prompt — %s%s", act.Status, timing)
			default:
				fmt.Fprintf(e.stdout, "  memory.activate %q — %s%s", act.Query, act.Status, timing)
			}
			if act.RunID != "" {
				fmt.Fprintf(e.stdout, " (%s, run %s)", act.Run, act.RunID)
			}
			fmt.Fprintln(e.stdout)
			if act.Error != "" {
				fmt.Fprintf(e.stdout, "    error: %s\n", act.Error)
			}
			for _, f := range act.Fragments {
				label := deliveredLabel(f.Action)
				label += draftMark(f.DraftID)
				fmt.Fprintf(e.stdout, "    [%s] %s\n", label, location(f.Path, f.HeadingPath))
			}
		}
		for _, rf := range r.Refusals {
			reason, _, _ := strings.Cut(rf.Reason, "\n")
			fmt.Fprintf(e.stdout, "  lore guard refused %q — %s\n", oneLineText(rf.Command, 120), reason)
		}
	}
	if s.Next > 0 {
		fmt.Fprintf(e.stdout, "\nmore: --page %d\n", s.Next)
	}
	for _, pr := range s.Problems {
		fmt.Fprintln(e.stderr, "lore activity:", pr)
	}
}

// joinLast joins items with commas, the last two with last ("a, b or c").
func joinLast(items []string, last string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}
