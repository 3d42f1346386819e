package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
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

// openIndex opens the bound vault and its index.
func (e *env) openIndex(ctx context.Context) (*retrieve.Memory, vault.Binding, error) {
	b, err := e.binding()
	if err != nil {
		return nil, b, err
	}
	return e.openIndexFor(ctx, b)
}

// openIndexFor opens the vault of a binding and its index (lore hook names
// the binding of the folder its client runs in).
func (e *env) openIndexFor(ctx context.Context, b vault.Binding) (*retrieve.Memory, vault.Binding, error) {
	ix, st, err := openMemory(ctx, b.Vault)
	if err != nil {
		return nil, b, err
	}
	if why := ix.Index.ReadOnly(); why != "" {
		fmt.Fprintln(e.stderr, "lore: note:", why)
	}
	e.store = st
	return ix, b, nil
}

// openIndexOf opens v's index with its retrieval pipeline, the index telling
// the process's collector of its bulk refreshes (bulkgc.go). Every command
// opens its index here.
func openIndexOf(ctx context.Context, v *vault.Vault) (*retrieve.Memory, error) {
	m, err := retrieve.Open(ctx, v)
	if err != nil {
		return nil, err
	}
	m.Index.UseBulkMemory(bulkGC)
	return m, nil
}

// openMemory opens the vault at dir, its index and its Draft store.
func openMemory(ctx context.Context, dir string) (*retrieve.Memory, *drafts.Store, error) {
	v, err := vault.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	ix, err := openIndexOf(ctx, v)
	if err != nil {
		v.Close()
		return nil, nil, err
	}
	out, err := outbox.Open(ctx, filepath.Join(v.DataDir(), "outbox.db"))
	if err != nil {
		ix.Close()
		v.Close()
		return nil, nil, err
	}
	st, err := drafts.Open(ctx, ix.Index, out)
	if err != nil {
		out.Close()
		ix.Close()
		v.Close()
		return nil, nil, err
	}
	return ix, st, nil
}

// closeMemory closes what openMemory opened.
func closeMemory(ix *retrieve.Memory, st *drafts.Store) {
	if st != nil {
		st.Close()
	}
	v := ix.Vault()
	ix.Close()
	v.Close()
}

// openForQuery opens the index for a one-shot command that only queries and
// then exits (lore search, activate and load, without a warm server): its
// collector runs late (memlimit.go) and its connections map the index file
// (fts/connect.go). models attaches what openIndexWithModels attaches.
func (e *env) openForQuery(ctx context.Context, models bool) (*retrieve.Memory, vault.Binding, error) {
	collectLate(e.getenv)
	open := e.openIndex
	if models {
		open = e.openIndexWithModels
	}
	ix, b, err := open(ctx)
	if err != nil {
		return nil, b, err
	}
	ix.Index.Resident().Map(ctx)
	return ix, b, nil
}

// openIndexWithModels is openIndex with the embedding model, reranker and
// fusion lore.yaml configures attached.
func (e *env) openIndexWithModels(ctx context.Context) (*retrieve.Memory, vault.Binding, error) {
	ix, b, err := e.openIndex(ctx)
	if err != nil {
		return nil, b, err
	}
	if err := useModels(ctx, ix); err != nil {
		e.closeIndex(ix)
		return nil, b, err
	}
	return ix, b, nil
}

// useModels attaches the embedding model, reranker and fusion the vault's
// lore.yaml configures.
func useModels(ctx context.Context, ix *retrieve.Memory) error {
	cfg := ix.Vault().Config
	dir, err := embed.DefaultModelDir()
	if err != nil {
		return err
	}
	em, err := embed.FromConfig(cfg.Embedding, dir)
	if err == nil {
		err = ix.Index.Vectors().Use(ctx, em)
	}
	if err != nil {
		return vault.Errorf(vault.CodeConfig, "lore.yaml embedding: %v", err)
	}
	rr, err := embed.RerankerFromConfig(cfg.Rerank)
	if err != nil {
		return vault.Errorf(vault.CodeConfig, "lore.yaml rerank: %v", err)
	}
	ix.Pipeline.UseReranker(rr)
	return ix.Pipeline.UseFusion(cfg.Retrieval)
}

// closeIndex closes the index openIndex opened, with its Draft store.
func (e *env) closeIndex(ix *retrieve.Memory) {
	closeMemory(ix, e.store)
	e.store = nil
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
	// unreadable-files footer: ~15 ms of a warm `lore search`).
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
