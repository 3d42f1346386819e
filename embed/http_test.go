package embed

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHTTPEmbedder(t *testing.T) {
	var gotAuth atomic.Value // the handler runs on the server's goroutines
	gotAuth.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth.Store(r.Header.Get("Authorization"))
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		vec := func(i int) []float32 { return []float32{float32(i + 1), 0, 0} }
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []map[string]any
			for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
				data = append(data, map[string]any{"index": i, "embedding": vec(i)})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		case "/api/embed":
			var out [][]float32
			for i := range req.Input {
				out = append(out, vec(i))
			}
			json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
		case "/wrongdim/v1/embeddings":
			json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"index": 0, "embedding": []float32{1, 2}}}})
		case "/slow/v1/embeddings":
			time.Sleep(300 * time.Millisecond)
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	t.Setenv("TEST_KEY", "secret")
	for _, style := range []string{"openai", "ollama"} {
		e, err := NewHTTPEmbedder(HTTPConfig{Style: style, Endpoint: srv.URL, Model: "m", Dimension: 3, APIKeyEnv: "TEST_KEY"})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.Embed(context.Background(), []string{"a", "b"})
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		if vs[0][0] != 1 || vs[1][0] != 1 || len(vs[1]) != 3 || gotAuth.Load() != "Bearer secret" {
			t.Errorf("%s: vectors %v (want normalized, in input order), auth %q", style, vs, gotAuth.Load())
		}
	}
	for name, cfg := range map[string]HTTPConfig{
		"wrong dimension": {Style: "openai", Endpoint: srv.URL + "/wrongdim", Model: "m", Dimension: 3},
		"timeout":         {Style: "openai", Endpoint: srv.URL + "/slow", Model: "m", Dimension: 3, Timeout: 50 * time.Millisecond},
		"down":            {Style: "openai", Endpoint: "http://127.0.0.1:1", Model: "m", Dimension: 3},
		"404":             {Style: "ollama", Endpoint: srv.URL + "/nothing", Model: "m", Dimension: 3},
	} {
		e, _ := NewHTTPEmbedder(cfg)
		_, err := e.Embed(context.Background(), []string{"a"})
		if err == nil || !strings.Contains(err.Error(), strings.TrimRight(cfg.Endpoint, "/")) {
			t.Errorf("%s: err = %v, want an error naming the endpoint", name, err)
		}
	}
}

func TestHTTPReranker(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if strings.HasPrefix(r.URL.Path, "/tei") {
			var out []map[string]any
			for i, d := range req.Documents {
				out = append(out, map[string]any{"index": i, "score": float64(len(d))})
			}
			json.NewEncoder(w).Encode(out)
			return
		}
		var res []map[string]any
		for i, d := range req.Documents {
			res = append(res, map[string]any{"index": i, "relevance_score": float64(len(d))})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": res})
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/tei"} {
		r, _ := NewHTTPReranker(HTTPConfig{Endpoint: base})
		s, err := r.Rerank(context.Background(), "q", []string{"a", "abc"})
		if err != nil || s[0] != 1 || s[1] != 3 {
			t.Errorf("%s: scores %v, %v", base, s, err)
		}
	}
}

func TestFetch_RefusesWrongChecksum(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/bad.tgz"
	if err := writeFile(bad, "not the model"); err != nil {
		t.Fatal(err)
	}
	target := dir + "/model"
	err := Fetch(context.Background(), target, bad, nil)
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v, want a checksum refusal", err)
	}
	if _, err := LoadUSELite(target); err == nil {
		t.Errorf("a refused tarball left a model behind")
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }

func TestBuiltin_RetriesAfterWeightsArrive(t *testing.T) {
	dir := t.TempDir()
	b := &Builtin{Dir: dir}
	_, err := b.Embed(context.Background(), []string{"x"})
	var nr *NotReadyError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "lore model fetch") {
		t.Fatalf("err = %v, want a NotReadyError saying to run lore model fetch", err)
	}
	src, err := DefaultModelDir()
	if err != nil {
		t.Skip(err)
	}
	files, _ := os.ReadDir(src)
	if len(files) == 0 {
		t.Skip("no installed model to copy")
	}
	for _, f := range files {
		data, _ := os.ReadFile(src + "/" + f.Name())
		os.WriteFile(dir+"/"+f.Name(), data, 0o644)
	}
	if _, err := b.Embed(context.Background(), []string{"x"}); err != nil {
		t.Errorf("after the weights arrived: %v", err)
	}
}
