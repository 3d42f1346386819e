package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
)

// TestAttack_SymlinkedNotes: a merged Draft's symlinks served a private
// diary and another project's note to project api, through search and
// load (the diary even lost its id to the link); a real ADR folder's
// README.md -> index.md links were indexed as notes of their own (one
// search returned a section several times); an agent's edit through a
// link replaced the link with a file while the diff showed a one-line
// edit; and a Draft adding a link showed as a one-line note.
//
// A link to a note is now another name of that note: indexed once, under
// the target's path and visibility; a load by the link's name gives the
// target if the project sees it; an edit through a link edits the target;
// and a diff says "symlink to".
func TestAttack_SymlinkedNotes(t *testing.T) {
	base := t.TempDir()
	v := filepath.Join(base, "vault")
	testvault.Repo(t, v, map[string]string{
		"lore.yaml":                   "embedding: {provider: none}\nprojects: {api: {}, payments: {}}\n",
		"journal/alice/api/diary.md":  "---\nid: mem_diary\n---\n# Diary\n\nprivate diary zebra thoughts\n",
		"projects/payments/secret.md": "---\nid: mem_pay\n---\n# Payments secret\n\nonly payments sees the walrus rotation\n",
		"adr/0001/index.md":           "---\nid: mem_adr1\n---\n# ADR 1\n\nThe ledger keeps its rows in postgres.\n",
		"adr/0002/index.md":           "---\nid: mem_adr2\n---\n# ADR 2\n\nQueues are drained by one worker.\n",
		"notes/readme-for-links.md":   "# Links\n\nsee the ADR folders\n",
	})
	for link, to := range map[string]string{
		"notes/diary.md":     "../journal/alice/api/diary.md",
		"notes/pay.md":       "../projects/payments/secret.md",
		"adr/0001/README.md": "index.md",
		"adr/0002/README.md": "index.md",
	} {
		if err := os.Symlink(to, filepath.Join(v, filepath.FromSlash(link))); err != nil {
			t.Fatalf("symlinks are needed for this test: %v", err)
		}
	}
	testvault.Git(t, v, "add", "-A")
	testvault.Git(t, v, "commit", "-qm", "links")
	cfg := t.TempDir()
	lore := func(project string, args ...string) (string, bool) {
		t.Helper()
		return loreIn(t, v, cfg, append([]string{"--vault", v, "--project", project}, args...)...)
	}

	// Visibility follows the target.
	for q, leak := range map[string]string{"zebra": "diary", "walrus": "walrus"} {
		if out, _ := lore("api", "search", q); strings.Contains(out, leak) {
			t.Errorf("project api's search %q shows what its link points to:\n%s", q, out)
		}
	}
	if out, ok := lore("api", "load", "notes/pay.md"); ok || strings.Contains(out, "walrus") {
		t.Errorf("project api loads another project's note through a link:\n%s", out)
	}
	if out, ok := lore("api", "load", "notes/diary.md"); ok || strings.Contains(out, "zebra") {
		t.Errorf("project api loads a diary through a link:\n%s", out)
	}
	if out, ok := lore("payments", "load", "notes/pay.md"); !ok || !strings.Contains(out, "path: projects/payments/secret.md") {
		t.Errorf("project payments' load through the link does not give the note under its own path:\n%s", out)
	}
	if out, ok := lore("api", "load", "mem_diary"); ok || strings.Contains(out, "zebra") {
		t.Errorf("the diary is reachable by its id:\n%s", out)
	}
	// A note keeps its id: the link does not take it.
	if out, ok := lore("payments", "load", "mem_pay"); !ok || !strings.Contains(out, "path: projects/payments/secret.md") {
		t.Errorf("the payments note's id does not load the note under its own path:\n%s", out)
	}
	// One note under several names is indexed once.
	out, _ := lore("api", "search", "ledger rows postgres")
	if n := strings.Count(out, "postgres"); n != 1 || strings.Contains(out, "README.md") {
		t.Errorf("the ADR shows %d times (or under its link's name):\n%s", n, out)
	}
	// An edit through a link edits the target.
	loaded, _ := lore("api", "load", "adr/0001/README.md")
	hash := regexp.MustCompile(`sha256:[0-9a-f]+`).FindString(loaded)
	if !strings.Contains(loaded, "path: adr/0001/index.md") || hash == "" {
		t.Fatalf("load through the link:\n%s", loaded)
	}
	stored, ok := lore("api", "store", "update", "--id", "adr/0001/README.md", "--expected-hash", hash, "--old", "postgres", "--new", "sqlite")
	if !ok || !strings.Contains(stored, "update adr/0001/index.md") {
		t.Fatalf("an update through the link:\n%s", stored)
	}
	id := regexp.MustCompile(`drf_[0-9A-Z]+`).FindString(stored)
	if show := testvault.Git(t, v, "show", "--stat", "--format=", "drafts/api/"+id); strings.Contains(show, "README.md") || !strings.Contains(show, "adr/0001/index.md") {
		t.Errorf("the Draft's commit does not edit the target alone:\n%s", show)
	}
	// A Draft that adds a link says so in its diff.
	testvault.Git(t, v, "checkout", "-q", "-b", "drafts/api/drf_01JZZZZZZZZZZZZZZZZZZZZZZY")
	if err := os.Symlink("../journal/alice/api/diary.md", filepath.Join(v, "notes", "typos.md")); err != nil {
		t.Fatal(err)
	}
	testvault.Git(t, v, "add", "notes/typos.md")
	testvault.Git(t, v, "commit", "-qm", "lore create notes/typos.md\n\nLore-Draft: drf_01JZZZZZZZZZZZZZZZZZZZZZZY\nLore-Operation: create\nLore-Operation-Id: lop_01JZZZZZZZZZZZZZZZZZZZZZZY\nLore-Path: notes/typos.md\nLore-Project: api\n")
	testvault.Git(t, v, "checkout", "-q", "main")
	diff, _ := lore("api", "drafts", "diff", "drf_01JZZZZZZZZZZZZZZZZZZZZZZY")
	if !strings.Contains(diff, "notes/typos.md: new symlink to ../journal/alice/api/diary.md") {
		t.Errorf("the diff does not say the Draft adds a symlink:\n%s", diff)
	}
}
