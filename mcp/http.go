package mcp

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/lore-memory/lore/vault"
)

// HTTPOptions configure the Streamable HTTP transport (lore mcp --http).
type HTTPOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// Port is the loopback listener's port, for the Host and Origin
	// checks; "" for a Unix socket (no browser reaches one).
	Port string
	// Project is the binding's project, used when a request names none;
	// Profile the profile, likewise (default memory).
	Project, Profile string
	// New makes the server of one binding: a project and a profile.
	New func(project, profile string) (*Server, error)
	// Local, when set, serves the paths under /lore/ (the CLI's warm
	// path), behind the same checks as /mcp.
	Local http.Handler
	// SessionIdle is how long an MCP session may stay idle before its
	// state is dropped (its client starts a new one, as the transport
	// says); default DefaultSessionIdle.
	SessionIdle time.Duration
	// Trusted, when set, is told of each request that carried the token
	// (the server keeps room for such clients' connections).
	Trusted func(*http.Request)
	// BodyDeadline bounds how long a request's body may take to arrive;
	// default DefaultBodyDeadline.
	BodyDeadline time.Duration
}

// DefaultSessionIdle is how long an idle MCP session is kept: 3,000
// initializes that were never closed once took a server from 21 to 60 MB.
const DefaultSessionIdle = time.Hour

// DefaultBodyDeadline bounds how long a request's body may take to arrive:
// a client with the token that trickles bodies holds no connection longer.
const DefaultBodyDeadline = 10 * time.Second

// HTTPHandler is the Streamable HTTP transport of the MCP specification at
// /mcp, for one vault: many sessions, each bound by its URL to a project
// (?project=, default the binding's) and a profile (?profile=, default
// memory), each with its own activation state (the next_state its client
// passes back). Before any MCP handling a request must name a loopback
// Host (a DNS-rebinding page names its own), carry no Origin other than
// this server's, carry the bearer token, and hold a JSON-RPC message within
// the stdio transport's limits (size, nesting, id length); tool calls then
// run through the same strict decoding and error results as over stdio.
type HTTPHandler struct {
	opt     HTTPOptions
	mu      sync.Mutex
	servers map[string]*server.StreamableHTTPServer // by project and profile
}

