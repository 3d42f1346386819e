package embed

import (
	"context"
	"hash/fnv"
	"strings"
	"unicode"
)

// HashEmbedder is a deterministic stand-in model (lore bench, tests): each
// lower-cased word adds 1 to one of Dims buckets (by FNV hash), then the
// vector is normalized. Texts sharing words are near; it needs no weights.
type HashEmbedder struct {
	Dims int
}

// Name implements Embedder.
func (h *HashEmbedder) Name() string { return "test:hash" }

// Dim implements Embedder.
func (h *HashEmbedder) Dim() int { return h.Dims }

// Embed implements Embedder.
func (h *HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.Dims)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			f := fnv.New32a()
			f.Write([]byte(w))
			v[f.Sum32()%uint32(h.Dims)]++
		}
		Normalize(v)
		out[i] = v
	}
	return out, nil
}
