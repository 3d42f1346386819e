package guard

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// Uncommitted names, by vault path, the notes whose work tree differs from
// the org ref (edited, added), for a vault at a repository's top and for
// one that is a folder of a code repository; with the org branch checked
// out (one git status) and with another branch (compared with the org ref).
func TestUncommitted(t *testing.T) {
	for _, sub := range []string{"", "memory"} {
		root := t.TempDir()
		dir := filepath.Join(root, sub)
		files := map[string]string{"main.go": "package main\n"}
		for p, s := range map[string]string{"lore.yaml": "embedding: {provider: none}\n", "howto/a.md": "# A\n", "howto/b.md": "# B\n"} {
			files[filepath.ToSlash(filepath.Join(sub, p))] = s
		}
		testvault.Repo(t, root, files)
		testvault.Write(t, dir, "howto/a.md", "# A, edited\n")
		testvault.Write(t, dir, "howto/new.md", "# New\n")
		testvault.Write(t, root, "main.go", "package main // edited\n")
		v, err := vault.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			got, err := Uncommitted(context.Background(), v)
			if err != nil || len(got) != 2 || !got["howto/a.md"] || !got["howto/new.md"] {
				t.Errorf("%q, %s: %v %v", sub, when, got, err)
			}
		}
		check("on the org branch")
		testvault.Git(t, root, "checkout", "-q", "-b", "review")
		check("on another branch")
		v.Close()
	}
}
