// Command lore is project memory for coding agents: Markdown notes in a git
// repository, indexed in SQLite, served to agents. This package only parses
// flags and wires the domain packages; see ../../DESIGN in the README.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/lore-memory/lore/vault"
)

// Exit codes, one switch for the whole CLI.
const (
	exitOK       = 0
	exitFailure  = 1 // internal errors; also "problems found" for doctor
	exitUsage    = 2 // bad flags or arguments, invalid input
	exitNotFound = 3 // memory_resource_not_found
	exitSetup    = 4 // no binding, not a vault, bad lore.yaml
	// A command stopped by a signal exits 128 + its number, as a shell
	// reports it: 130 for ^C (SIGINT), 143 for SIGTERM.
	exitSignal = 128
)

func main() {
	// ^C and SIGTERM cancel ctx, so a long command stops cleanly. The
	// handler is registered beside the command rather than before it: the
	// runtime starts a thread for signals at the first Notify, which took
	// about a millisecond of every command's start (docs/BENCHMARKS.md,
	// "One warm lore"). A signal in that first millisecond ends the process
	// as it would before main.
	ctx, cancel := context.WithCancel(context.Background())
	var got atomic.Int32 // the signal that stopped the command
	ready := make(chan struct{})
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		close(ready)
		s := <-sig
		if n, ok := s.(syscall.Signal); ok {
			got.Store(int32(n))
		}
		cancel()
	}()
	// A command that runs until it is stopped waits for the handler, so a
	// signal after its first output always exits 130 or 143 (a ^C right
	// after `lore mcp` said something once ended it as a signal's death).
	if len(os.Args) > 1 && longRunning[os.Args[1]] {
		<-ready
	}
	collectLateInMain = true
	code := profiled(func() int { return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) })
	cancel()
	if n := got.Load(); n != 0 {
		code = exitSignal + int(n)
	}
	os.Exit(code)
}

// longRunning are the commands that run until they are stopped.
var longRunning = map[string]bool{"mcp": true, "serve": true, "index": true, "sync": true, "bench": true, "eval": true}

// env is what every command gets: its streams and the global options.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	vaultDir       string // --vault
	project        string // --project
	getenv         func(string) string
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"init", "create a vault, or adopt a folder of Markdown notes", runInit},
		{"bind", "bind a working directory to a vault and project", runBind},
		{"index", "bring the index up to date with the vault", runIndex},
		{"search", "search the vault's memory", runSearch},
		{"load", "print whole resources by id or path", runLoad},
		{"activate", "the fragments an agent's task description activates", runActivate},
		{"runs", "list and show retrieval runs", runRuns},
		{"store", "propose a change to memory as a Draft", runStore},
		{"drafts", "review Drafts: list, show, diff, merge, discard", runDrafts},
		{"commit", "record your uncommitted edits to notes as your own commit", runCommit},
		{"sync", "push Drafts to the vault's remote; --status shows the outbox", runSync},
		{"mcp", "serve agents over MCP (stdio); mcp config prints the set-up", runMCP},
		{"guard", "check code changes against the rules in memory; install the hook", runGuard},
		{"stale", "the notes whose citations of code no longer hold, with the commit", runStale},
		{"hook", "answer an agent's hook (Claude Code, Codex): memory and the guard, unasked", runHook},
		{"setup", "write lore's MCP server and hooks into Claude Code's or Codex's files", runSetup},
		{"loadout", "the project's vision, stack and invariants in 300 tokens", runLoadout},
		{"journal", "the journal contract's one-shot mode: now, keywords, remember, recall", runJournal},
		{"activity", "what agents asked of memory and what they got, from their session logs", runActivity},
		{"serve", "the local web UI: activity, retrieval runs, cases, Drafts", runServe},
		{"model", "install or check the built-in embedding model", runModel},
		{"doctor", "check the binding, the index and every file", runDoctor},
		{"eval", "measure ranking quality on a BEIR-format data set", runEval},
		{"bench", "measure indexing and search speed on a generated vault", runBench},
	}
}

const usageText = `lore: project memory for coding agents

Usage: lore [--vault DIR] [--project NAME] COMMAND [ARGS]

Commands:
%s
The vault and project come from --vault/--project, else LORE_VAULT/LORE_PROJECT,
else a .lore.yaml in this folder or a parent, else the bindings file that
'lore bind' writes. Run 'lore COMMAND -h' for a command's flags.

Exit codes: 0 ok, 1 failure, 2 bad usage or input, 3 resource not found,
4 no binding, not a vault, or a bad lore.yaml.
`

func usage(w io.Writer) {
	list := ""
	for _, c := range commands() {
		list += fmt.Sprintf("  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, usageText, list)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// What lore shows a person on a terminal comes from notes, Drafts and
	// logs: escape sequences in it are shown, never run (termtext).
	stdout, stderr = forPerson(stdout), forPerson(stderr)
	defer flushPerson(stdout)
	defer flushPerson(stderr)
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	fs := flag.NewFlagSet("lore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&e.vaultDir, "vault", "", "vault folder (overrides the binding)")
	fs.StringVar(&e.project, "project", "", "project name (overrides the binding)")
	fs.Usage = func() { usage(stderr) }
	showVersion := fs.Bool("version", false, "print the version, the commit and the index format")
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		usage(stdout) // asked for: to stdout, so `lore -h | less` works
		return exitOK
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	if fs.NArg() == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	for _, c := range commands() {
		if c.name == name {
			return exitCode(stderr, c.run(ctx, e, rest))
		}
	}
	switch name {
	case "help":
		// lore help COMMAND is COMMAND's own help, as git help does.
		if len(rest) > 0 {
			for _, c := range commands() {
				if c.name == rest[0] {
					return exitCode(stderr, c.run(ctx, e, append(rest[1:], "-h")))
				}
			}
			fmt.Fprintf(stderr, "lore: no command %q\n", rest[0])
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	if near := nearestCommand(name); near != "" {
		fmt.Fprintf(stderr, "lore: unknown command %q; did you mean %q?\n", name, near)
		return exitUsage
	}
	fmt.Fprintf(stderr, "lore: unknown command %q\n", name)
	usage(stderr)
	return exitUsage
}

// usageError is a bad flag or argument; the flag package already printed why.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// exitCode prints err and maps it to the exit status.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		if ue.msg != "" {
			fmt.Fprintln(stderr, "lore:", ue.msg)
		}
		return exitUsage
	}
	var ps problemsFound
	if errors.As(err, &ps) {
		return exitFailure
	}
	fmt.Fprintln(stderr, "lore:", err)
	switch vault.ErrorCode(err) {
	case vault.CodeNotFound:
		return exitNotFound
	case vault.CodeInvalid, vault.CodeInvalidState, vault.CodeReplacementNotFound, vault.CodeReplacementAmbiguous, vault.CodeReplacementOverlap:
		return exitUsage
	case vault.CodeUnbound, vault.CodeNotVault, vault.CodeConfig:
		return exitSetup
	}
	return exitFailure
}

// problemsFound makes a command exit 1 after it printed its own report.
type problemsFound struct{ n int }

func (p problemsFound) Error() string { return fmt.Sprintf("%d problems found", p.n) }
