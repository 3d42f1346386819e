package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/journal"
	"github.com/lore-memory/lore/mcp"
	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func runMCP(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "config" {
		return runMCPConfig(e, args[1:])
	}
	fs := newFlags(e, "mcp", "[--profile memory|vault|sidecar|journal] [--http ADDR [--also DIR]…] | config --client claude|codex|cursor [--http ADDR]", `Serve MCP over stdin/stdout for the vault and project this working directory
is bound to (see lore bind). With --http ADDR (127.0.0.1:PORT or
unix:PATH), serve the Streamable HTTP transport instead, at /mcp: one warm
process for every agent window of this vault, each session bound by its URL
(?project=NAME&profile=P, default the binding's project and memory), every
request carrying the bearer token kept in .git/lore/mcp-http.token. With
--also DIR (repeatable) the same server serves other vaults too, each behind
its own token. Profiles: memory (the default) is the single tool
"memory" with the operations activate, load and store; vault is the eight
tools of the vault contract (loadout, recall, guard, flush, distill, offload,
inspect, gc) and sidecar its first five; journal is now, keywords_list,
keywords_list_global, remember and recall. Logs go to stderr.

Register it with your agent: lore mcp config --client claude`)
	profile := fs.String("profile", "memory", "the tool profile: "+strings.Join(mcp.Profiles, ", "))
	sidecar := fs.Bool("sidecar", false, "the same as --profile sidecar")
	httpAddr := fs.String("http", "", "serve MCP over HTTP on ADDR (127.0.0.1:PORT, [::1]:PORT or unix:PATH) instead of stdio")
	var also stringList
	fs.Var(&also, "also", "with --http: serve the vault at DIR too, each vault behind its own token (repeat for more)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *sidecar {
		*profile = "sidecar"
	}
	known := false
	for _, p := range mcp.Profiles {
		known = known || p == *profile
	}
	if !known {
		return usageError{fmt.Sprintf("unknown profile %q; profiles: %s", *profile, strings.Join(mcp.Profiles, ", "))}
	}
	if len(also) > 0 && *httpAddr == "" {
		return usageError{"--also needs --http: over stdio a process serves one vault"}
	}
	ix, b, err := e.openIndexWithModels(ctx)
	if err != nil {
		switch vault.ErrorCode(err) {
		case vault.CodeUnbound, vault.CodeNotVault, vault.CodeConfig:
			if *httpAddr == "" {
				// The agent connects, and each call says what to run.
				fmt.Fprintln(e.stderr, "lore mcp:", err)
				srv, serr := mcp.NewUnavailable(*profile, version, err, mcp.Options{Log: e.stderr})
				if serr != nil {
					return serr
				}
				return srv.Serve(ctx, e.stdin, e.stdout, e.stderr)
			}
		}
		return err
	}
	defer e.closeIndex(ix)
	bg, stop := context.WithCancel(ctx)
	defer stop()
	go holdMemory(bg, e.getenv) // from before the copies' build, whose garbage is most of the peak
	if *httpAddr != "" {
		return serveVaults(ctx, bg, e, servedVault{ix: ix, store: e.store, project: b.Project}, also, *profile, *httpAddr)
	}
	wd, _ := os.Getwd()
	srv, err := mcp.New(serverDeps(ix, e.store, b.Project), b.Project, *profile, version, mcp.Options{WorkDir: wd, Getenv: e.getenv, Log: e.stderr})
	if err != nil {
		return err
	}
	go background(bg, e, ix, e.store)
	return srv.Serve(ctx, e.stdin, e.stdout, e.stderr)
}

