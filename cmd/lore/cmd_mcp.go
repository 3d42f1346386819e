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

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/journal"
	"github.com/lore-memory/lore/mcp"
	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
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
	a, err := e.open(ctx, withModels)
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
	defer a.Close()
	ix, b := a.mem, a.b
	bg, stop := context.WithCancel(ctx)
	defer stop()
	go holdMemory(bg, e.getenv) // from before the copies' build, whose garbage is most of the peak
	if *httpAddr != "" {
		return serveVaults(ctx, bg, e, a, also, *profile, *httpAddr)
	}
	wd, _ := os.Getwd()
	srv, err := mcp.New(serverDeps(ix, a.store, b.Project), b.Project, *profile, version, mcp.Options{WorkDir: wd, Getenv: e.getenv, Log: e.stderr, Code: &lazyCheck{make: func() *stale.Checker { return codeChecker(ctx, e.getenv, orElse(b.Workspace, wd), ix.Vault()) }}})
	if err != nil {
		return err
	}
	go background(bg, e, ix, a.store)
	return srv.Serve(ctx, e.stdin, e.stdout, e.stderr)
}

// background keeps a served vault's memory warm (retrieve's Maintain):
// embedding unless LORE_MCP_NO_EMBED, and, unless LORE_MCP_NO_SYNC, the
// Draft store's background sync (drafts.Background: when something waits
// in the outbox, and every fetch_every_seconds otherwise).
func background(ctx context.Context, e *env, ix *retrieve.Memory, st *drafts.Store) {
	o := retrieve.MaintainOptions{Embed: e.getenv("LORE_MCP_NO_EMBED") == "", Log: e.stderr, Prefix: "lore mcp: ", Building: &memBuilding}
	if st != nil && e.getenv("LORE_MCP_NO_SYNC") == "" {
		bg := st.Remote().Background(ix.Vault().Config.FetchEvery())
		o.SyncEvery = bg.Interval()
		o.Sync = func(ctx context.Context) error {
			_, rep, err := bg.Step(ctx)
			if err == nil && rep.Error != "" {
				fmt.Fprintln(e.stderr, "lore mcp: sync will retry:", rep.Error)
			}
			return err
		}
	}
	ix.Maintain(ctx, o)
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
	tokenFile := filepath.Join(v.DataDir(), warm.TokenFile)
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
	return mcp.Deps{Memory: sharedMemory{ix, hook.SessionsOf(ix.Vault())}, Store: st, Journal: journal.New(ix, st, project),
		Offload: offload.NewStore(filepath.Join(ix.Vault().DataDir(), "offload"), maxBytes, maxNodes)}
}

// sharedMemory is the memory an MCP server's tools read: an activate whose
// state is a hook session's handle shares that session's state
// (hook.SharedActivator).
type sharedMemory struct {
	*retrieve.Memory
	sessions hook.Sessions
}

// Activate implements vault.Activator.
func (m sharedMemory) Activate(ctx context.Context, req vault.ActivateRequest) (*vault.Activation, error) {
	return hook.SharedActivator{Activator: m.Memory, Sessions: m.sessions}.Activate(ctx, req)
}

// serveVaults serves the bound vault and the --also ones over HTTP, each
// with its background work (bg), until ctx ends.
func serveVaults(ctx, bg context.Context, e *env, bound *app, also []string, profile, addr string) error {
	served := []*app{bound}
	for _, dir := range also {
		sv, err := openServed(ctx, dir, served)
		if err != nil {
			return err
		}
		defer sv.Close()
		served = append(served, sv)
	}
	for _, sv := range served {
		go background(bg, e, sv.mem, sv.store)
	}
	return serveMCPHTTP(ctx, e, served, profile, addr)
}

// openServed opens the vault at dir (--also) with its models, refusing one
// already served.
func openServed(ctx context.Context, dir string, served []*app) (*app, error) {
	a, err := openApp(ctx, dir, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("--also %s: %w", dir, err)
	}
	for _, o := range served {
		if o.mem.Vault().DataDir() == a.mem.Vault().DataDir() {
			a.Close()
			return nil, usageError{fmt.Sprintf("--also %s: the vault at %s is served already", dir, o.mem.Vault().Root)}
		}
	}
	// The models only once the vault is known to be another: loading the
	// embedding model is most of an open.
	if err := useModels(ctx, a.mem); err != nil {
		a.Close()
		return nil, fmt.Errorf("--also %s: %w", dir, err)
	}
	return a, nil
}
