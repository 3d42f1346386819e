package embed

import (
	"context"
	"fmt"
	"sync"

	"github.com/lore-memory/lore/vault"
)

// FromConfig returns the embedder lore.yaml asks for: the built-in model
// (default; loaded on first use from modelDir), an HTTP endpoint, or nil for
// provider "none".
func FromConfig(c vault.EmbeddingConfig, modelDir string) (Embedder, error) {
	switch c.Provider {
	case "none":
		return nil, nil
	case "", "builtin":
		return &Builtin{Dir: modelDir}, nil
	case "openai", "ollama":
		return NewHTTPEmbedder(HTTPConfig{Style: c.Provider, Endpoint: c.Endpoint, Model: c.Model, Dimension: c.Dimension, APIKeyEnv: c.APIKeyEnv})
	}
	return nil, fmt.Errorf("embedding provider %q is unknown", c.Provider)
}

// RerankerFromConfig returns the reranker lore.yaml asks for, or nil.
func RerankerFromConfig(c vault.RerankConfig) (Reranker, error) {
	if c.Endpoint == "" {
		return nil, nil
	}
	return NewHTTPReranker(HTTPConfig{Endpoint: c.Endpoint, Model: c.Model, APIKeyEnv: c.APIKeyEnv})
}

// Builtin is the built-in model, loaded from Dir on first use. Its name and
// dimension are known before loading, so the index can be prepared without
// the weights.
type Builtin struct {
	Dir string
	mu  sync.Mutex
	m   *USELite
}

// Name implements Embedder.
func (b *Builtin) Name() string { return USELiteName }

// Dim implements Embedder.
func (b *Builtin) Dim() int { return 512 }

// Ready loads the model if needed and reports why it cannot run, if so. A
// failed load is tried again on the next call, so a long-running process picks
// up weights that `lore model fetch` installed after it started.
func (b *Builtin) Ready() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m != nil {
		return nil
	}
	m, err := LoadUSELite(b.Dir)
	if err != nil {
		return err
	}
	b.m = m
	return nil
}

// Embed implements Embedder; with the weights missing it returns a
// *NotReadyError that says to run `lore model fetch`.
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := b.Ready(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	m := b.m
	b.mu.Unlock()
	return m.Embed(ctx, texts)
}
