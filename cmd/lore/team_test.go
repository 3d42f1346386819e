package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/internal/testvault"
)

// teammate is one person of a team: their own HOME and config folder,
// their git identity, their clone of the vault and a code folder bound to
// it.
type teammate struct {
	t                 *testing.T
	name              string
	home, vault, code string
}

func newTeammate(t *testing.T, name, url string) *teammate {
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	p := &teammate{t: t, name: name, home: filepath.Join(base, "home"), vault: filepath.Join(base, "vault"), code: filepath.Join(base, "code")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(filepath.Join(p.home, ".gitconfig"), []byte("[user]\n\tname = "+name+"\n\temail = "+name+"@localhost\n"), 0o644)
	p.git(base, "clone", "-q", url, p.vault)
	testvault.Repo(t, p.code, map[string]string{"main.go": "package main\n"})
	if out, ok := p.lore(p.code, "bind", "--vault", p.vault, "--project", "api"); !ok {
		t.Fatal(out)
	}
	return p
}

// env is the person's environment: their HOME (and so their git identity,
// from its .gitconfig), nothing of the test process's git identity.
func (p *teammate) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_AUTHOR_") && !strings.HasPrefix(kv, "GIT_COMMITTER_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+p.home, "XDG_CONFIG_HOME="+filepath.Join(p.home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"LORE_VAULT=", "LORE_PROJECT=", "LORE_NO_SERVER=1")
}

func (p *teammate) git(dir string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, p.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("%s: git %v: %v\n%s", p.name, args, err, out)
	}
	return string(out)
}

func (p *teammate) lore(dir string, args ...string) (string, bool) {
	p.t.Helper()
	cmd := exec.Command(binary(p.t), args...)
	cmd.Dir, cmd.Env = dir, p.env()
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (p *teammate) must(args ...string) string {
	p.t.Helper()
	out, ok := p.lore(p.code, args...)
	if !ok {
		p.t.Fatalf("%s: lore %v:\n%s", p.name, args, out)
	}
	return out
}

// seededRemote is a bare remote served by git daemon on loopback, holding
// one commit of files on main; it returns the remote's URL and folder.
func seededRemote(t *testing.T, files map[string]string) (url, bare string) {
	t.Helper()
	d, bare := testvault.Remote(t, "vault.git")
	seed := testvault.Committed(t, files)
	testvault.Git(t, seed, "remote", "add", "origin", d.URL("vault.git"))
	testvault.Git(t, seed, "push", "-q", "origin", "main")
	return d.URL("vault.git"), bare
}

// Two people on two clones run the loop with lore commands alone, over a
// remote served by git daemon: alice's agent stores, alice syncs; bob
// syncs and lists her Draft (project, author, where it came from, age,
// sync state), diffs it and merges it (which publishes it); alice syncs,
// the note comes in by name and author, her Draft is retired, and her
// agent's activate gets the merged text. A note bob edits by hand reaches
// alice's running agent session: its next prompt's hook gets it replaced.
func TestTeam_TheLoopWithLoreCommandsAlone(t *testing.T) {
	url, bare := seededRemote(t, map[string]string{
		"lore.yaml":        "embedding: {provider: none}\nprojects: {api: {}}\n",
		"LORE.md":          "# Guidelines\n\nKeep notes short.\n",
		"howto/release.md": "---\nid: mem_release\n---\n# Release\n\nRun the tests first.\n",
	})
	alice, bob := newTeammate(t, "alice", url), newTeammate(t, "bob", url)

	// alice's agent session is running, its prompt hook has given it the
	// release note.
	hookPrompt := func() string {
		t.Helper()
		cmd := exec.Command(binary(t), "hook", "prompt", "--client", "claude")
		cmd.Dir, cmd.Env = alice.code, alice.env()
		cmd.Stdin = strings.NewReader(`{"session_id":"running","hook_event_name":"UserPromptSubmit","prompt":"what do I run before the release?"}`)
		out, _ := cmd.Output()
		return string(out)
	}
	if out := hookPrompt(); !strings.Contains(out, "[add] howto/release.md") {
		t.Fatalf("alice's first prompt:\n%s", out)
	}
	var stored struct {
		DraftID string `json:"draft_id"`
	}
	out := alice.must("store", "create", "--json", "--path", "howto/deploy.md", "--body", "# Deploy\n\nFlip the blue-green switch after the smoke tests.\n")
	if err := json.Unmarshal([]byte(out), &stored); err != nil || stored.DraftID == "" {
		t.Fatalf("store: %v\n%s", err, out)
	}
	if out := alice.must("sync"); !strings.Contains(out, "pushed 1") {
		t.Fatalf("alice's sync:\n%s", out)
	}
	if out := bob.must("sync"); !strings.Contains(out, "teammates' Drafts new here: "+stored.DraftID) {
		t.Fatalf("bob's sync:\n%s", out)
	}
	list := bob.must("drafts", "list")
	for _, want := range []string{"AUTHOR", "FROM", "SYNC", "AGE", "api", "howto/deploy.md", "alice", "synced"} {
		if !strings.Contains(list, want) {
			t.Errorf("bob's drafts list lacks %q:\n%s", want, list)
		}
	}
	diff := bob.must("drafts", "diff", stored.DraftID)
	if !strings.Contains(diff, "+Flip the blue-green switch") {
		t.Fatalf("bob's diff:\n%s", diff)
	}
	var shown struct {
		Head string `json:"head"`
	}
	json.Unmarshal([]byte(bob.must("drafts", "show", stored.DraftID, "--json")), &shown)
	merged := bob.must("drafts", "merge", stored.DraftID, "--head", shown.Head[:12])
	if !strings.Contains(merged, "merged 1 Draft") || !strings.Contains(merged, "org ref: pushed") {
		t.Fatalf("bob's merge:\n%s", merged)
	}
	if out := testvault.Git(t, bare, "branch", "--list", "drafts/*"); out != "" {
		t.Fatalf("the Draft's branch is left on the remote:\n%s", out)
	}
	out = alice.must("sync")
	if !strings.Contains(out, "howto/deploy.md (alice)") || !strings.Contains(out, "retired") {
		t.Fatalf("alice's sync after bob's merge:\n%s", out)
	}
	if l := alice.must("drafts", "list"); !strings.Contains(l, "no open Drafts") {
		t.Fatalf("alice's list:\n%s", l)
	}
	if act := alice.must("activate", "blue-green switch smoke tests"); !strings.Contains(act, "Flip the blue-green switch") || strings.Contains(act, "Draft drf_") {
		t.Fatalf("alice's activate:\n%s", act)
	}
	// bob edits the release note by hand, commits and syncs; after alice's
	// sync her running session's next prompt gets it as replaced.
	rel := filepath.Join(bob.vault, "howto", "release.md")
	data, _ := os.ReadFile(rel)
	os.WriteFile(rel, []byte(strings.Replace(string(data), "Run the tests first.", "Run the tests and the linter first.", 1)), 0o644)
	bob.must("commit")
	if out := bob.must("sync"); !strings.Contains(out, "org ref: pushed") {
		t.Fatalf("bob's sync of his edit:\n%s", out)
	}
	if out := alice.must("sync"); !strings.Contains(out, "howto/release.md (bob)") {
		t.Fatalf("alice's sync of bob's edit:\n%s", out)
	}
	if out := hookPrompt(); !strings.Contains(out, "[replace] howto/release.md") || !strings.Contains(out, "and the linter") {
		t.Fatalf("the running session's next prompt:\n%s", out)
	}
	if got, want := strings.TrimSpace(alice.git(alice.vault, "rev-parse", "main")), strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "main")); got != want {
		t.Fatalf("alice's main %s, the remote's %s", got, want)
	}
}

