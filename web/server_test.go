package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lore-memory/lore/activity"
)

// TestGuard: loopback Host only, the token in a header (never a cookie),
// same-origin JSON writes.
func TestGuard(t *testing.T) {
	s := &Server{act: activity.New(activity.Homes{}, nil), token: "secret", port: "7411"}
	h := s.Handler()
	do := func(method, target, host string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, strings.NewReader("{}"))
		r.Host = host
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	tok := map[string]string{"X-Lore-Token": "secret"}
	for _, c := range []struct {
		name, method, target, host string
		hdr                        map[string]string
		want                       int
	}{
		{"no token", "GET", "/api/sessions", "127.0.0.1:7411", nil, 401},
		{"wrong token", "GET", "/api/sessions", "127.0.0.1:7411", map[string]string{"X-Lore-Token": "nope"}, 401},
		{"token", "GET", "/api/sessions", "127.0.0.1:7411", tok, 200},
		{"localhost", "GET", "/api/sessions", "localhost:7411", tok, 200},
		{"rebinding host", "GET", "/api/sessions", "evil.example:7411", tok, 403},
		{"other port", "GET", "/api/sessions", "127.0.0.1:9999", tok, 403},
		{"cross-origin write", "POST", "/api/drafts/merge", "127.0.0.1:7411", map[string]string{"X-Lore-Token": "secret", "Content-Type": "application/json", "Origin": "http://evil.example"}, 403},
		{"form post", "POST", "/api/drafts/merge", "127.0.0.1:7411", map[string]string{"X-Lore-Token": "secret", "Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"the page needs no token", "GET", "/", "127.0.0.1:7411", nil, 200},
		{"the page on a rebinding host", "GET", "/", "evil.example:7411", nil, 403},
		// A cookie is no credential: a browser sends it to every port of
		// the host, so another local server could replay it.
		{"a cookie alone", "GET", "/api/sessions", "127.0.0.1:7411", map[string]string{"Cookie": "lore_token=secret"}, 401},
		{"a cookie alone merges nothing", "POST", "/api/drafts/merge", "127.0.0.1:7411", map[string]string{"Cookie": "lore_token=secret", "Content-Type": "application/json"}, 401},
	} {
		w := do(c.method, c.target, c.host, c.hdr)
		if w.Code != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, w.Code, c.want, w.Body.String())
		}
		if w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS header sent", c.name)
		}
	}
	for _, target := range []string{"/?token=secret", "/"} {
		if c := do("GET", target, "127.0.0.1:7411", nil).Result().Cookies(); len(c) != 0 {
			t.Fatalf("GET %s set cookies %+v; the token is never a cookie", target, c)
		}
	}
	if w := do("GET", "/static/app.js", "127.0.0.1:7411", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "Retrieval Process") {
		t.Fatalf("embedded assets: %d", w.Code)
	}
}
