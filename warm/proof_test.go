package warm

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestConnGuard_KeepsRoomForClientsWithTheToken: connections that sent no
// request with a token are capped; past the cap the oldest such connection
// is closed, so a flood never keeps a client with the token out, and a
// connection that carried the token is never closed by the cap.
func TestConnGuard_KeepsRoomForClientsWithTheToken(t *testing.T) {
	g := NewConnGuard(4)
	var server, client []net.Conn
	for i := 0; i < 6; i++ {
		s, c := net.Pipe()
		server, client = append(server, s), append(client, c)
	}
	g.State(server[0], http.StateNew)
	r, _ := http.NewRequestWithContext(ConnContext(context.Background(), server[0]), "GET", "/", nil)
	g.Trusted(r) // the first one sent the token
	for _, s := range server[1:] {
		g.State(s, http.StateNew)
	}
	closed := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		ne, timeout := err.(net.Error)
		return err != nil && !(timeout && ne.Timeout())
	}
	if closed(client[0]) {
		t.Error("the connection that carried the token was closed")
	}
	if !closed(client[1]) {
		t.Error("the oldest anonymous connection was kept past the cap")
	}
	for i := 2; i < 6; i++ {
		if closed(client[i]) {
			t.Errorf("anonymous connection %d was closed within the cap", i)
		}
	}
	g.State(server[3], http.StateClosed)
	if g.anon.Len() != 3 {
		t.Errorf("%d anonymous connections tracked after one closed; want 3", g.anon.Len())
	}
}
