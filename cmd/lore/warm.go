package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// The warm path: when `lore mcp --http` runs for the bound vault, `lore
// search` and `lore activate` ask it (its index is open, its postings and
// vectors in memory, its freshness kept by a watcher) instead of opening
// the index themselves, and print the same output. When no server runs, or
// it cannot be reached, they do the work themselves. LORE_NO_SERVER=1 makes
// them always do it themselves.

// warmSearch is the body of /lore/v1/search and /lore/v1/activate.
type warmRequest struct {
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
	// Workspace is the code folder the asker is bound to: activate checks
	// the fragments' citations of code against its repository.
	Workspace string `json:"workspace,omitempty"`
}

// activateRequest is the activation a warm request asks for.
func (in warmRequest) activateRequest() vault.ActivateRequest {
	req := vault.ActivateRequest{Query: in.Query, State: in.State, Project: in.Project, PublishedOnly: in.Published, RelevantOnly: in.Relevant}
	if in.Budget > 0 {
		req.Limits = vault.Limits{TokenBudget: in.Budget, MaxFragments: max(in.Fragments, 1), PerResource: 2}
	}
	return req
}

// warmReply carries a result, or an error with its code, and how many files
// the index could not read (the terminal footer).
type warmReply struct {
	Hits       []vault.Hit       `json:"hits,omitempty"`
	Activation *vault.Activation `json:"activation,omitempty"`
	Unreadable int               `json:"unreadable"`
	Error      *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// warmHandler serves the CLI's warm path on ix.
func warmHandler(ix *retrieve.Memory) http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, r *http.Request, do func(ctx context.Context, in warmRequest) (warmReply, error)) {
		var in warmRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		out, err := do(r.Context(), in)
		if err != nil {
			out = warmReply{}
			out.Error = &struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}{vault.ErrorCode(err), vault.Message(err)}
		}
		if in.Unreadable {
			if st, err := ix.Index.Stats(r.Context()); err == nil {
				out.Unreadable = len(st.Problems)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
	mux.HandleFunc("POST /lore/v1/search", func(w http.ResponseWriter, r *http.Request) {
		reply(w, r, func(ctx context.Context, in warmRequest) (warmReply, error) {
			hits, err := ix.Search(ctx, in.Query, vault.SearchOptions{Limit: in.Limit, Project: in.Project})
			return warmReply{Hits: hits}, err
		})
	})
	mux.HandleFunc("POST /lore/v1/activate", func(w http.ResponseWriter, r *http.Request) {
		reply(w, r, func(ctx context.Context, in warmRequest) (warmReply, error) {
			req := in.activateRequest()
			req.Code = codeCheck(ctx, os.Getenv, in.Workspace, ix.Vault())
			act, err := ix.Activate(ctx, req)
			flushCheckers()
			return warmReply{Activation: act}, err
		})
	})
	return mux
}

// errNoServer: no warm server answers for this vault.
var errNoServer = errors.New("no warm server")

// askWarm sends one request to the vault's warm server. It returns
// errNoServer when there is none to ask (no file, a dead process, no
// answer), and a vault error when the server answered with one.
func askWarm(ctx context.Context, e *env, b vault.Binding, path string, in warmRequest) (warmReply, error) {
	if e.getenv("LORE_NO_SERVER") != "" {
		return warmReply{}, errNoServer
	}
	v, err := vault.Open(b.Vault) // cheap: it finds the git directory and reads lore.yaml
	if err != nil {
		return warmReply{}, errNoServer
	}
	data := v.DataDir()
	v.Close()
	raw, err := os.ReadFile(filepath.Join(data, httpServerFile))
	if err != nil {
		return warmReply{}, errNoServer
	}
	var info httpServerInfo
	if json.Unmarshal(raw, &info) != nil || info.PID <= 0 || syscall.Kill(info.PID, 0) != nil {
		return warmReply{}, errNoServer
	}
	// The token goes only to a loopback server (or a socket).
	u, err := url.Parse(info.URL)
	if err != nil || u.Scheme != "http" || !loopbackHost(u.Hostname()) {
		return warmReply{}, errNoServer
	}
	raw, err = os.ReadFile(filepath.Join(data, httpTokenFile))
	if err != nil {
		return warmReply{}, errNoServer
	}
	tok := strings.TrimSpace(string(raw))
	network, addr := "tcp", u.Host
	if info.Socket != "" {
		if !ownSocket(info.Socket) {
			return warmReply{}, errNoServer
		}
		network, addr = "unix", info.Socket
	}
	body, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(info.URL, "/mcp")+path, bytes.NewReader(body))
	if err != nil {
		return warmReply{}, errNoServer
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Close = true
	// One request on a connection of its own, written and read here: an
	// http.Client's Transport (its pool, its reading and writing
	// goroutines) cost ~1 ms of a fresh process's request on a slow machine
	// (4.4 → 3.4 ms, 40 runs each); of the whole process, a warm `lore
	// search` 25.6 and 25.8 → 25.2 and 25.1 ms p50, `lore activate` 35.6
	// and 35.1 → 35.1 and 34.4 ms (two builds of each binary, all four
	// written at once, in turn, 40 rounds, 10,000 notes).
	// The dial and the proof have a sub-second deadline of their own: a
	// server stopped with ^Z, or a silent program on a crashed server's
	// port, made every command wait the full 30 s and every prompt hook
	// give nothing; past it, the command answers in process.
	conn, err := (&net.Dialer{Timeout: warmHandshake}).DialContext(ctx, network, addr)
	if err != nil {
		return warmReply{}, errNoServer
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(warmHandshake))
	br := bufio.NewReader(conn)
	if network == "tcp" && !proveServer(conn, br, u, tok) {
		return warmReply{}, errNoServer // not the server lore started (or not answering): nothing is sent
	}
	conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) }) // the time-out, or ^C
	defer stop()
	if req.Write(conn) != nil {
		return warmReply{}, errNoServer
	}
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return warmReply{}, errNoServer
	}
	defer resp.Body.Close()
	var out warmReply
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return warmReply{}, errNoServer
	}
	if out.Error != nil {
		return out, vault.Errorf(out.Error.Code, "%s", out.Error.Message)
	}
	return out, nil
}

// warmHandshake bounds the dial and the proof of a warm server.
const warmHandshake = 500 * time.Millisecond

// proveServer asks the server on conn to prove it holds tok for the port
// dialled (warmproof.go); the token itself is not sent.
func proveServer(conn net.Conn, br *bufio.Reader, u *url.URL, tok string) bool {
	var n [24]byte
	if _, err := rand.Read(n[:]); err != nil {
		return false
	}
	nonce := hex.EncodeToString(n[:])
	req, err := http.NewRequest(http.MethodGet, "http://"+u.Host+helloPath+"?key="+keyID(tok)+"&nonce="+nonce, nil)
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
		hmac.Equal(got, []byte(warmProof(tok, u.Port(), nonce)))
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

func warmFooter(e *env, unreadable int) {
	if isTerminal(e.stdout) && unreadable > 0 {
		fmt.Fprintf(e.stdout, "(%d file(s) could not be read as notes; `lore doctor` lists them and why)\n", unreadable)
	}
}
