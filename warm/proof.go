package warm

import (
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"sync"
)

// Proving the server before the token is sent. A warm server's address is
// in mcp-http.json; after a crash the file stays, its PID may be reused and
// any program may bind its port. So the CLI first asks the server to prove
// that it holds the vault's token, without either side sending it:
// GET /lore/v1/hello?key=K&nonce=N, answered with HMAC-SHA256(token,
// "lore-warm-proof", port, N). K (KeyID) names which vault's token, N is
// fresh for each request, and the port binds the proof to the address the
// CLI dialled, so another lore server elsewhere cannot be used to answer
// for an impostor. Only when the proof checks does the CLI send the token
// and its request, on the same connection; otherwise it works alone. A
// Unix socket is proved by its owner instead (another user cannot make
// one in the user's folders; a socket lore did not make is never used).

// HelloPath is where a server proves it holds a vault's token.
const HelloPath = "/lore/v1/hello"

// Proof is what a server holding token, listening on port, answers to
// nonce.
func Proof(token, port, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("lore-warm-proof\x00" + port + "\x00" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// KeyID names a token without revealing it.
func KeyID(token string) string {
	sum := sha256.Sum256([]byte("lore-warm-key\x00" + token))
	return hex.EncodeToString(sum[:16])
}

// AnswerHello answers a proof request for the vault whose key it names,
// among the tokens of the vaults the server on port serves; false when the
// request is not one.
func AnswerHello(w http.ResponseWriter, r *http.Request, port string, tokens []string) bool {
	if r.URL.Path != HelloPath || r.Method != http.MethodGet {
		return false
	}
	q := r.URL.Query()
	nonce := q.Get("nonce")
	for _, t := range tokens {
		if KeyID(t) == q.Get("key") && len(nonce) >= 32 && len(nonce) <= 128 {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(Proof(t, port, nonce)))
			return true
		}
	}
	http.Error(w, "no such vault here", http.StatusNotFound)
	return true
}

// ConnGuard keeps room for clients that carry a token. Connections that
// have not yet sent a request with one (anonymous) are capped at
// MaxAnonymous (or the cap given): a new one past that closes the oldest, so a flood of idle
// or refused connections never leaves a client with the token unable to
// connect, and never uses up the process's descriptors.
type ConnGuard struct {
	mu   sync.Mutex
	anon *list.List // of net.Conn, oldest first
	at   map[net.Conn]*list.Element
	max  int
}

// MaxAnonymous is how many connections without a token a server keeps.
const MaxAnonymous = 256

// NewConnGuard keeps at most max anonymous connections.
func NewConnGuard(max int) *ConnGuard {
	return &ConnGuard{anon: list.New(), at: map[net.Conn]*list.Element{}, max: max}
}

// State follows http.Server's connection states (its ConnState).
func (g *ConnGuard) State(c net.Conn, s http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch s {
	case http.StateNew:
		g.at[c] = g.anon.PushBack(c)
		for g.anon.Len() > g.max {
			oldest := g.anon.Remove(g.anon.Front()).(net.Conn)
			delete(g.at, oldest)
			oldest.Close()
		}
	case http.StateClosed, http.StateHijacked:
		g.forget(c)
	}
}

func (g *ConnGuard) forget(c net.Conn) {
	if e, ok := g.at[c]; ok {
		g.anon.Remove(e)
		delete(g.at, c)
	}
}

// Trusted marks the connection of a request that carried a token.
func (g *ConnGuard) Trusted(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		g.mu.Lock()
		g.forget(c)
		g.mu.Unlock()
	}
}

type connKey struct{}

// ConnContext puts a request's connection in its context (for Trusted):
// http.Server's ConnContext.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}
