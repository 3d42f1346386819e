package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lore-memory/lore/mcp"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

// The HTTP transport's files in the vault's data folder (warm.TokenFile,
// warm.ServerFile): the bearer token (made once, kept, so a client's
// configuration survives restarts) and, while a server runs, where it
// listens.

// listenLoopback listens on addr: "unix:PATH", or a loopback host and port
// (127.0.0.1, ::1 or localhost; port 0 picks one). It returns the port ("" for
// a socket).
func listenLoopback(addr string) (net.Listener, string, error) {
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		if p == "" {
			return nil, "", usageError{"--http unix: needs a socket path"}
		}
		// A socket left by a killed server is replaced; anything else at
		// the path is an error, never deleted.
		if st, err := os.Lstat(p); err == nil {
			if st.Mode()&os.ModeSocket == 0 {
				return nil, "", usageError{fmt.Sprintf("--http unix:%s: the path exists and is not a socket", p)}
			}
			os.Remove(p)
		}
		l, err := net.Listen("unix", p)
		if err == nil {
			os.Chmod(p, 0o600)
		}
		return l, "", err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", usageError{fmt.Sprintf("--http %q: want 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH", addr)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, "", usageError{fmt.Sprintf("--http %q: lore serves MCP on loopback only", addr)}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return l, port, nil
}

// httpToken returns the vault's MCP bearer token, making it (readable by
// the user alone) on first use. A token file others may read is made the
// user's alone before it is used; one that holds no token lore made (64
// hex digits of 32 random bytes: 64 × "b" is not one) is replaced by a
// new token.
func httpToken(v *vault.Vault) (string, error) {
	p := filepath.Join(v.DataDir(), warm.TokenFile)
	if b, err := os.ReadFile(p); err == nil && lorelikeToken(strings.TrimSpace(string(b))) {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, 0o600); err != nil {
				return "", fmt.Errorf("%s can be read by other users and could not be made yours alone: %w", p, err)
			}
		}
		return strings.TrimSpace(string(b)), nil
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b[:])
	if err := os.MkdirAll(v.DataDir(), 0o755); err != nil {
		return "", err
	}
	if err := vault.WriteFileAtomic(p, []byte(tok+"\n")); err != nil {
		return "", err
	}
	return tok, os.Chmod(p, 0o600)
}

// lorelikeToken reports whether t is a token as lore makes them: 64
// lower-case hex digits, with the variety random bytes have (random
// tokens use 10 or more of the 16 digits, all but never fewer).
func lorelikeToken(t string) bool {
	if len(t) != 64 || strings.Trim(t, "0123456789abcdef") != "" {
		return false
	}
	digits := map[rune]bool{}
	for _, r := range t {
		digits[r] = true
	}
	return len(digits) >= 10
}

