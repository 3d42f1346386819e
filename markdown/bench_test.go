package markdown_test

import (
	"os"
	"testing"

	"github.com/lore-memory/lore/markdown"
)

func BenchmarkParse4KB(b *testing.B) {
	data, err := os.ReadFile("../testdata/demo-vault/howto/release.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := markdown.Parse("howto/release.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
