package stale

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/internal/shareddata"
)

// Vaults that are not about lore's code, checked against lore's own
// repository as if their notes had been written halfway through its
// history (so everything lore's code had then, and lost or renamed since,
// would be marked if a note cited it): the demo vault and the ADR examples
// raise no broken citation. Every finding here would be a false alarm.
func TestCheck_NoFalseAlarmsOnVaultsNotAboutTheCode(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("skipped: the checkout is not a git repository (%v)", err)
	}
	code := strings.TrimSpace(string(top))
	dates, err := exec.Command("git", "-C", code, "log", "--first-parent", "--format=%cI", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Fields(string(dates))
	then := all[len(all)/2]
	vaults := map[string]string{"demo": filepath.Join(code, "testdata", "demo-vault")}
	if d, err := shareddata.Dir(); err == nil {
		dst := t.TempDir()
		if root, err := eval.ExtractArchive(filepath.Join(d, "data", "adr-examples", "adr-examples.tar.gz"), dst); err == nil {
			vaults["adr-examples"] = root
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if _, ok := vaults["adr-examples"]; !ok && os.Getenv("CI") != "" {
		t.Fatal("the ADR examples are not beside the checkout (../shared/data/adr-examples)")
	}
	for name, src := range vaults {
		v := &repo{t: t, dir: t.TempDir()}
		v.git("", "init", "-q", "-b", "main")
		if err := os.CopyFS(v.dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		v.git("", "add", "-A")
		v.gitEnv([]string{"GIT_AUTHOR_DATE=" + then, "GIT_COMMITTER_DATE=" + then}, "commit", "-qm", "notes")
		c, err := New(context.Background(), code, v.dir, "")
		if err != nil {
			t.Fatal(err)
		}
		var notes, citing, cites int
		filepath.WalkDir(v.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || d.Type()&fs.ModeSymlink != 0 {
				return nil
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(v.dir, p)
			rel = filepath.ToSlash(rel)
			notes++
			fs, n, err := c.checkNote(context.Background(), rel, raw)
			if n > 0 {
				citing++
				cites += n
			}
			if err != nil {
				t.Errorf("%s: %s: %v", name, rel, err)
			}
			for _, f := range broken(fs) {
				t.Errorf("%s: false alarm in %s: %s", name, rel, f.Sentence())
			}
			return nil
		})
		t.Logf("%s: %d notes, %d cite code (%d citations), against %s as of %s", name, notes, citing, cites, code, then)
		if citing == 0 {
			t.Errorf("%s: no note cites code: the test shows nothing", name)
		}
	}
}
