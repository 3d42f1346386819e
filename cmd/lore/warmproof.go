package main

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
// "lore-warm-proof", port, N). K (keyID) names which vault's token, N is
// fresh for each request, and the port binds the proof to the address the
// CLI dialled, so another lore server elsewhere cannot be used to answer
// for an impostor. Only when the proof checks does the CLI send the token
// and its request, on the same connection; otherwise it works alone. A
// Unix socket is proved by its owner instead (another user cannot make
// one in the user's folders; a socket lore did not make is never used).

const helloPath = "/lore/v1/hello"

// warmProof is what a server holding token, listening on port, answers to
// nonce.
func warmProof(token, port, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("lore-warm-proof\x00" + port + "\x00" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// keyID names a token without revealing it.
func keyID(token string) string {
	sum := sha256.Sum256([]byte("lore-warm-key\x00" + token))
	return hex.EncodeToString(sum[:16])
}

// answerHello answers a proof request for the vault whose key it names;
// false when the request is not one.
func (f *front) answerHello(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != helloPath || r.Method != http.MethodGet {
		return false
	}
	q := r.URL.Query()
	nonce := q.Get("nonce")
	for _, t := range f.vaults {
		if keyID(t.token) == q.Get("key") && len(nonce) >= 32 && len(nonce) <= 128 {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(warmProof(t.token, f.port, nonce)))
			return true
		}
	}
	http.Error(w, "no such vault here", http.StatusNotFound)
	return true
}

// connGuard keeps room for clients that carry a token. Connections that
// have not yet sent a request with one (anonymous) are capped at
// maxAnonymous: a new one past that closes the oldest, so a flood of idle
// or refused connections never leaves a client with the token unable to
// connect, and never uses up the process's descriptors.
type connGuard struct {
	mu   sync.Mutex
	anon *list.List // of net.Conn, oldest first
	at   map[net.Conn]*list.Element
	max  int
}

// maxAnonymous is how many connections without a token a server keeps.
const maxAnonymous = 256

func newConnGuard(max int) *connGuard {
	return &connGuard{anon: list.New(), at: map[net.Conn]*list.Element{}, max: max}
}

// state follows http.Server's connection states.
func (g *connGuard) state(c net.Conn, s http.ConnState) {
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

func (g *connGuard) forget(c net.Conn) {
	if e, ok := g.at[c]; ok {
		g.anon.Remove(e)
		delete(g.at, c)
	}
}

// trusted marks the connection of a request that carried a token.
func (g *connGuard) trusted(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		g.mu.Lock()
		g.forget(c)
		g.mu.Unlock()
	}
}

type connKey struct{}

// connContext puts a request's connection in its context (for trusted).
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}
