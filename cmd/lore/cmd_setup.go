package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/setup"
)

const setupHelp = `Write lore into an agent client's own files: the MCP server (lore mcp) and
the hooks (lore hook) that bring memory to each session by itself. It merges
with what is there: the client's other servers, hooks and settings stay as
they are, in their order (and config.toml's comments with them). It shows
each change before it writes it, keeps the file as it was in FILE.lore-backup,
changes nothing when run again, and --remove takes out exactly what it added.

  claude --scope project  .mcp.json and .claude/settings.json in this workspace
  claude --scope user     ~/.claude.json and ~/.claude/settings.json
  codex --scope project   .codex/config.toml and .codex/hooks.json here
  codex --scope user      ~/.codex/config.toml and ~/.codex/hooks.json

Run it in the workspace you bound with lore bind. lore mcp config prints the
server's set-up for people who write their files by hand.

Examples:
  lore setup claude --dry-run
  lore setup codex --scope user
  lore setup claude --remove`

func runSetup(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "setup", "claude|codex [--scope project|user] [--dry-run] [--remove]", setupHelp)
	scope := fs.String("scope", "project", "project (this workspace's files) or user (your home folder's)")
	dry := fs.Bool("dry-run", false, "show the changes and write nothing")
	remove := fs.Bool("remove", false, "take out what lore setup added")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "claude" && pos[0] != "codex") {
		fs.Usage()
		return usageError{"setup needs a client: claude or codex"}
	}
	o := setup.Options{Client: pos[0], Scope: *scope, Remove: *remove, Lore: loreCommand()}
	if o.Workspace, err = workspaceRoot(ctx); err != nil {
		return err
	}
	if o.Home, err = os.UserHomeDir(); err != nil {
		return err
	}
	changes, err := setup.Plan(o)
	if err != nil {
		return usageError{err.Error()}
	}
	n := 0
	for _, c := range changes {
		if d := c.Diff(); d != "" {
			fmt.Fprint(e.stdout, d, "\n")
			n++
		}
	}
	if n == 0 {
		what := "lore is set up"
		if *remove {
			what = "nothing of lore's is"
		}
		fmt.Fprintf(e.stdout, "%s in %s's files already; nothing to change\n", what, o.Client)
		return nil
	}
	if *dry {
		fmt.Fprintln(e.stdout, "(dry run: nothing was written)")
		return nil
	}
	wrote, err := setup.Apply(changes)
	gone := map[string]bool{}
	for _, c := range changes {
		gone[c.Path] = c.Gone
	}
	for _, p := range wrote {
		verb := "wrote"
		if gone[p] {
			verb = "removed"
		}
		fmt.Fprintf(e.stdout, "%s %s", verb, p)
		if _, berr := os.Stat(p + ".lore-backup"); berr == nil {
			fmt.Fprintf(e.stdout, " (as it was: %s.lore-backup)", p)
		}
		fmt.Fprintln(e.stdout)
	}
	if err != nil {
		return err
	}
	if !*remove {
		if _, berr := e.binding(); berr != nil && o.Scope == "project" {
			fmt.Fprintln(e.stdout, "this folder is not bound to a vault yet: run lore bind --vault DIR --project NAME here, or the hooks will add nothing")
		}
		if o.Client == "claude" {
			fmt.Fprintf(e.stdout, "the server lore and its tool mcp__lore__memory are approved in %s (enabledMcpjsonServers, permissions.allow), so claude -p uses the tool too: it reads memory, and what it stores is a Draft that you review\n", setup.ApprovalsFile(o))
		}
		if todo := setup.Check(o); len(todo) > 0 {
			fmt.Fprintf(e.stdout, "before %s runs any of it, you still need to:\n", clientName[o.Client])
			for i, t := range todo {
				fmt.Fprintf(e.stdout, "  %d. %s\n", i+1, t)
			}
			fmt.Fprintln(e.stdout, "then start a new session here (lore doctor says what is still missing)")
			return nil
		}
		fmt.Fprintf(e.stdout, "start a new %s session here: it begins with the project's loadout, and each prompt gets its relevant memory\n", clientName[o.Client])
	}
	return nil
}

var clientName = map[string]string{"claude": "Claude Code", "codex": "Codex"}

// loreCommand is how a client should run lore: "lore" when that is this
// binary on PATH, else this binary's path.
func loreCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "lore"
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	if p, err := exec.LookPath("lore"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil && r == self {
			return "lore"
		}
	}
	return self
}

// workspaceRoot is the git work tree of the working directory, or the
// directory itself outside one.
func workspaceRoot(ctx context.Context) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if out, err := gitcli.Run(ctx, wd, nil, "rev-parse", "--show-toplevel"); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	return wd, nil
}