// serveMCPHTTP serves every profile and project of the vaults over the
// Streamable HTTP transport until ctx ends: one listener, and each vault
// behind its own bearer token (kept in its data folder), which is how a
// request names its vault. A client holding one vault's token reaches no
// other vault, so one server can serve the vaults of several projects
// without giving an agent of one the memory of another. Each vault's
// mcp-http.json points its CLI's warm path here. A session whose URL names
// no project gets its vault's bound project (app.b.Project; none for an
// --also vault).
func serveMCPHTTP(ctx context.Context, e *env, served []*app, profile, addr string) error {
	l, port, err := listenLoopback(addr)
	if err != nil {
		return err
	}
	info := warm.ServerInfo{URL: "http://" + net.JoinHostPort("127.0.0.1", port) + "/mcp", PID: os.Getpid()}
	if port == "" {
		info = warm.ServerInfo{URL: "http://localhost/mcp", Socket: strings.TrimPrefix(addr, "unix:"), PID: os.Getpid()}
	}
	guard := warm.NewConnGuard(warm.MaxAnonymous)
	fr := &front{port: port}
	for _, sv := range served {
		h, err := vaultHandler(e, sv, profile, port, guard)
		if err != nil {
			l.Close()
			return err
		}
		// The token names the vault: two vaults with one token (a vault
		// folder copied with its .git) would answer one's requests from the
		// other's memory.
		for i, o := range fr.vaults {
			if o.token == h.token {
				l.Close()
				return vault.Errorf(vault.CodeConfig, "%s and %s have the same MCP token (was one copied from the other?); delete %s and start again to make a new one",
					served[i].mem.Vault().Root, sv.mem.Vault().Root, filepath.Join(sv.mem.Vault().DataDir(), warm.TokenFile))
			}
		}
		fr.vaults = append(fr.vaults, h)
		done, err := announce(sv.mem.Vault(), info)
		if err != nil {
			l.Close()
			return err
		}
		defer done()
		fmt.Fprintf(e.stderr, "lore mcp: serving MCP (Streamable HTTP) at %s%s for %s; token in %s\n", info.URL, socketNote(info.Socket), sv.mem.Vault().Root, filepath.Join(sv.mem.Vault().DataDir(), warm.TokenFile))
	}
	srv := &http.Server{Handler: fr, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ConnState: guard.State, ConnContext: warm.ConnContext}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// tokenHandler is one vault's handler and its token.
type tokenHandler struct {
	token string
	h     http.Handler
}

// front hands a request to the vault whose token it carries, and answers
// the CLI's proof requests (warmproof.go). One that matches no token is
// handed to the first vault's handler, which refuses it as every handler
// would (401, or 403 for a foreign Host or Origin).
type front struct {
	vaults []tokenHandler
	port   string // "" for a socket
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tokens := make([]string, len(f.vaults))
	for i, t := range f.vaults {
		tokens[i] = t.token
	}
	if warm.AnswerHello(w, r, f.port, tokens) {
		return
	}
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	for _, t := range f.vaults {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(t.token)) == 1 {
			t.h.ServeHTTP(w, r)
			return
		}
	}
	f.vaults[0].h.ServeHTTP(w, r)
}

// vaultHandler is the MCP and warm-path handler of one served vault.
func vaultHandler(e *env, sv *app, profile, port string, guard *warm.ConnGuard) (tokenHandler, error) {
	tok, err := httpToken(sv.mem.Vault())
	if err != nil {
		return tokenHandler{}, err
	}
	wd, _ := os.Getwd()
	h := mcp.NewHTTPHandler(mcp.HTTPOptions{Token: tok, Port: port, Project: sv.b.Project, Profile: profile,
		New: func(project, profile string) (*mcp.Server, error) {
			return mcp.New(serverDeps(sv.mem, sv.store, project), project, profile, version, mcp.Options{WorkDir: wd, Getenv: e.getenv, Log: e.stderr, Code: &lazyCheck{make: func() *stale.Checker { return codeChecker(context.Background(), e.getenv, wd, sv.mem.Vault()) }}})
		},
		Local: warm.Handler(warmBackend{sv.mem}), Trusted: guard.Trusted})
	return tokenHandler{tok, h}, nil
}

// announce writes where the server listens into the vault's mcp-http.json,
// and returns what removes it at exit (unless a server started since has
// replaced it).
func announce(v *vault.Vault, info warm.ServerInfo) (func(), error) {
	infoPath := filepath.Join(v.DataDir(), warm.ServerFile)
	data, _ := json.Marshal(info)
	if err := vault.WriteFileAtomic(infoPath, append(data, '\n')); err != nil {
		return nil, err
	}
	return func() {
		var now warm.ServerInfo
		if b, err := os.ReadFile(infoPath); err == nil && json.Unmarshal(b, &now) == nil && now.PID == info.PID {
			os.Remove(infoPath)
		}
	}, nil
}

func socketNote(s string) string {
	if s == "" {
		return ""
	}
	return " over the socket " + s
}
