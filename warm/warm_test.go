package warm

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

// memoryBackend is what lore mcp --http answers from: the vault's index
// and pipeline (retrieve.Memory), without checks of code.
type memoryBackend struct{ m *retrieve.Memory }

func (b memoryBackend) Search(ctx context.Context, q string, opt vault.SearchOptions) ([]vault.Hit, error) {
	return b.m.Search(ctx, q, opt)
}

func (b memoryBackend) Activate(ctx context.Context, req vault.ActivateRequest, _ string) (*vault.Activation, error) {
	return b.m.Activate(ctx, req)
}

func (b memoryBackend) Unreadable(ctx context.Context) (int, error) {
	st, err := b.m.Index.Stats(ctx)
	if err != nil {
		return 0, err
	}
	return len(st.Problems), nil
}

// serve starts a server as lore mcp --http fronts its vaults: the proof
// for tok at HelloPath, then the bearer token, then h. It writes the
// server's record and the token into data, and returns the listener's
// address.
func serve(t *testing.T, data, tok string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if AnswerHello(w, r, port, []string{tok}) {
			return
		}
		bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(bearer), []byte(tok)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	record(t, data, tok, ServerInfo{URL: "http://" + l.Addr().String() + "/mcp", PID: os.Getpid()})
	return l.Addr().String()
}

// record writes a server's record and the vault's token into data.
func record(t *testing.T, data, tok string, info ServerInfo) {
	t.Helper()
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(info)
	os.WriteFile(filepath.Join(data, ServerFile), raw, 0o600)
	os.WriteFile(filepath.Join(data, TokenFile), []byte(tok+"\n"), 0o600)
}

// A proved server answers search and activate from its index; an error it
// answers with is the caller's (a vault error with its code), not a reason
// to work alone.
func TestAsk_AProvedServerAnswers(t *testing.T) {
	root := testvault.Committed(t, map[string]string{
		"lore.yaml":        "embedding: {provider: none}\nprojects: {api: {}}\n",
		"howto/release.md": "# How to release\n\n## Before the release\n\nRun make test and update the changelog.\n",
	})
	v, m := testvault.Open(t, root, retrieve.Open)
	data := v.DataDir()
	serve(t, data, strings.Repeat("cd", 32), Handler(memoryBackend{m}))
	ctx := context.Background()
	out, err := Ask(ctx, data, SearchPath, Request{Query: "changelog", Project: "api", Limit: 3, Unreadable: true})
	if err != nil || len(out.Hits) == 0 || out.Hits[0].Path != "howto/release.md" {
		t.Fatalf("search through the server: %+v, %v", out, err)
	}
	out, err = Ask(ctx, data, ActivatePath, Request{Query: "update the changelog before the release", Project: "api", Published: true, Relevant: true, Budget: 300, Fragments: 2})
	if err != nil || out.Activation == nil || len(out.Activation.Fragments) == 0 {
		t.Fatalf("activate through the server: %+v, %v", out, err)
	}
	_, err = Ask(ctx, data, ActivatePath, Request{Query: "x", Project: "api", State: "las2.forged"})
	if vault.ErrorCode(err) != vault.CodeInvalidState {
		t.Errorf("a forged state through the server: %v; want %s", err, vault.CodeInvalidState)
	}
}

// No record, a record whose process is gone, a URL that is not loopback,
// and a missing token all mean no server: the caller works alone.
func TestAsk_NoServerToAsk(t *testing.T) {
	data := t.TempDir()
	ask := func() error { _, err := Ask(context.Background(), data, SearchPath, Request{Query: "q"}); return err }
	if err := ask(); !errors.Is(err, ErrNoServer) {
		t.Errorf("no record: %v", err)
	}
	tok := strings.Repeat("ab", 32)
	record(t, data, tok, ServerInfo{URL: "http://127.0.0.1:1/mcp", PID: 1 << 22}) // no such process
	if err := ask(); !errors.Is(err, ErrNoServer) {
		t.Errorf("a dead process's record: %v", err)
	}
	record(t, data, tok, ServerInfo{URL: "http://192.0.2.1:7411/mcp", PID: os.Getpid()})
	if err := ask(); !errors.Is(err, ErrNoServer) {
		t.Errorf("a record that is not loopback: %v", err)
	}
	serve(t, data, tok, http.NotFoundHandler())
	os.Remove(filepath.Join(data, TokenFile))
	if err := ask(); !errors.Is(err, ErrNoServer) {
		t.Errorf("no token: %v", err)
	}
}

