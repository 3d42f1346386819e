package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
)

// smallFS mounts a tmpfs of size at a temporary folder for the length of
// the test, or skips it (mounting needs root; CI's container is).
func smallFS(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("skipped: cannot mount a small file system here (%v: %s); run as root", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// indexedVault puts the demo vault, indexed and activated once, in dir.
func indexedVault(t *testing.T, dir string) string {
	t.Helper()
	v := indexedOnly(t, dir)
	if out, ok := loreIn(t, v, t.TempDir(), "--vault", v, "--project", "api", "activate", "release"); !ok {
		t.Fatal(out)
	}
	return v
}

// indexedOnly puts the demo vault, indexed and never activated, in dir.
func indexedOnly(t *testing.T, dir string) string {
	t.Helper()
	v := filepath.Join(dir, "vault")
	demo, _ := filepath.Abs("../../testdata/demo-vault")
	sh(t, dir, "cp", "-R", demo, v)
	os.WriteFile(filepath.Join(v, "lore.yaml"), []byte("embedding: {provider: none}\nprojects: {api: {}}\n"), 0o644)
	testvault.Repo(t, v, nil)
	if out, ok := loreIn(t, v, t.TempDir(), "--vault", v, "index"); !ok {
		t.Fatal(out)
	}
	return v
}

// readsWork checks that search, load, activate and drafts list answer in
// the vault, and that a store is refused saying why.
func readsWork(t *testing.T, v, why string) {
	t.Helper()
	cfg := t.TempDir()
	for _, args := range [][]string{
		{"search", "release", "-n", "1"},
		{"load", "howto/release.md"},
		{"activate", "how do we ship a release"},
		{"drafts", "list"},
		{"doctor"},
	} {
		out, ok := loreIn(t, v, cfg, append([]string{"--vault", v, "--project", "api"}, args...)...)
		if args[0] == "doctor" {
			if !strings.Contains(out, "read-only:") {
				t.Errorf("doctor does not say the index is read-only:\n%s", out)
			}
			continue
		}
		if !ok || !strings.Contains(out, "release") && args[0] != "drafts" {
			t.Errorf("lore %s on a %s: %s", args[0], why, out)
		}
	}
	out, ok := loreIn(t, v, cfg, "--vault", v, "--project", "api", "store", "create", "--path", "notes/x.md", "--body", "# X\n")
	if ok || !strings.Contains(out, "cannot be written") {
		t.Errorf("store on a %s: %s; want it refused saying why", why, out)
	}
}

// TestAttack_AFullDiskStillReads: with the disk full (an agent's offloads
// filled it), activate failed writing its state, and lore search failed
// with "outbox.db: disk I/O error". Reads go on; writes say why they
// cannot.
func TestAttack_AFullDiskStillReads(t *testing.T) {
	fs := smallFS(t, "24m")
	v := indexedVault(t, fs)
	exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(fs, "fill"), "bs=1M", "count=64").Run()
	readsWork(t, v, "full disk")
}

// TestAttack_AFullDiskFirstActivation: on a full disk, the first activate
// of a vault that was never activated failed (it could not create what an
// activation keeps). It answers like any other read.
func TestAttack_AFullDiskFirstActivation(t *testing.T) {
	fs := smallFS(t, "24m")
	v := indexedOnly(t, fs)
	exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(fs, "fill"), "bs=1M", "count=64").Run()
	readsWork(t, v, "full disk, never activated")
}

// TestAttack_AReadOnlyVaultStillReads: on a file system remounted
// read-only, every command failed with "unable to open database file"
// although the index was there. Reads go on; writes say why they cannot.
func TestAttack_AReadOnlyVaultStillReads(t *testing.T) {
	fs := smallFS(t, "24m")
	v := indexedVault(t, fs)
	if out, err := exec.Command("mount", "-o", "remount,ro", fs).CombinedOutput(); err != nil {
		t.Skipf("skipped: cannot remount read-only: %v %s", err, out)
	}
	readsWork(t, v, "read-only file system")
}

// TestAttack_ADamagedIndexIsRebuilt: with index.db overwritten with
// garbage or cut in half, every command, lore index --rebuild included,
// answered "the index is damaged; run lore index --rebuild". The index is
// derived data: a damaged one is set aside and built anew by any command.
func TestAttack_ADamagedIndexIsRebuilt(t *testing.T) {
	v := indexedVault(t, t.TempDir())
	db := filepath.Join(v, ".git", "lore", "index.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, len(good))
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	for name, damage := range map[string][]byte{"garbage": garbage, "cut in half": good[:len(good)/2]} {
		for _, args := range [][]string{{"index", "--rebuild"}, {"search", "release"}, {"drafts", "list"}, {"doctor"}} {
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
			if err := os.WriteFile(db, damage, 0o644); err != nil {
				t.Fatal(err)
			}
			out, ok := loreIn(t, v, t.TempDir(), append([]string{"--vault", v}, args...)...)
			if !ok && args[0] != "doctor" || strings.Contains(out, "damaged; run") {
				t.Errorf("%s index, lore %s: %s", name, args[0], out)
			}
			if args[0] == "search" && !strings.Contains(out, "howto/release.md") {
				t.Errorf("%s index, search found nothing: %s", name, out)
			}
		}
		if _, err := os.Stat(db + ".damaged"); err != nil {
			t.Errorf("%s: the damaged index was not set aside: %v", name, err)
		}
	}
}
