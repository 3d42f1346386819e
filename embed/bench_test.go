package embed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkUSELite128 embeds passages that fill the model's 128 tokens, in
// groups of 32; passages/s = 32 / (ns/op / 1e9).
func BenchmarkUSELite128(b *testing.B) {
	m, err := LoadUSELite(modelDir(b))
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("retrieval fusion ranks candidates from lexical and vector stages then assembles fragments within a token budget for the agent while tracking deltas across calls so unchanged text is never sent twice")
	texts := make([]string, 32)
	for i := range texts {
		var sb strings.Builder
		for j := 0; j < 160; j++ {
			sb.WriteString(words[(i*7+j)%len(words)])
			sb.WriteByte(' ')
		}
		texts[i] = sb.String()
	}
	if n := len(m.tok.encode(texts[0])); n != MaxTokens {
		b.Fatalf("passage is %d tokens, want %d", n, MaxTokens)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(32*b.N)/b.Elapsed().Seconds(), "passages/s")
}

func BenchmarkUSELiteQuery(b *testing.B) {
	m, err := LoadUSELite(modelDir(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(context.Background(), []string{"how do we ship a new release of the app"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUSELiteShortQuery embeds queries of one to six words, as agents
// and people type them: a few tokens each, fewer rows than the kernels'
// 4- and 6-row tiles hold.
func BenchmarkUSELiteShortQuery(b *testing.B) {
	m, err := LoadUSELite(modelDir(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"retry", "retry budget", "retry budget sync", "deploy the service staging", "why did the backup job fail"} {
		b.Run(fmt.Sprintf("tokens=%d", len(m.tok.encode(q))), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := m.Embed(context.Background(), []string{q}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewTokenizer reads the installed vocab.json into the tokenizer,
// as every process that embeds does once.
func BenchmarkNewTokenizer(b *testing.B) {
	vb, err := os.ReadFile(filepath.Join(modelDir(b), "vocab.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := newTokenizer(vb); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadUSELite loads the model as a one-shot `lore activate` does
// before it can embed its query.
func BenchmarkLoadUSELite(b *testing.B) {
	dir := modelDir(b)
	for i := 0; i < b.N; i++ {
		if _, err := LoadUSELite(dir); err != nil {
			b.Fatal(err)
		}
	}
}