// TestAttack_TheCLIProvesTheServerBeforeItSendsTheToken: lore mcp --http
// was SIGKILLed, its record stayed, its PID was reused by another process
// and another program bound its port; lore search then sent that program
// the bearer token and the query, and printed its invented hit. The CLI
// now asks the server to prove it holds the token first: the impostor gets
// neither token nor query, and the CLI works alone.
func TestAttack_TheCLIProvesTheServerBeforeItSendsTheToken(t *testing.T) {
	data := t.TempDir()
	tok := strings.Repeat("ab", 32)
	os.WriteFile(filepath.Join(data, TokenFile), []byte(tok+"\n"), 0o600)
	var mu sync.Mutex
	var seen []string
	impostor := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization")+" "+string(body))
		if r.URL.Path == HelloPath {
			w.Write([]byte(strings.Repeat("0", 64))) // it cannot make the proof
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hits":[{"path":"INVENTED.md","unit_key":"x/y/0/0","content":"invented"}]}`))
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go impostor.Serve(l)
	defer impostor.Close()
	// The record of the killed server: a live PID (this test's) and the
	// port the impostor holds.
	info, _ := json.Marshal(ServerInfo{URL: "http://" + l.Addr().String() + "/mcp", PID: os.Getpid()})
	os.WriteFile(filepath.Join(data, ServerFile), info, 0o600)
	_, err = Ask(context.Background(), data, SearchPath, Request{Query: "release secret query", Project: "api", Limit: 3})
	if !errors.Is(err, ErrNoServer) {
		t.Fatalf("Ask with an impostor: %v; want ErrNoServer (the caller works alone)", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, tok) || strings.Contains(s, "secret query") {
			t.Fatalf("the impostor received the token or the query: %q", s)
		}
	}
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "GET "+HelloPath) {
		t.Errorf("the impostor was asked %q; want only the proof request", seen)
	}
	// A socket another user made (here: a path that is no socket) is
	// never dialled.
	info, _ = json.Marshal(ServerInfo{URL: "http://localhost/mcp", Socket: filepath.Join(data, TokenFile), PID: os.Getpid()})
	os.WriteFile(filepath.Join(data, ServerFile), info, 0o600)
	if _, err := Ask(context.Background(), data, SearchPath, Request{Query: "release"}); !errors.Is(err, ErrNoServer) {
		t.Errorf("a socket record that is no socket: %v", err)
	}
}

// TestAttack_AStoppedWarmServerCostsNoWait: a server stopped with ^Z (its
// port accepts, nothing answers) made every lore search and activate wait
// 30 s, and every prompt hook give nothing. The dial and the proof have a
// deadline of their own now, and the command works alone after it.
func TestAttack_AStoppedWarmServerCostsNoWait(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, TokenFile), []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0") // accepts into its backlog, never reads
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	info, _ := json.Marshal(ServerInfo{URL: "http://" + l.Addr().String() + "/mcp", PID: os.Getpid()})
	os.WriteFile(filepath.Join(data, ServerFile), info, 0o600)
	// The request's own time-out is 30 s; the answer must come from the
	// handshake's deadline, long before (this bounds a hang, it measures
	// nothing).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = Ask(ctx, data, SearchPath, Request{Query: "release", Project: "api", Limit: 3})
	if !errors.Is(err, ErrNoServer) || ctx.Err() != nil {
		t.Fatalf("Ask with a stopped server: %v (context: %v); want ErrNoServer from the handshake", err, ctx.Err())
	}
}

// What the asker wants of activate reaches the server as it was asked,
// through the wire's JSON: the query, the view, the state and every limit
// (a cap on one note's fragments other than two included). A request from
// an asker that sends no cap gets two, as a server before the field gave.
func TestActivationRequest_RoundTripsTheWire(t *testing.T) {
	want := vault.ActivateRequest{Query: "release checklist", Project: "api", State: "st1", PublishedOnly: true, RelevantOnly: true,
		Limits: vault.Limits{TokenBudget: 600, MaxFragments: 6, PerResource: 3}}
	b, err := json.Marshal(ActivationRequest(want, "/work/api"))
	if err != nil {
		t.Fatal(err)
	}
	var in Request
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if got := in.ActivateRequest(); !reflect.DeepEqual(got, want) || in.Workspace != "/work/api" {
		t.Fatalf("over the wire %s: %+v (workspace %q), want %+v", b, got, in.Workspace, want)
	}
	old := Request{Query: "q", Budget: 600, Fragments: 6}
	if got := old.ActivateRequest().Limits; got != (vault.Limits{TokenBudget: 600, MaxFragments: 6, PerResource: 2}) {
		t.Fatalf("a request without per_resource: %+v", got)
	}
}
