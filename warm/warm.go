// Package warm is the protocol between lore's one-shot commands and a warm
// server of the same vault (lore mcp --http): when one runs, lore search,
// lore activate and the prompt hook ask it (its index open, its postings
// and vectors in memory, its freshness kept by a watcher) instead of
// opening the index themselves, and print the same output. When none runs,
// or it cannot be reached or proved, they do the work themselves.
//
// The server announces itself in the vault's data folder (ServerFile, with
// its URL, socket and PID) beside its bearer token (TokenFile, the user's
// alone). Before the token is sent, the server proves it holds it without
// either side sending it (proof.go); a Unix socket is proved by its owner.
// One request goes on a connection of its own, with a sub-second deadline
// on the dial and the proof (Handshake).
package warm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lore-memory/lore/vault"
)

// Files in the vault's data folder, and the paths the server answers.
const (
	TokenFile    = "mcp-http.token"
	ServerFile   = "mcp-http.json"
	SearchPath   = "/lore/v1/search"
	ActivatePath = "/lore/v1/activate"
)

// ServerInfo is what ServerFile says of a running server.
type ServerInfo struct {
	URL    string `json:"url"`
	Socket string `json:"socket,omitempty"`
	PID    int    `json:"pid"`
}

// Request is the body of SearchPath and ActivatePath.
type Request struct {
	Query   string `json:"query"`
	Project string `json:"project"`
	Limit   int    `json:"limit,omitempty"`
	State   string `json:"state,omitempty"`
	// Unreadable asks for the count of files the index could not read (a
	// terminal's footer; counting costs a pass over the index).
	Unreadable bool `json:"unreadable,omitempty"`
	// What lore hook asks of activate: published memory only, what clears
	// the relevance bar, within its own budget.
	Published bool `json:"published,omitempty"`
	Relevant  bool `json:"relevant,omitempty"`
	Budget    int  `json:"budget,omitempty"`
	Fragments int  `json:"fragments,omitempty"`
	// PerResource is the asker's cap on one note's fragments (0: two, what
	// a server before this field gives).
	PerResource int `json:"per_resource,omitempty"`
	// Workspace is the code folder the asker is bound to: activate checks
	// the fragments' citations of code against its repository.
	Workspace string `json:"workspace,omitempty"`
}

// ActivationRequest is the request that asks a warm server for req, from
// an asker bound to workspace: ActivateRequest gives req back on the
// server's side (its code check is the server's own).
func ActivationRequest(req vault.ActivateRequest, workspace string) Request {
	return Request{Query: req.Query, Project: req.Project, State: req.State, Published: req.PublishedOnly, Relevant: req.RelevantOnly,
		Budget: req.Limits.TokenBudget, Fragments: req.Limits.MaxFragments, PerResource: req.Limits.PerResource, Workspace: workspace}
}

// ActivateRequest is the activation a request asks for.
func (in Request) ActivateRequest() vault.ActivateRequest {
	req := vault.ActivateRequest{Query: in.Query, State: in.State, Project: in.Project, PublishedOnly: in.Published, RelevantOnly: in.Relevant}
	if in.Budget > 0 {
		per := in.PerResource
		if per <= 0 {
			per = 2
		}
		req.Limits = vault.Limits{TokenBudget: in.Budget, MaxFragments: max(in.Fragments, 1), PerResource: per}
	}
	return req
}

// Reply carries a result, or an error with its code, and how many files
// the index could not read (the terminal footer).
type Reply struct {
	Hits       []vault.Hit       `json:"hits,omitempty"`
	Activation *vault.Activation `json:"activation,omitempty"`
	Unreadable int               `json:"unreadable"`
	Error      *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// ErrNoServer: no warm server answers for this vault.
var ErrNoServer = errors.New("no warm server")

// Ask sends one request to the warm server of the vault whose data folder
// is data (vault.DataDir). It returns ErrNoServer when there is none to ask
// (no file, a dead process, no answer, no proof), and a vault error when
// the server answered with one.
func Ask(ctx context.Context, data, path string, in Request) (Reply, error) {
	raw, err := os.ReadFile(filepath.Join(data, ServerFile))
	if err != nil {
		return Reply{}, ErrNoServer
	}
	var info ServerInfo
	if json.Unmarshal(raw, &info) != nil || info.PID <= 0 || syscall.Kill(info.PID, 0) != nil {
		return Reply{}, ErrNoServer
	}
	// The token goes only to a loopback server (or a socket).
	u, err := url.Parse(info.URL)
	if err != nil || u.Scheme != "http" || !loopbackHost(u.Hostname()) {
		return Reply{}, ErrNoServer
	}
	raw, err = os.ReadFile(filepath.Join(data, TokenFile))
	if err != nil {
		return Reply{}, ErrNoServer
	}
	tok := strings.TrimSpace(string(raw))
	network, addr := "tcp", u.Host
	if info.Socket != "" {
		if !ownSocket(info.Socket) {
			return Reply{}, ErrNoServer
		}
		network, addr = "unix", info.Socket
	}
	body, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(info.URL, "/mcp")+path, bytes.NewReader(body))
	if err != nil {
		return Reply{}, ErrNoServer
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Close = true
	// One request on a connection of its own, written and read here: an
	// http.Client's Transport (its pool, its reading and writing
	// goroutines) cost a fresh process's request about a millisecond
	// (docs/BENCHMARKS.md, "One warm lore").
	// The dial and the proof have a sub-second deadline of their own: a
	// server stopped with ^Z, or a silent program on a crashed server's
	// port, made every command wait the full 30 s and every prompt hook
	// give nothing; past it, the command answers in process.
	conn, err := (&net.Dialer{Timeout: Handshake}).DialContext(ctx, network, addr)
	if err != nil {
		return Reply{}, ErrNoServer
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(Handshake))
	br := bufio.NewReader(conn)
	if network == "tcp" && !proveServer(conn, br, u, tok) {
		return Reply{}, ErrNoServer // not the server lore started (or not answering): nothing is sent
	}
	conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) }) // the time-out, or ^C
	defer stop()
	if req.Write(conn) != nil {
		return Reply{}, ErrNoServer
	}
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return Reply{}, ErrNoServer
	}
	defer resp.Body.Close()
	var out Reply
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return Reply{}, ErrNoServer
	}
	if out.Error != nil {
		return out, vault.Errorf(out.Error.Code, "%s", out.Error.Message)
	}
	return out, nil
}

// Handshake bounds the dial and the proof of a warm server.
const Handshake = 500 * time.Millisecond

// proveServer asks the server on conn to prove it holds tok for the port
// dialled (proof.go); the token itself is not sent.
func proveServer(conn net.Conn, br *bufio.Reader, u *url.URL, tok string) bool {
	var n [24]byte
	if _, err := rand.Read(n[:]); err != nil {
		return false
	}
	nonce := hex.EncodeToString(n[:])
	req, err := http.NewRequest(http.MethodGet, "http://"+u.Host+HelloPath+"?key="+KeyID(tok)+"&nonce="+nonce, nil)
	if err != nil || req.Write(conn) != nil {
		return false
	}
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, 256))
	return err == nil && resp.StatusCode == http.StatusOK && !resp.Close &&
		hmac.Equal(got, []byte(Proof(tok, u.Port(), nonce)))
}

// ownSocket reports whether path is a socket owned by this user: one
// another user made is never sent the token.
func ownSocket(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSocket == 0 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

func loopbackHost(h string) bool {
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}
