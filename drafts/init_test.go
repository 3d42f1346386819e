package drafts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
)

func TestInit_NewFolderGetsARepositoryAndAFirstCommit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "mine.md"), []byte("# Mine\n"), 0o644)
	res, err := Init(dir, false, func() time.Time { return time.Unix(1700000000, 0) })
	if err != nil {
		t.Fatal(err)
	}
	if !res.CreatedRepo || res.Committed != 3 || res.Notes != 2 || strings.Join(res.Wrote, ",") != "lore.yaml,LORE.md" {
		t.Errorf("result %+v", res)
	}
	// The git CLI sees what go-git wrote: branch main, one commit, clean tree.
	if b := strings.TrimSpace(testvault.Git(t, dir, "rev-parse", "--abbrev-ref", "HEAD")); b != "main" {
		t.Errorf("branch %q, want main", b)
	}
	if files := testvault.Git(t, dir, "ls-files"); !strings.Contains(files, "mine.md") || !strings.Contains(files, "LORE.md") {
		t.Errorf("committed files: %s", files)
	}
	if st := testvault.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("tree not clean after init: %s", st)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "mine.md"))
	if string(data) != "# Mine\n" {
		t.Errorf("init rewrote a person's file")
	}
}

func TestInit_AdoptsWithoutWritingOverAnything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testvault.Git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "lore.yaml"), []byte("org_ref: trunk\n"), 0o644)
	res, err := Init(dir, false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if res.CreatedRepo || res.Committed != 0 || strings.Join(res.Wrote, ",") != "LORE.md" {
		t.Errorf("result %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "lore.yaml")); string(data) != "org_ref: trunk\n" {
		t.Errorf("existing lore.yaml was changed: %q", data)
	}
}

func TestInitRepo_NestedOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	testvault.Git(t, top, "init", "-q")
	sub := filepath.Join(top, "sub")
	if created, err := InitRepo(sub, false); err != nil || created {
		t.Errorf("inside a repository: created %v, %v; want it to join", created, err)
	}
	if created, err := InitRepo(sub, true); err != nil || !created {
		t.Errorf("own repository: created %v, %v", created, err)
	}
	if created, _ := InitRepo(sub, true); created {
		t.Errorf("a second call created another repository")
	}
}

// Obsidian's per-device files (the open panes) were committed by lore init
// when the folder already had a .gitignore without them, though init named
// the lines to add. They are never in the first commit now; the person's
// own .gitignore is left as it was, and the lines are still named.
func TestInit_PerDeviceFilesAreNeverCommitted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(dir, ".obsidian", "workspace.json"), []byte(`{"main":{}}`), 0o644)
	os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.md"), []byte("# Mine\n"), 0o644)
	res, err := Init(dir, false, func() time.Time { return time.Unix(1700000000, 0) })
	if err != nil {
		t.Fatal(err)
	}
	files := testvault.Git(t, dir, "ls-files")
	if strings.Contains(files, "workspace.json") || !strings.Contains(files, ".obsidian/app.json") {
		t.Errorf("committed files:\n%s", files)
	}
	if len(res.Ignore) == 0 {
		t.Errorf("init no longer names the lines to add to .gitignore")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(data) != "*.tmp\n" {
		t.Errorf(".gitignore was changed: %q", data)
	}
}
