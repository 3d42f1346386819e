package mcp

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The HTTP transport refuses, before any MCP handling: a request without
// the token (401), one naming another Host (DNS rebinding) or coming from
// another Origin (403), an unknown profile or an invalid project (400), and
// a message nested past the stdio limit (400, a JSON-RPC error); a request
// that passes gets an MCP answer.
func TestAttack_HTTPRefusesBeforeMCP(t *testing.T) {
	ts := newTestServer(t, "memory", map[string]string{"a.md": "# A\n\ntext\n"})
	var asked []string
	h := NewHTTPHandler(HTTPOptions{Token: strings.Repeat("t", 64), Port: "7411", Project: "api",
		New: func(project, profile string) (*Server, error) {
			asked = append(asked, project+"/"+profile)
			return ts.Server, nil
		}})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	do := func(target, host string, hdr map[string]string, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		r.Host = host
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	auth := map[string]string{"Authorization": "Bearer " + strings.Repeat("t", 64)}
	for _, c := range []struct {
		name, target, host string
		hdr                map[string]string
		body               string
		code               int
	}{
		{"no token", "/mcp", "127.0.0.1:7411", nil, init, 401},
		{"wrong token", "/mcp", "127.0.0.1:7411", map[string]string{"Authorization": "Bearer x"}, init, 401},
		{"another host", "/mcp", "evil.example:7411", auth, init, 403},
		{"another port", "/mcp", "127.0.0.1:80", auth, init, 403},
		{"another origin", "/mcp", "localhost:7411", map[string]string{"Authorization": auth["Authorization"], "Origin": "http://evil.example"}, init, 403},
		{"bad project", "/mcp?project=a..b", "127.0.0.1:7411", auth, init, 400},
		{"bad profile", "/mcp?profile=root", "127.0.0.1:7411", auth, init, 400},
		{"too deep", "/mcp", "127.0.0.1:7411", auth, strings.Repeat("[", 100) + strings.Repeat("]", 100), 400},
		{"other path", "/admin", "127.0.0.1:7411", auth, init, 404},
		{"allowed", "/mcp?project=web&profile=vault", "[::1]:7411", map[string]string{"Authorization": auth["Authorization"], "Origin": "http://localhost:7411"}, init, 200},
	} {
		w := do(c.target, c.host, c.hdr, c.body)
		if w.Code != c.code {
			t.Errorf("%s: %d %s; want %d", c.name, w.Code, strings.TrimSpace(w.Body.String()), c.code)
		}
	}
	if strings.Join(asked, ",") != "web/vault" {
		t.Errorf("servers made for %v; want only web/vault, for the one request let through", asked)
	}
}

// One server keeps at most maxBindings project and profile pairs: a token
// holder cannot make it grow without bound.
func TestAttack_HTTPBindingsAreBounded(t *testing.T) {
	ts := newTestServer(t, "memory", map[string]string{"a.md": "# A\n\ntext\n"})
	made := 0
	h := NewHTTPHandler(HTTPOptions{Token: "tok", Port: "7411", New: func(project, profile string) (*Server, error) {
		made++
		return ts.Server, nil
	}})
	get := func(project string) int {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		r := httptest.NewRequest(http.MethodPost, "/mcp?project="+project, strings.NewReader(init))
		r.Host = "127.0.0.1:7411"
		r.Header.Set("Authorization", "Bearer tok")
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := 0; i < maxBindings; i++ {
		if code := get(fmt.Sprintf("p%d", i)); code == http.StatusBadRequest {
			t.Fatalf("binding %d refused", i)
		}
	}
	if code := get("one-more"); code != http.StatusBadRequest || made != maxBindings {
		t.Errorf("binding %d: %d (servers made: %d); want 400 and %d made", maxBindings+1, code, made, maxBindings)
	}
	if code := get("p3"); code == http.StatusBadRequest {
		t.Errorf("a known binding was refused after the limit")
	}
}

// TestAttack_HTTPConnectionsAreNotHeld: a local process without the token
// opened 21,000 keep-alive connections, each sending one request that got
// 401 and then staying idle, and used up the server's descriptors; 200
// slow bodies with the token stayed open for more than 12 s. A refused
// request's connection is closed, and a body that does not arrive within
// the deadline closes its connection too.
func TestAttack_HTTPConnectionsAreNotHeld(t *testing.T) {
	ts := newTestServer(t, "memory", map[string]string{"a.md": "# A\n\ntext\n"})
	tok := strings.Repeat("t", 64)
	h := NewHTTPHandler(HTTPOptions{Token: tok, Port: "", Project: "api", BodyDeadline: 300 * time.Millisecond,
		New: func(project, profile string) (*Server, error) { return ts.Server, nil }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	closedAfter := func(req string) (string, bool) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte(req))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, err := io.ReadAll(c) // returns once the server closes the connection
		return string(b), err == nil
	}
	out, closed := closedAfter("GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	if !closed || !strings.Contains(out, "401") {
		t.Errorf("a refused request: %q, closed %v; want 401 and the connection closed", out, closed)
	}
	start := time.Now()
	out, closed = closedAfter("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + tok + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	if !closed || time.Since(start) > 4*time.Second {
		t.Errorf("a slow body with the token: %q, closed %v after %v; want it closed at the deadline", out, closed, time.Since(start))
	}
}

// TestAttack_HTTPSessionsExpire: 3,000 initializes never closed took a
// server from 21 to 60 MB. An idle session's state is dropped: its id is
// then unknown (404), and its client starts a new one.
func TestAttack_HTTPSessionsExpire(t *testing.T) {
	ts := newTestServer(t, "memory", map[string]string{"a.md": "# A\n\ntext\n"})
	tok := strings.Repeat("t", 64)
	h := NewHTTPHandler(HTTPOptions{Token: tok, Port: "", Project: "api", SessionIdle: time.Second,
		New: func(project, profile string) (*Server, error) { return ts.Server, nil }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(session, body string) *http.Response {
		r, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+tok)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session id")
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if resp := post(id, list); resp.StatusCode != 200 {
		t.Fatalf("a live session: %d", resp.StatusCode)
	}
	time.Sleep(2500 * time.Millisecond)
	if resp := post(id, list); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a session idle past its time: %d; want 404 (the client starts anew)", resp.StatusCode)
	}
}
