package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// HTTPConfig configures an embedding or rerank endpoint.
type HTTPConfig struct {
	Style     string // "openai" or "ollama" (embeddings); rerank ignores it
	Endpoint  string // base URL, e.g. http://127.0.0.1:11434
	Model     string
	Dimension int           // embeddings: required, checked on every answer
	APIKeyEnv string        // name of the environment variable holding a bearer token
	Timeout   time.Duration // per request; default 30 s
	Client    *http.Client  // default: a client with Timeout
}

// HTTPEmbedder calls an OpenAI-compatible /v1/embeddings or Ollama /api/embed.
type HTTPEmbedder struct{ cfg HTTPConfig }

// NewHTTPEmbedder checks the configuration.
func NewHTTPEmbedder(cfg HTTPConfig) (*HTTPEmbedder, error) {
	if cfg.Style != "openai" && cfg.Style != "ollama" {
		return nil, fmt.Errorf("embedding style %q: want openai or ollama", cfg.Style)
	}
	if cfg.Endpoint == "" || cfg.Model == "" || cfg.Dimension <= 0 {
		return nil, fmt.Errorf("%s embedding needs endpoint, model and dimension in lore.yaml", cfg.Style)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
	}
	return &HTTPEmbedder{cfg}, nil
}

// Name implements Embedder: style, endpoint and model, so a change re-embeds.
func (h *HTTPEmbedder) Name() string {
	return h.cfg.Style + ":" + h.cfg.Model + "@" + h.cfg.Endpoint
}

// Dim implements Embedder.
func (h *HTTPEmbedder) Dim() int { return h.cfg.Dimension }

// Embed implements Embedder.
func (h *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	url := strings.TrimRight(h.cfg.Endpoint, "/")
	var req any
	if h.cfg.Style == "openai" {
		if !strings.HasSuffix(url, "/embeddings") {
			url += "/v1/embeddings"
		}
		req = map[string]any{"model": h.cfg.Model, "input": texts}
	} else {
		if !strings.HasSuffix(url, "/api/embed") {
			url += "/api/embed"
		}
		req = map[string]any{"model": h.cfg.Model, "input": texts}
	}
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := postJSON(ctx, h.cfg, url, req, &resp); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	if h.cfg.Style == "openai" {
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(texts) {
				return nil, fmt.Errorf("embedding endpoint %s returned index %d for %d inputs", url, d.Index, len(texts))
			}
			out[d.Index] = d.Embedding
		}
	} else {
		if len(resp.Embeddings) != len(texts) {
			return nil, fmt.Errorf("embedding endpoint %s returned %d vectors for %d inputs", url, len(resp.Embeddings), len(texts))
		}
		copy(out, resp.Embeddings)
	}
	for i, v := range out {
		if len(v) != h.cfg.Dimension {
			return nil, fmt.Errorf("embedding endpoint %s returned a vector of dimension %d for input %d; lore.yaml says %d", url, len(v), i, h.cfg.Dimension)
		}
		Normalize(v)
	}
	return out, nil
}

// postJSON posts req and decodes the answer into resp; every failure names the URL.
func postJSON(ctx context.Context, cfg HTTPConfig, url string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", url, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if cfg.APIKeyEnv != "" {
		key := os.Getenv(cfg.APIKeyEnv)
		if key == "" {
			return fmt.Errorf("endpoint %s: environment variable %s (api_key_env) is empty", url, cfg.APIKeyEnv)
		}
		hr.Header.Set("Authorization", "Bearer "+key)
	}
	r, err := cfg.Client.Do(hr)
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", url, err)
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("endpoint %s: reading the answer: %w", url, err)
	}
	if r.StatusCode != http.StatusOK {
		return fmt.Errorf("endpoint %s: HTTP %d: %s", url, r.StatusCode, strings.TrimSpace(string(data[:min(len(data), 300)])))
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return fmt.Errorf("endpoint %s: answer is not the expected JSON: %w", url, err)
	}
	return nil
}

// Reranker scores documents against a query with a cross-encoder.
type Reranker interface {
	Name() string
	// Rerank returns one relevance score per document (higher is better).
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// HTTPReranker calls a /rerank endpoint in the Cohere/Jina style
// ({"results":[{"index","relevance_score"}]}) or the TEI style
// ([{"index","score"}]).
type HTTPReranker struct{ cfg HTTPConfig }

// NewHTTPReranker checks the configuration.
func NewHTTPReranker(cfg HTTPConfig) (*HTTPReranker, error) {
	if cfg.Endpoint == "" {
		return nil, fmt.Errorf("rerank needs an endpoint in lore.yaml")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
	}
	return &HTTPReranker{cfg}, nil
}

// Name implements Reranker.
func (h *HTTPReranker) Name() string { return "rerank:" + h.cfg.Model + "@" + h.cfg.Endpoint }

// Rerank implements Reranker.
func (h *HTTPReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	url := strings.TrimRight(h.cfg.Endpoint, "/")
	if !strings.HasSuffix(url, "/rerank") {
		url += "/rerank"
	}
	req := map[string]any{"query": query, "documents": docs, "texts": docs, "top_n": len(docs)}
	if h.cfg.Model != "" {
		req["model"] = h.cfg.Model
	}
	var raw json.RawMessage
	if err := postJSON(ctx, h.cfg, url, req, &raw); err != nil {
		return nil, err
	}
	type item struct {
		Index          int      `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
		Score          *float64 `json:"score"`
	}
	var items []item
	var wrapped struct {
		Results []item `json:"results"`
	}
	if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.Results != nil {
		items = wrapped.Results
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("rerank endpoint %s: answer has neither results[] nor a list", url)
	}
	scores := make([]float64, len(docs))
	seen := 0
	for _, it := range items {
		if it.Index < 0 || it.Index >= len(docs) {
			return nil, fmt.Errorf("rerank endpoint %s: index %d out of range", url, it.Index)
		}
		switch {
		case it.RelevanceScore != nil:
			scores[it.Index] = *it.RelevanceScore
		case it.Score != nil:
			scores[it.Index] = *it.Score
		default:
			return nil, fmt.Errorf("rerank endpoint %s: result %d has no score", url, it.Index)
		}
		seen++
	}
	if seen != len(docs) {
		return nil, fmt.Errorf("rerank endpoint %s scored %d of %d documents", url, seen, len(docs))
	}
	return scores, nil
}