// A running lore mcp fetches by itself (fetch_every_seconds): a Draft bob
// syncs reaches alice's vault while her agent's server runs, with no
// command of hers.
func TestTeam_ARunningServerFetchesTeammatesDrafts(t *testing.T) {
	url, _ := seededRemote(t, map[string]string{
		"lore.yaml":        "embedding: {provider: none}\nprojects: {api: {}}\nfetch_every_seconds: 1\n",
		"howto/release.md": "---\nid: mem_release\n---\n# Release\n\nRun the tests first.\n",
	})
	alice, bob := newTeammate(t, "alice", url), newTeammate(t, "bob", url)
	server := exec.Command(binary(t), "mcp")
	server.Dir, server.Env = alice.code, alice.env()
	stdin, err := server.StdinPipe() // held open: the server serves until it closes
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); server.Process.Kill(); server.Wait() })

	var stored struct {
		DraftID string `json:"draft_id"`
	}
	json.Unmarshal([]byte(bob.must("store", "create", "--json", "--path", "howto/rollback.md", "--body", "# Rollback\n\nRun make rollback.\n")), &stored)
	bob.must("sync")
	for i := 0; ; i++ {
		if out := alice.must("drafts", "list"); strings.Contains(out, "howto/rollback.md") && strings.Contains(out, "bob") {
			break
		}
		if i == 150 {
			t.Fatalf("bob's Draft %s did not reach alice's running server in 15 s:\n%s", stored.DraftID, alice.must("drafts", "list"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Both sides changed the same line and the person asks lore sync --merge
// to join them: it printed two instructions that contradict each other
// ("merge with git" and "run lore sync --merge") and exited 0, though
// nothing was merged. It now exits non-zero with one instruction.
func TestAttack_SyncMergeThatMergesNothingFails(t *testing.T) {
	url, bare := seededRemote(t, map[string]string{
		"lore.yaml":        "embedding: {provider: none}\nprojects: {api: {}}\n",
		"howto/release.md": "---\nid: mem_release\n---\n# Release\n\nRun the tests first.\n",
	})
	alice, bob := newTeammate(t, "alice", url), newTeammate(t, "bob", url)
	edit := func(p *teammate, line string) {
		rel := filepath.Join(p.vault, "howto", "release.md")
		data, _ := os.ReadFile(rel)
		os.WriteFile(rel, []byte(strings.Replace(string(data), "Run the tests first.", line, 1)), 0o644)
		p.must("commit")
	}
	edit(bob, "Run the tests and the linter first.")
	bob.must("sync")
	edit(alice, "Run the tests and the fuzzers first.")
	before := strings.TrimSpace(alice.git(alice.vault, "rev-parse", "main"))
	out, ok := alice.lore(alice.code, "sync", "--merge")
	if ok {
		t.Fatalf("lore sync --merge merged nothing and exited 0:\n%s", out)
	}
	if strings.Count(out, "lore sync --merge to join") > 0 || strings.Count(out, "with git") != 1 {
		t.Errorf("want exactly one instruction (merge with git), got:\n%s", out)
	}
	if !strings.Contains(out, "howto/release.md") {
		t.Errorf("the clash is not named:\n%s", out)
	}
	if after := strings.TrimSpace(alice.git(alice.vault, "rev-parse", "main")); after != before {
		t.Errorf("alice's main moved: %s → %s", before, after)
	}
	if got := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "main")); got == before {
		t.Error("alice's side reached the remote")
	}
}

// TestAttack_ProvenanceIsWhatThisMachineLogged: a teammate's commit that
// carries the person's name and `Lore-Host: <this machine>` was listed as
// the person's, "vm (here)", and its PATH column showed the trailer's path
// while the Draft changed a rule note. "(here)" now comes from this
// machine's outbox alone, and PATH from the paths the commits change.
func TestAttack_ProvenanceIsWhatThisMachineLogged(t *testing.T) {
	url, _ := seededRemote(t, map[string]string{
		"lore.yaml":             "embedding: {provider: none}\nprojects: {api: {}}\n",
		"howto/release.md":      "---\nid: mem_release\n---\n# Release\n\nRun the tests first.\n",
		"decisions/0001-cfg.md": "---\nid: mem_cfg\nguard:\n  - deny: 'os.Getenv'\n    severity: error\n    message: read config through cfg\n---\n# Config\n\nRead config through cfg.\n",
	})
	alice, mallory := newTeammate(t, "alice", url), newTeammate(t, "mallory", url)
	alice.must("store", "create", "--path", "notes/mine.md", "--body", "# Mine\n\nalice's own\n")
	// mallory's commit claims to be alice's, from alice's machine (the
	// same host name here), names notes/typos.md and rewrites the rule.
	host, _ := os.Hostname()
	mallory.git(mallory.vault, "checkout", "-q", "-b", "drafts/api/drf_01JZZZZZZZZZZZZZZZZZZZZZZZ")
	os.MkdirAll(filepath.Join(mallory.vault, "notes"), 0o755)
	os.WriteFile(filepath.Join(mallory.vault, "notes", "typos.md"), []byte("# Typos\n\nfixed\n"), 0o644)
	os.WriteFile(filepath.Join(mallory.vault, "decisions", "0001-cfg.md"), []byte("---\nid: mem_cfg\nguard:\n  - deny: 'never-matches'\n    severity: warning\n---\n# Config\n"), 0o644)
	mallory.git(mallory.vault, "add", "-A")
	mallory.git(mallory.vault, "-c", "user.name=alice", "-c", "user.email=alice@localhost", "commit", "-q", "-m",
		"lore create notes/typos.md\n\nLore-Draft: drf_01JZZZZZZZZZZZZZZZZZZZZZZZ\nLore-Operation: create\nLore-Operation-Id: lop_01JZZZZZZZZZZZZZZZZZZZZZZZ\nLore-Resource: mem_typos\nLore-Path: notes/typos.md\nLore-Project: api\nLore-Host: "+drafts.HostName()+"\n")
	mallory.git(mallory.vault, "push", "-q", "origin", "drafts/api/drf_01JZZZZZZZZZZZZZZZZZZZZZZZ")
	alice.must("sync")
	list := alice.must("drafts", "list")
	var forged, own string
	for _, l := range strings.Split(list, "\n") {
		switch {
		case strings.HasPrefix(l, "drf_01JZZZ"):
			forged = l
		case strings.Contains(l, "notes/mine.md"):
			own = l
		}
	}
	if forged == "" || own == "" {
		t.Fatalf("lore drafts list:\n%s", list)
	}
	if strings.Contains(forged, "(here)") || !strings.Contains(forged, "not made here") {
		t.Errorf("the forged Draft is listed as made here (host %s):\n%s", host, forged)
	}
	if !strings.Contains(forged, "decisions/0001-cfg.md") {
		t.Errorf("the forged Draft's PATH hides the rule note it changes:\n%s", forged)
	}
	if !strings.Contains(own, "(here)") {
		t.Errorf("alice's own Draft is not listed as made here:\n%s", own)
	}
	var shown struct {
		MadeHere bool `json:"made_here"`
	}
	json.Unmarshal([]byte(alice.must("drafts", "show", "--json", "drf_01JZZZZZZZZZZZZZZZZZZZZZZZ")), &shown)
	if shown.MadeHere {
		t.Error("drafts show --json says made_here for the forged Draft")
	}
}
