package vault_test

import (
	"fmt"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

func BenchmarkScan10k(b *testing.B) {
	root := b.TempDir()
	testvault.Git(b, root, "init", "-q")
	for i := 0; i < 10000; i++ {
		testvault.Write(b, root, fmt.Sprintf("d%03d/note-%05d.md", i/100, i), "# x\n")
	}
	v, err := vault.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		files, _, err := v.Scan()
		if err != nil || len(files) != 10000 {
			b.Fatal(len(files), err)
		}
	}
}
