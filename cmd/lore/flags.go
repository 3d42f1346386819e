package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

// ownVaultFlags are the commands that define --vault/--project themselves.
var ownVaultFlags = map[string]bool{"bind": true, "activity": true}

// newFlags returns a command's flag set. Its usage (with an example) goes to
// stdout when asked for (-h, --help: `lore search -h | less` works) and to
// stderr after a bad flag. --vault and --project are accepted after the
// command too, as before it.
func newFlags(e *env, name, args, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: lore %s %s\n\n%s\n", name, args, about)
		fs.PrintDefaults()
	}
	if !ownVaultFlags[name] {
		fs.StringVar(&e.vaultDir, "vault", e.vaultDir, "the vault folder (overrides the binding; also before the command)")
		fs.StringVar(&e.project, "project", e.project, "the project (overrides the binding; also before the command)")
	}
	return fs
}

// wantsHelp reports whether args ask for help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// parse parses flags anywhere among the arguments ("search foo -n 3") and
// returns the positional ones. -h prints the usage to stdout.
func (e *env) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if wantsHelp(args) {
		fs.SetOutput(e.stdout)
		fs.Usage()
		return nil, flag.ErrHelp
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, usageError{}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// binding resolves the vault folder and project for this invocation.
func (e *env) binding() (vault.Binding, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return vault.Binding{}, err
	}
	return e.bindingFor(cwd)
}

// bindingFor resolves the binding a command run in dir would use.
func (e *env) bindingFor(dir string) (vault.Binding, error) {
	if e.vaultDir != "" {
		p := e.project
		if p == "" {
			p = e.getenv("LORE_PROJECT")
		}
		return vault.CheckProject(vault.Binding{Vault: e.vaultDir, Project: p, Source: "--vault"})
	}
	bp, _ := vault.BindingsPath()
	b, err := vault.ResolveBinding(dir, e.getenv, bp)
	if err != nil {
		return b, err
	}
	if e.project != "" {
		b.Project, b.Source = e.project, "--project"
	}
	return vault.CheckProject(b)
}

// isTerminal reports whether w is a terminal (progress and colour go only
// there): a terminal's file, or the visible writer lore puts in front of
// one.
func isTerminal(w io.Writer) bool {
	if tw, ok := w.(*termtext.Writer); ok {
		return tw.TTY
	}
	// A character device is not enough: /dev/null is one, and output sent
	// there paid for the terminal's extras (a pass over the index for the
	// unreadable-files footer, a large part of a warm `lore search`).
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// forPerson puts a visible writer in front of a terminal: whatever a note,
// a Draft or a log holds, its control and escape characters are shown
// (^[), never sent to the terminal raw. Other writers (pipes, files, the
// MCP protocol) get the bytes as they are.
func forPerson(w io.Writer) io.Writer {
	if _, ok := w.(*termtext.Writer); ok || !isTerminal(w) {
		return w
	}
	return &termtext.Writer{W: w, TTY: true}
}

func flushPerson(w io.Writer) {
	if tw, ok := w.(*termtext.Writer); ok {
		tw.Flush()
	}
}

// raw is the writer behind w's visible writer, for lore's own control
// output (a progress line's carriage return, colour); w itself otherwise.
func raw(w io.Writer) io.Writer {
	if tw, ok := w.(*termtext.Writer); ok {
		return tw.W
	}
	return w
}

// progressPrinter returns a progress callback that redraws one line on a
// terminal, and nil (no output) otherwise.
func progressPrinter(w io.Writer, what string) func(done, total int) {
	if !isTerminal(w) {
		return nil
	}
	w = raw(w) // lore's own text and numbers, with a carriage return
	return func(done, total int) {
		fmt.Fprintf(w, "\r%s %d/%d", what, done, total)
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}

// scratchVault returns a vault folder for eval and bench: keep if given
// (created and kept), else a temporary one that cleanup removes.
func scratchVault(keep, prefix string) (dir string, cleanup func(), err error) {
	dir, cleanup = keep, func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", prefix); err != nil {
			return "", nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
	}
	if _, err := drafts.InitRepo(dir, true); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

// stringList is a flag that may be given more than once (--keyword, --old,
// --also), in the order given.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
