package vault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func BenchmarkScan10k(b *testing.B) {
	root := b.TempDir()
	exec.Command("git", "init", "-q", root).Run()
	for i := 0; i < 10000; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("note-%05d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("# x\n"), 0o644)
	}
	v, err := Open(root)
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

func BenchmarkParse4KB(b *testing.B) {
	data, err := os.ReadFile("../testdata/demo-vault/howto/release.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := Parse("howto/release.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