// background keeps the index warm off the query path: a first refresh, a
// watcher on the vault, and embedding of new units every little while. Each
// step runs through step: a panic in one (a bug, a file that trips it) is
// logged with its stack and the loop goes on, so no note and no Draft takes
// the server down.
func background(ctx context.Context, e *env, ix indexLike, st syncer) {
	step := func(what string, f func() error) {
		err := safe.Call(f)
		if pe, ok := err.(*safe.PanicError); ok {
			fmt.Fprintf(e.stderr, "lore mcp: %s: %v (the server goes on)\n%s", what, pe, pe.Stack)
		} else if err != nil && ctx.Err() == nil {
			fmt.Fprintf(e.stderr, "lore mcp: %s: %v\n", what, err)
		}
	}
	refresh := func() error { _, err := ix.Refresh(ctx, nil); return err }
	step("refresh", refresh)
	step("watching the vault (every call still checks freshness)", func() error { return ix.Watch(ctx) })
	// BM25 in Go from here on (FTS5 answers until the postings are built).
	step("in-memory postings (FTS5 scores every query)", func() error {
		began := time.Now()
		memBuilding.Add(1)
		defer memBuilding.Add(-1)
		if err := ix.KeepInMemory(ctx); err != nil {
			return err
		}
		if st, kept := ix.PostingsStats(); kept {
			fmt.Fprintf(e.stderr, "lore mcp: in memory: %d units, %d postings (%.1f s)\n", st.Units, st.Postings, time.Since(began).Seconds())
		} else if ctx.Err() == nil {
			fmt.Fprintln(e.stderr, "lore mcp: the vault is larger than the in-memory copy allows; BM25 and the vector search run in SQL (slower)")
		}
		return nil
	})
	embed := e.getenv("LORE_MCP_NO_EMBED") == ""
	syncing := e.getenv("LORE_MCP_NO_SYNC") == ""
	// Embedding runs at once, then whenever the index reports a change (an
	// edit the watcher saw, a stored Draft, a refresh that wrote units),
	// after a short pause that lets a burst of changes settle; sync runs
	// every 30 s.
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		timed := false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			timed = true
		case <-ix.Changes():
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			step("refresh", refresh)
		}
		if embed && ix.Embedder() != nil {
			step("embedding", func() error { _, err := ix.EmbedPending(ctx, nil); return err })
		}
		if !timed {
			continue
		}
		// Drafts reach the vault's remote by themselves when it has one and
		// something is waiting in the outbox (sync on demand: no fetches while
		// nothing was stored); the outbox keeps the backoff.
		if syncing && st != nil {
			step("sync", func() error {
				if !st.Pending(ctx) {
					return nil
				}
				rep, err := st.Sync(ctx)
				if err == nil && rep.Error != "" {
					fmt.Fprintln(e.stderr, "lore mcp: sync will retry:", rep.Error)
				}
				return err
			})
		}
		t.Reset(30 * time.Second)
	}
}

func runMCPConfig(e *env, args []string) error {
	fs := newFlags(e, "mcp config", "--client claude|codex|cursor [--http ADDR]", `Print what registers lore with an agent. Run it in the workspace you bound
with lore bind (the server binds from its working directory). With --http
ADDR, print the form for a server started with lore mcp --http ADDR: the
bearer token (made on first use, kept in .git/lore/mcp-http.token) is
never printed; each client reads it from the environment variable
LORE_MCP_TOKEN, through its own mechanism, so it lands in no shell history
and no file a team commits.`)
	client := fs.String("client", "claude", "claude, codex or cursor")
	httpAddr := fs.String("http", "", "the address lore mcp --http listens on (127.0.0.1:PORT)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *httpAddr != "" {
		return printHTTPConfig(e, *client, *httpAddr)
	}
	bin := "lore"
	if self, err := os.Executable(); err == nil {
		if onPath, err := exec.LookPath("lore"); err != nil || !sameFile(onPath, self) {
			bin = self
		}
	}
	js, _ := json.Marshal(bin)
	switch *client {
	case "claude":
		fmt.Fprintf(e.stdout, "claude mcp add lore -- %s mcp\n\n# or, in .mcp.json:\n{\n  \"mcpServers\": {\n    \"lore\": {\"type\": \"stdio\", \"command\": %s, \"args\": [\"mcp\"]}\n  }\n}\n", shellWord(bin), js)
	case "codex":
		fmt.Fprintf(e.stdout, "codex mcp add lore -- %s mcp\n\n# or, in ~/.codex/config.toml:\n[mcp_servers.lore]\ncommand = %s\nargs = [\"mcp\"]\n", shellWord(bin), js)
	case "cursor":
		fmt.Fprintf(e.stdout, "# .cursor/mcp.json in the workspace (or ~/.cursor/mcp.json):\n{\n  \"mcpServers\": {\n    \"lore\": {\"command\": %s, \"args\": [\"mcp\"]}\n  }\n}\n", js)
	default:
		return usageError{fmt.Sprintf("unknown client %q: claude, codex or cursor", *client)}
	}
	return nil
}

