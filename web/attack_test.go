package web

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/lore-memory/lore/activity"
)

// Half-open connections (a client that connects and sends nothing, or half
// a request) are dropped after the header time-out instead of held forever
// (900 stayed open before).
func TestAttack_HalfOpenConnectionsAreDropped(t *testing.T) {
	s := &Server{act: activity.New(activity.Homes{}, nil), token: "secret", headerTimeout: 200 * time.Millisecond}
	l, _, err := s.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx, l)
	for _, send := range []string{"", "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(send))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 1024)
		for {
			if _, err = c.Read(buf); err != nil {
				break
			}
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("sent %q: the server still held the connection after 10 s", send)
		}
		c.Close()
	}
}
