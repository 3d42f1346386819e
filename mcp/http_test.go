package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