// printHTTPConfig prints the client configuration of an HTTP server of the
// bound vault on addr. Every URL is quoted (zsh, macOS's shell, reads an
// unquoted ?project= as a glob and stops), and the token is named, never
// printed: the client takes it from LORE_MCP_TOKEN by its own documented
// mechanism (docs/CLIENTS.md has the pages).
func printHTTPConfig(e *env, client, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Sprintf("--http %q: want 127.0.0.1:PORT (a Unix socket needs a client that speaks one)", addr)}
	}
	b, err := e.binding()
	if err != nil {
		return err
	}
	v, err := vault.Open(b.Vault)
	if err != nil {
		return err
	}
	defer v.Close()
	if _, err := httpToken(v); err != nil {
		return err
	}
	url := "http://" + net.JoinHostPort(host, port) + "/mcp"
	if b.Project != "" {
		url += "?project=" + b.Project
	}
	ju, _ := json.Marshal(url)
	tokenFile := filepath.Join(v.DataDir(), httpTokenFile)
	fmt.Fprintf(e.stdout, "# start the server once: lore mcp --http %s\n# the client reads the token from LORE_MCP_TOKEN; set it where the client starts:\nexport LORE_MCP_TOKEN=\"$(cat %s)\"\n\n", addr, shellWord(tokenFile))
	switch client {
	case "claude":
		fmt.Fprintf(e.stdout, "claude mcp add --transport http lore %s --header 'Authorization: Bearer ${LORE_MCP_TOKEN}'\n\n# or, in .mcp.json (Claude Code expands ${LORE_MCP_TOKEN} there):\n{\n  \"mcpServers\": {\n    \"lore\": {\"type\": \"http\", \"url\": %s, \"headers\": {\"Authorization\": \"Bearer ${LORE_MCP_TOKEN}\"}}\n  }\n}\n", shellWord(url), ju)
	case "codex":
		fmt.Fprintf(e.stdout, "codex mcp add lore --url %s --bearer-token-env-var LORE_MCP_TOKEN\n\n# or, in ~/.codex/config.toml:\n[mcp_servers.lore]\nurl = %s\nbearer_token_env_var = \"LORE_MCP_TOKEN\"\n", shellWord(url), ju)
	case "cursor":
		fmt.Fprintf(e.stdout, "# .cursor/mcp.json in the workspace (or ~/.cursor/mcp.json; Cursor expands ${env:LORE_MCP_TOKEN}):\n{\n  \"mcpServers\": {\n    \"lore\": {\"url\": %s, \"headers\": {\"Authorization\": \"Bearer ${env:LORE_MCP_TOKEN}\"}}\n  }\n}\n", ju)
	default:
		return usageError{fmt.Sprintf("unknown client %q: claude, codex or cursor", client)}
	}
	return nil
}

// shellWord quotes s for a POSIX shell when it holds anything but plain
// path characters (a URL's ? and &, a space in a path).
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@,=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// serverDeps wires an MCP server's collaborators for project: the memory,
// the Draft store, the journal writing as project, and the vault's
// bounded store of offloaded logs.
func serverDeps(ix *retrieve.Memory, st *drafts.Store, project string) mcp.Deps {
	maxBytes, maxNodes := ix.Vault().Config.OffloadLimits()
	return mcp.Deps{Memory: ix, Store: st, Journal: journal.New(ix, st, project),
		Offload: offload.NewStore(filepath.Join(ix.Vault().DataDir(), "offload"), maxBytes, maxNodes)}
}

// syncer is what background needs of the Draft store (nil: no sync).
type syncer interface {
	Pending(ctx context.Context) bool
	Sync(ctx context.Context) (drafts.SyncReport, error)
}

// indexLike is what background needs of the index.
type indexLike interface {
	Refresh(ctx context.Context, progress func(done, total int)) (fts.RefreshStats, error)
	Watch(ctx context.Context) error
	KeepInMemory(ctx context.Context) error
	PostingsStats() (fts.MemStats, bool)
	Embedder() embed.Embedder
	EmbedPending(ctx context.Context, progress func(done, total int)) (int, error)
	Changes() <-chan struct{}
}

// serveVaults serves the bound vault and the --also ones over HTTP, each
// with its background work (bg), until ctx ends.
func serveVaults(ctx, bg context.Context, e *env, bound servedVault, also []string, profile, addr string) error {
	served := []servedVault{bound}
	for _, dir := range also {
		sv, err := openServed(ctx, dir, served)
		if err != nil {
			return err
		}
		defer closeMemory(sv.ix, sv.store)
		served = append(served, sv)
	}
	for _, sv := range served {
		go background(bg, e, sv.ix, sv.store)
	}
	return serveMCPHTTP(ctx, e, served, profile, addr)
}

// openServed opens the vault at dir (--also) with its models, refusing one
// already served.
func openServed(ctx context.Context, dir string, served []servedVault) (servedVault, error) {
	ix, st, err := openMemory(ctx, dir)
	if err != nil {
		return servedVault{}, fmt.Errorf("--also %s: %w", dir, err)
	}
	for _, o := range served {
		if o.ix.Vault().DataDir() == ix.Vault().DataDir() {
			closeMemory(ix, st)
			return servedVault{}, usageError{fmt.Sprintf("--also %s: the vault at %s is served already", dir, o.ix.Vault().Root)}
		}
	}
	if err := useModels(ctx, ix); err != nil {
		closeMemory(ix, st)
		return servedVault{}, fmt.Errorf("--also %s: %w", dir, err)
	}
	return servedVault{ix: ix, store: st}, nil
}
