package embed

import (
	"testing"

	"github.com/lore-memory/lore/vault"
)

func TestFromConfig(t *testing.T) {
	if e, err := FromConfig(vault.EmbeddingConfig{Provider: "none"}, ""); e != nil || err != nil {
		t.Errorf("none: %v, %v; want no embedder", e, err)
	}
	if e, err := FromConfig(vault.EmbeddingConfig{}, "/nowhere"); err != nil || e.Name() != USELiteName || e.Dim() != 512 {
		t.Errorf("default: %v, %v; want the built-in model", e, err)
	}
	e, err := FromConfig(vault.EmbeddingConfig{Provider: "ollama", Endpoint: "http://127.0.0.1:11434", Model: "m", Dimension: 768}, "")
	if err != nil || e.Dim() != 768 || e.Name() != "ollama:m@http://127.0.0.1:11434" {
		t.Errorf("ollama: %v, %v", e, err)
	}
	if _, err := FromConfig(vault.EmbeddingConfig{Provider: "openai", Endpoint: "http://x"}, ""); err == nil {
		t.Errorf("openai without model and dimension: want an error")
	}
	if r, err := RerankerFromConfig(vault.RerankConfig{}); r != nil || err != nil {
		t.Errorf("no rerank endpoint: %v, %v; want none", r, err)
	}
}