// NewHTTPHandler returns the handler.
func NewHTTPHandler(opt HTTPOptions) *HTTPHandler {
	return &HTTPHandler{opt: opt, servers: map[string]*server.StreamableHTTPServer{}}
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if problem := h.refuse(r); problem != "" {
		code := http.StatusForbidden
		if strings.HasPrefix(problem, "unauthorized") {
			code = http.StatusUnauthorized
			w.Header().Set("WWW-Authenticate", `Bearer realm="lore"`)
		}
		// A refused request's connection is closed: 21,000 clients without
		// the token that each kept one open once used up every descriptor.
		w.Header().Set("Connection", "close")
		http.Error(w, problem, code)
		return
	}
	if h.opt.Trusted != nil {
		h.opt.Trusted(r)
	}
	if h.opt.Local != nil && strings.HasPrefix(r.URL.Path, "/lore/") {
		body, err := h.readBody(w, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.opt.Local.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != "/mcp" {
		http.Error(w, "not found: the MCP endpoint is /mcp", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	project, profile := h.opt.Project, h.opt.Profile
	if profile == "" {
		profile = "memory"
	}
	if p := q.Get("project"); q.Has("project") {
		project = p
	}
	if p := q.Get("profile"); p != "" {
		profile = p
	}
	if project != "" && !vault.ValidProjectName(project) {
		http.Error(w, fmt.Sprintf("project %q is not a valid project name (%s)", project, vault.ProjectNameRules), http.StatusBadRequest)
		return
	}
	if !slices.Contains(Profiles, profile) {
		http.Error(w, fmt.Sprintf("unknown profile %q; profiles: %s", profile, strings.Join(Profiles, ", ")), http.StatusBadRequest)
		return
	}
	if r.Method == http.MethodPost {
		body, err := h.readBody(w, r)
		if err != nil {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, fmt.Sprintf("message larger than %d MiB", maxMessage>>20))
			return
		}
		if problem := shapeProblem(body); problem != "" {
			writeRPCError(w, http.StatusBadRequest, leadingID(body), problem)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	s, err := h.serverFor(project, profile)
	if err != nil {
		code := http.StatusInternalServerError
		if vault.ErrorCode(err) == vault.CodeInvalid {
			code = http.StatusBadRequest
		}
		http.Error(w, vault.Message(err), code)
		return
	}
	lw := &isErrorWriter{ResponseWriter: w}
	s.ServeHTTP(lw, r)
	lw.flushRest()
}

// readBody reads a request's body, at most maxMessage bytes, within the
// body deadline; the connection's read deadline is lifted afterwards (an
// SSE stream stays open as long as it needs). A body that does not arrive
// in time closes the connection.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	d := h.opt.BodyDeadline
	if d <= 0 {
		d = DefaultBodyDeadline
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(d))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMessage))
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, fmt.Errorf("the body was not read (over %d MiB, or slower than %s): %w", maxMessage>>20, d, err)
	}
	rc.SetReadDeadline(time.Time{})
	return body, nil
}

// refuse says why a request is refused before it is read, "" when it is not.
func (h *HTTPHandler) refuse(r *http.Request) string {
	if h.opt.Port != "" && !h.loopback(r.Host) {
		return fmt.Sprintf("forbidden: Host %q is not this loopback server", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		// A socket has no port, and no page of any origin reaches it.
		if rest, ok := strings.CutPrefix(o, "http://"); h.opt.Port == "" || !ok || !h.loopback(rest) {
			return fmt.Sprintf("forbidden: Origin %q may not call this server", o)
		}
	}
	tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found || subtle.ConstantTimeCompare([]byte(tok), []byte(h.opt.Token)) != 1 {
		return "unauthorized: send Authorization: Bearer <token> (lore mcp config --http prints it)"
	}
	return ""
}

// loopback reports whether hostPort names this server by a loopback name.
func (h *HTTPHandler) loopback(hostPort string) bool {
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if hostPort == name+":"+h.opt.Port {
			return true
		}
	}
	return false
}

// maxBindings bounds the bindings (project and profile pairs) one HTTP
// server keeps a server for.
const maxBindings = 64

// serverFor returns the transport of one binding, making it on first use.
func (h *HTTPHandler) serverFor(project, profile string) (*server.StreamableHTTPServer, error) {
	key := project + "\x00" + profile
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.servers[key]; ok {
		return s, nil
	}
	if len(h.servers) >= maxBindings {
		return nil, vault.Errorf(vault.CodeInvalid, "this server already serves %d project and profile pairs; start another for more", maxBindings)
	}
	srv, err := h.opt.New(project, profile)
	if err != nil {
		return nil, err
	}
	idle := h.opt.SessionIdle
	if idle <= 0 {
		idle = DefaultSessionIdle
	}
	s := server.NewStreamableHTTPServer(srv.srv, server.WithEndpointPath("/mcp"), server.WithSessionIdleTTL(idle),
		server.WithSessionIdManager(&sessionIDs{live: map[string]bool{}}),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	h.servers[key] = s
	return s, nil
}

// sessionIDs are the live sessions of one binding. mcp-go's default
// accepts any id and so never forgets one; here an id is known from its
// initialize until its client ends it or it is idle past SessionIdle (the
// transport's sweeper terminates it and drops its state), and an unknown
// id is answered 404, on which a client starts a new session, as the
// transport says.
type sessionIDs struct {
	mu   sync.Mutex
	live map[string]bool
}

func (m *sessionIDs) Generate() string {
	var b [16]byte
	rand.Read(b[:])
	id := "lore-" + hex.EncodeToString(b[:])
	m.mu.Lock()
	m.live[id] = true
	m.mu.Unlock()
	return id
}

func (m *sessionIDs) Validate(id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.live[id] {
		return false, fmt.Errorf("session not found: %q", id)
	}
	return false, nil
}

func (m *sessionIDs) Terminate(id string) (bool, error) {
	m.mu.Lock()
	delete(m.live, id)
	m.mu.Unlock()
	return false, nil
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": msg}})
}

// isErrorWriter adds "isError": false to tool results, line by line (a
// JSON response is one line, and each SSE event's data is one), as the
// stdio transport does.
type isErrorWriter struct {
	http.ResponseWriter
	buf     []byte
	started bool
}

func (lw *isErrorWriter) WriteHeader(code int) {
	lw.Header().Del("Content-Length") // the body may grow
	lw.started = true
	lw.ResponseWriter.WriteHeader(code)
}

func (lw *isErrorWriter) Write(p []byte) (int, error) {
	if !lw.started {
		lw.WriteHeader(http.StatusOK)
	}
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := lw.ResponseWriter.Write(append(withIsError(lw.buf[:i]), '\n')); err != nil {
			return 0, err
		}
		lw.buf = lw.buf[i+1:]
	}
}

// Flush sends what is complete (SSE events end with a blank line).
func (lw *isErrorWriter) Flush() {
	if f, ok := lw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (lw *isErrorWriter) flushRest() {
	if len(lw.buf) > 0 {
		lw.ResponseWriter.Write(withIsError(lw.buf))
		lw.buf = nil
	}
}
