package main

// Reliability tests (issue "Reliability"): many writers, crashes, freshness
// through git. Short versions run in make test; -reliability.long (make
// reliability) runs the long ones. Each prints a summary line starting with
// "RELIABILITY |" that make reliability collects into a table.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/shareddata"
	"github.com/lore-memory/lore/internal/testvault"
)

var longRuns = flag.Bool("reliability.long", false, "run the long reliability tests")

var (
	buildOnce sync.Once
	loreBin   string
	buildErr  error
)

// binary builds lore once for the tests that run it as a separate process.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lore-bin-")
		if err != nil {
			buildErr = err
			return
		}
		loreBin = filepath.Join(dir, "lore")
		out, err := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", loreBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return loreBin
}

var testGitEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@localhost"}

func sh(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testGitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// demoVault copies the demo vault into a fresh repository, with the given
// projects, lexical only (the model is not the subject here).
func demoVault(t testing.TB, projects ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	demo, _ := filepath.Abs("../../testdata/demo-vault")
	sh(t, filepath.Dir(dir), "cp", "-R", demo, dir)
	cfg := "org_ref: main\nembedding: {provider: none}\nprojects:\n"
	for _, p := range projects {
		cfg += "  " + p + ": {}\n"
	}
	os.WriteFile(filepath.Join(dir, "lore.yaml"), []byte(cfg), 0o644)
	testvault.Repo(t, dir, nil)
	return dir
}

// mcpClient drives one `lore mcp` process with newline-delimited JSON-RPC.
type mcpClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startMCP(t testing.TB, vaultDir, project string) *mcpClient {
	t.Helper()
	return startMCPIn(t, "", append([]string{"LORE_VAULT=" + vaultDir, "LORE_PROJECT=" + project, "LORE_MCP_NO_EMBED=1"}, testGitEnv...))
}

// startMCPIn starts `lore mcp args…` in dir (the test's own folder when
// "") with env added, and initializes it.
func startMCPIn(t testing.TB, dir string, env []string, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &mcpClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "reliability", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *mcpClient) request(method string, params any) (json.RawMessage, error) {
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var r struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &r) != nil || r.ID != c.id {
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s", r.Error)
		}
		return r.Result, nil
	}
}

// memory calls the memory tool and returns its structured result.
func (c *mcpClient) memory(args any) (map[string]any, bool, error) {
	raw, err := c.request("tools/call", map[string]any{"name": "memory", "arguments": args})
	if err != nil {
		return nil, false, err
	}
	var r struct {
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	err = json.Unmarshal(raw, &r)
	return r.StructuredContent, r.IsError, err
}

func (c *mcpClient) close() {
	c.in.Close()
	c.cmd.Wait()
}

func summary(t *testing.T, name string, cols ...any) {
	parts := []string{"RELIABILITY", name}
	for _, c := range cols {
		parts = append(parts, fmt.Sprint(c))
	}
	t.Log(strings.Join(parts, " | "))
	fmt.Println(strings.Join(parts, " | "))
}

// TestReliabilityManyWriters: 16 lore mcp processes over 4 projects create,
// update one shared note with expected_hash, and activate on one vault for a
// while, while a person commits with git and lore index and lore index
// --rebuild run in a loop. Every acknowledged create's text and every
// acknowledged update's line must be in git's content (the project's Draft
// or the org ref), no load or update of the existing note may answer "not
// found", each project must see its notes, and git fsck must be clean.
func TestReliabilityManyWriters(t *testing.T) {
	procs, dur := 8, 4*time.Second
	if *longRuns {
		procs, dur = 16, 45*time.Second
	}
	if testing.Short() {
		procs, dur = 4, 2*time.Second
	}
	projects := []string{"api", "web", "ops", "docs"}
	dir := demoVault(t, projects...)
	sh(t, dir, binary(t), "--vault", dir, "index")
	type ack struct{ lop, project, path string }
	type line struct{ project, text string }
	var mu sync.Mutex
	var acks []ack
	var lines []line
	attempted, activations, updates, conflicts := 0, 0, 0, 0
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	errs := make(chan error, procs+2)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			project := projects[p%len(projects)]
			c := startMCP(t, dir, project)
			defer c.close()
			for i := 0; time.Now().Before(deadline); i++ {
				if i%4 == 2 {
					// An update of the shared note: load, then update with its
					// hash; a stale hash is retried, as an agent would.
					text := fmt.Sprintf("p%d-update-%d", p, i)
					for try := 0; ; try++ {
						res, isErr, err := c.memory(map[string]any{"op": map[string]any{"load": map[string]any{"ids": []string{"howto/release.md"}}}})
						if err != nil || isErr {
							errs <- fmt.Errorf("proc %d load of an existing note: %v %v", p, err, res)
							return
						}
						r := res["resources"].([]any)[0].(map[string]any)
						res, isErr, err = c.memory(map[string]any{"op": map[string]any{"store": map[string]any{"update": map[string]any{
							"id": r["resource_id"], "expected_hash": r["content_hash"],
							"replacements": []any{map[string]any{"old_text": "## Before the release\n", "new_text": "## Before the release\n\n" + text + "\n"}}}}}})
						if err == nil && isErr && strings.Contains(fmt.Sprint(res), "memory_content_changed") && try < 50 {
							mu.Lock()
							conflicts++
							mu.Unlock()
							continue
						}
						if err != nil || isErr {
							errs <- fmt.Errorf("proc %d update: %v %v", p, err, res)
							return
						}
						mu.Lock()
						updates++
						lines = append(lines, line{project, text})
						mu.Unlock()
						break
					}
					continue
				}
				if i%2 == 1 {
					if res, isErr, err := c.memory(map[string]any{"op": map[string]any{"activate": map[string]any{"query": "how do we release and sync"}}}); err != nil || isErr {
						errs <- fmt.Errorf("proc %d activate: %v %v", p, err, res)
						return
					}
					mu.Lock()
					activations++
					mu.Unlock()
					continue
				}
				path := fmt.Sprintf("notes/p%d-%d.md", p, i)
				mu.Lock()
				attempted++
				mu.Unlock()
				res, isErr, err := c.memory(map[string]any{"op": map[string]any{"store": map[string]any{"create": map[string]any{"path": path, "body": fmt.Sprintf("# Note %d of process %d\n\nunique words p%dn%d\n", i, p, p, i)}}}})
				if err != nil || isErr {
					errs <- fmt.Errorf("proc %d store: %v %v", p, err, res)
					return
				}
				mu.Lock()
				acks = append(acks, ack{res["local_operation_id"].(string), project, path})
				mu.Unlock()
			}
		}(p)
	}
	// A person commits, and lore index runs, at the same time.
	stop := make(chan struct{})
	var side sync.WaitGroup
	side.Add(2)
	go func() {
		defer side.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(dir, "notes", fmt.Sprintf("person-%d.md", i)), []byte(fmt.Sprintf("# Person %d\n", i)), 0o644)
			cmd := exec.Command("git", "-C", dir, "add", "-A", "notes")
			cmd.Run()
			cmd = exec.Command("git", "-C", dir, "commit", "-qm", fmt.Sprintf("person %d", i))
			cmd.Env = append(os.Environ(), testGitEnv...)
			if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "nothing to commit") {
				errs <- fmt.Errorf("person's commit: %v %s", err, out)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	go func() {
		defer side.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			args := []string{"--vault", dir, "index", "--no-embed"}
			if i%2 == 1 {
				args = append(args, "--rebuild")
			}
			cmd := exec.Command(binary(t), args...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("lore index: %v %s", err, out)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	side.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	// Present means the content is in a tree, not only a trailer in a log.
	present := 0
	for _, a := range acks {
		found := false
		for _, r := range strings.Fields(testvault.Git(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/drafts/"+a.project+"/")) {
			if out, err := exec.Command("git", "-C", dir, "show", r+":"+a.path).Output(); err == nil && strings.Contains(string(out), "unique words") {
				found = true
				break
			}
		}
		if found {
			present++
		} else {
			t.Errorf("acknowledged %s (%s %s) is not in any of the project's Draft trees", a.lop, a.project, a.path)
		}
	}
	// Every acknowledged update's line is in the shared note as its project
	// sees it (read through lore, which reads the Draft from git).
	kept := 0
	for _, project := range projects {
		out, err := exec.Command(binary(t), "--vault", dir, "--project", project, "load", "howto/release.md").CombinedOutput()
		if err != nil {
			t.Fatalf("load as %s: %v %s", project, err, out)
		}
		for _, l := range lines {
			if l.project != project {
				continue
			}
			if strings.Contains(string(out), l.text+"\n") {
				kept++
			} else {
				t.Errorf("acknowledged update %s of project %s was lost", l.text, project)
			}
		}
	}
	testvault.Git(t, dir, "fsck", "--strict", "--no-progress")
	// The index is consistent: each project loads its own notes and not the others'.
	for _, a := range acks[:min(len(acks), 40)] {
		out, err := exec.Command(binary(t), "--vault", dir, "--project", a.project, "load", a.path).CombinedOutput()
		if err != nil {
			t.Errorf("project %s cannot load its %s: %v %s", a.project, a.path, err, out)
		}
		other := projects[(indexOf(projects, a.project)+1)%len(projects)]
		if err := exec.Command(binary(t), "--vault", dir, "--project", other, "load", a.path).Run(); err == nil {
			t.Errorf("project %s sees %s's Draft %s", other, a.project, a.path)
		}
	}
	summary(t, "many writers", fmt.Sprintf("%d lore mcp processes, %d projects, %s, lore index and --rebuild looping", procs, len(projects), dur),
		fmt.Sprintf("creates attempted %d, acknowledged %d, present in a tree %d", attempted, len(acks), present),
		fmt.Sprintf("expected_hash updates acknowledged %d, kept %d (stale hashes retried %d)", updates, kept, conflicts),
		fmt.Sprintf("activations %d", activations), "git fsck clean")
}

// runKilled runs cmd and kills it with SIGKILL after d; it reports whether
// it finished first, and its output.
func runKilled(t *testing.T, cmd *exec.Cmd, d time.Duration) (bool, string) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err == nil, out.String()
	case <-time.After(d):
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return false, out.String()
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// TestReliabilityCrashes kills lore with SIGKILL at random (seeded) points
// of indexing, store, merge and sync, and checks after each kill: git fsck
// is clean, every ref reads, an unacknowledged store is whole or absent, a
// killed merge is all or nothing once the next lore command ran (every
// Draft's text in the org ref and the work tree with its branch gone, or
// none of them), and a search answers with the right note. At the end every
// acknowledged store's text is in a tree (a Draft's head or the org ref),
// and the next sync completes.
func TestReliabilityCrashes(t *testing.T) {
	runs := 16
	if *longRuns {
		runs = 60
	}
	if testing.Short() {
		runs = 6
	}
	seed := int64(20261130)
	rng := rand.New(rand.NewSource(seed))
	dir := demoVault(t, "api")
	// Enough notes that indexing takes a while.
	for i := 0; i < 1500; i++ {
		os.MkdirAll(filepath.Join(dir, "bulk"), 0o755)
		os.WriteFile(filepath.Join(dir, "bulk", fmt.Sprintf("n%04d.md", i)), []byte(fmt.Sprintf("# Bulk %d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("word%d filler text about sync and release ", i%97), 40))), 0o644)
	}
	testvault.Git(t, dir, "add", "-A")
	testvault.Git(t, dir, "commit", "-qm", "bulk")
	remote := filepath.Join(t.TempDir(), "remote.git")
	testvault.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	testvault.Git(t, dir, "remote", "add", "origin", remote)
	testvault.Git(t, dir, "push", "-q", "origin", "main")
	env := append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api")
	env = append(env, testGitEnv...)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// killAfter starts lore and kills it after d; it reports whether it
	// finished first (and its output).
	killAfter := func(d time.Duration, args ...string) (bool, string) {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = env
		return runKilled(t, cmd, d)
	}
	// A second vault embeds through an OpenAI-style endpoint on loopback (a
	// fake at the true seam), slowly, so kills land inside embedding.
	embedSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(15 * time.Millisecond)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, s := range req.Input {
			v := make([]float32, 32)
			for j, c := range []byte(s) {
				v[(j+int(c))%32] += 1
			}
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer embedSrv.Close()
	evault := demoVault(t, "api")
	os.WriteFile(filepath.Join(evault, "lore.yaml"), []byte("embedding: {provider: openai, endpoint: "+embedSrv.URL+", model: fake, dimension: 32}\nprojects: {api: {}}\n"), 0o644)
	for i := 0; i < 400; i++ {
		os.WriteFile(filepath.Join(evault, "notes", fmt.Sprintf("e%03d.md", i)), []byte(fmt.Sprintf("# E %d\n\nembedding text %d about releases\n", i, i)), 0o644)
	}
	testvault.Git(t, evault, "add", "-A")
	testvault.Git(t, evault, "commit", "-qm", "embed")
	embedRun := func(d time.Duration) (bool, string) {
		return runKilled(t, exec.Command(binary(t), "--vault", evault, "index"), d)
	}
	type store struct{ lop, path, text string }
	var acked []store
	// inSomeTree reports whether path holds text at the org ref or at a
	// Draft branch's head.
	inSomeTree := func(path, text string) bool {
		refs := strings.Fields(testvault.Git(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/"))
		for _, ref := range refs {
			out, err := exec.Command("git", "-C", dir, "show", ref+":"+path).Output()
			if err == nil && strings.Contains(string(out), text) {
				return true
			}
		}
		return false
	}
	kills, inconsistencies := 0, 0
	wholeOrAbsent, allOrNothing := 0, 0
	ops := map[string]int{}
	for i := 0; i < runs; i++ {
		op := []string{"index", "store", "merge", "sync", "embed"}[rng.Intn(5)]
		ops[op]++
		d := time.Duration(rng.Intn(400)) * time.Millisecond
		switch op {
		case "index":
			if rng.Intn(2) == 0 {
				os.Remove(filepath.Join(dir, ".git", "lore", "index.db")) // a cold rebuild
			}
			killAfter(d, "index")
		case "store":
			path, body := fmt.Sprintf("notes/crash-%d.md", i), fmt.Sprintf("# Crash %d\n\ntext\n", i)
			ok, out := killAfter(d/8, "store", "create", "--json", "--path", path, "--body", body)
			if ok {
				var r struct {
					Lop string `json:"local_operation_id"`
				}
				json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r)
				acked = append(acked, store{r.Lop, path, body})
			} else {
				// Unacknowledged: whole or absent, in every tree that has it.
				for _, ref := range strings.Fields(testvault.Git(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/")) {
					got, err := exec.Command("git", "-C", dir, "show", ref+":"+path).Output()
					if err == nil && !strings.Contains(string(got), body) {
						inconsistencies++
						t.Errorf("run %d: a killed store left half a note on %s:\n%s", i, ref, got)
					}
				}
				wholeOrAbsent++
			}
		case "merge":
			// Make a few Drafts, then merge them with a kill in the middle.
			var ids, paths []string
			for j := 0; j < 3; j++ {
				path, body := fmt.Sprintf("notes/m-%d-%d.md", i, j), fmt.Sprintf("# M %d %d\n\nx\n", i, j)
				out, err := run("store", "create", "--json", "--path", path, "--body", body)
				if err != nil {
					t.Fatalf("store: %v %s", err, out)
				}
				var r struct {
					Lop   string `json:"local_operation_id"`
					Draft string `json:"draft_id"`
				}
				json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r)
				acked = append(acked, store{r.Lop, path, body})
				ids, paths = append(ids, r.Draft), append(paths, path)
			}
			killAfter(d/4, append([]string{"drafts", "merge"}, ids...)...)
			// The next lore command finishes or rolls back a killed merge.
			if out, err := run("drafts", "list"); err != nil {
				inconsistencies++
				t.Errorf("run %d: drafts list after a killed merge: %v\n%s", i, err, out)
			}
			merged := 0
			for j, path := range paths {
				_, onMain := exec.Command("git", "-C", dir, "cat-file", "-e", "refs/heads/main:"+path).Output()
				_, inTree := os.Stat(filepath.Join(dir, path))
				branch := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "refs/heads/drafts/api/"+ids[j]).Run()
				switch {
				case onMain == nil && inTree == nil && branch != nil:
					merged++
				case onMain != nil && inTree != nil && branch == nil:
				default:
					inconsistencies++
					t.Errorf("run %d: after a killed merge %s is half merged (org ref %v, work tree %v, branch %v)", i, path, onMain == nil, inTree == nil, branch == nil)
				}
			}
			if merged != 0 && merged != len(paths) {
				inconsistencies++
				t.Errorf("run %d: a killed merge left %d of %d Drafts merged", i, merged, len(paths))
			}
			allOrNothing++
		case "sync":
			killAfter(d/4, "sync")
		case "embed":
			if rng.Intn(3) == 0 {
				os.Remove(filepath.Join(evault, ".git", "lore", "index.db"))
			}
			embedRun(d)
			if out, err := exec.Command(binary(t), "--vault", evault, "search", "releases").CombinedOutput(); err != nil {
				inconsistencies++
				t.Errorf("run %d (embed after %v): the index did not recover: %v\n%s", i, d, err, out)
			}
		}
		kills++
		// Afterwards: git is consistent, every ref reads, the index answers.
		if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-progress").CombinedOutput(); err != nil {
			inconsistencies++
			t.Errorf("run %d (%s after %v): git fsck: %v\n%s", i, op, d, err, out)
		}
		if out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname) %(objectname)").CombinedOutput(); err != nil {
			inconsistencies++
			t.Errorf("run %d: refs: %v %s", i, err, out)
		}
		if out, err := run("search", "how do we ship a release"); err != nil || !strings.Contains(out, "howto/release.md") {
			inconsistencies++
			t.Errorf("run %d (%s after %v): the index did not recover (or lost the release note): %v\n%s", i, op, d, err, out)
		}
	}
	// Every acknowledged store's text is in a tree (on a Draft branch or
	// merged into main), not only its trailer in a commit message.
	present := 0
	for _, a := range acked {
		if inSomeTree(a.path, a.text) {
			present++
		} else {
			inconsistencies++
			t.Errorf("acknowledged %s (%s) lost", a.lop, a.path)
		}
	}
	// Embedding finishes after the kills: nothing pending, nothing broken.
	if ok, out := embedRun(5 * time.Minute); !ok || strings.Contains(out, "error") {
		inconsistencies++
		t.Errorf("embedding after the crashes: %s", out)
	}
	if out, _ := exec.Command(binary(t), "--vault", evault, "doctor").CombinedOutput(); !strings.Contains(string(out), ", 0 sections waiting") {
		inconsistencies++
		t.Errorf("vectors pending after a full index:\n%s", out)
	}
	// The outbox resumes: a sync now completes and leaves nothing queued.
	if out, err := run("sync"); err != nil {
		inconsistencies++
		t.Errorf("sync after the crashes: %v %s", err, out)
	}
	out, _ := run("sync", "--status")
	if strings.Contains(out, "syncing") || strings.Contains(out, "retrying") {
		inconsistencies++
		t.Errorf("outbox after a clean sync:\n%s", out)
	}
	summary(t, "crashes", fmt.Sprintf("%d SIGKILL runs (seed %d; index %d, embed %d, store %d, merge %d, sync %d)", kills, seed, ops["index"], ops["embed"], ops["store"], ops["merge"], ops["sync"]),
		fmt.Sprintf("acknowledged stores %d, present in a tree %d; killed stores whole or absent %d; killed merges all or nothing %d", len(acked), present, wholeOrAbsent, allOrNothing), fmt.Sprintf("inconsistencies %d", inconsistencies))
}

// TestReliabilityFreshnessThroughGit: changes made by a person's editor, git
// pull, git checkout and git stash all reach the next load and activate.
func TestReliabilityFreshnessThroughGit(t *testing.T) {
	dir := demoVault(t, "api")
	other := filepath.Join(t.TempDir(), "other")
	testvault.Git(t, filepath.Dir(other), "clone", "-q", dir, other)
	testvault.Git(t, dir, "checkout", "-q", "-b", "side")
	testvault.Git(t, dir, "checkout", "-q", "main")
	testvault.Git(t, dir, "config", "receive.denyCurrentBranch", "ignore")
	env := append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api")
	lore := func(args ...string) string {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(string(out), "memory_resource_not_found") {
			t.Fatalf("lore %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	lore("index")
	checks := 0
	expect := func(what, query, path, want string) {
		t.Helper()
		checks++
		if out := lore("load", path); !strings.Contains(out, want) {
			t.Errorf("%s: load %s does not show %q:\n%s", what, path, want, out)
		}
		if out := lore("activate", query); !strings.Contains(out, want) {
			t.Errorf("%s: activate %q does not deliver %q", what, query, want)
		}
	}
	gone := func(what, path string) {
		t.Helper()
		checks++
		if out := lore("load", path); !strings.Contains(out, "memory_resource_not_found") {
			t.Errorf("%s: %s still loads:\n%s", what, path, out)
		}
	}
	// A person's editor: edit, add, rename, delete.
	os.WriteFile(filepath.Join(dir, "notes", "fresh.md"), []byte("# Fresh\n\nzebracorn migration plan\n"), 0o644)
	expect("added by an editor", "zebracorn migration", "notes/fresh.md", "zebracorn")
	os.WriteFile(filepath.Join(dir, "notes", "fresh.md"), []byte("# Fresh\n\nquokkaplex migration plan\n"), 0o644)
	expect("edited", "quokkaplex migration", "notes/fresh.md", "quokkaplex")
	os.Rename(filepath.Join(dir, "notes", "fresh.md"), filepath.Join(dir, "notes", "renamed.md"))
	expect("renamed", "quokkaplex migration", "notes/renamed.md", "quokkaplex")
	gone("renamed away", "notes/fresh.md")
	os.Remove(filepath.Join(dir, "notes", "renamed.md"))
	gone("deleted", "notes/renamed.md")
	// git pull of another clone's commit.
	os.WriteFile(filepath.Join(other, "notes", "pulled.md"), []byte("# Pulled\n\nnarwhalette rollout\n"), 0o644)
	testvault.Git(t, other, "add", "-A")
	testvault.Git(t, other, "commit", "-qm", "from the other clone")
	testvault.Git(t, other, "push", "-q", "origin", "main:side")
	testvault.Git(t, dir, "pull", "-q", "--no-rebase", "--no-edit", ".", "side")
	expect("git pull", "narwhalette rollout", "notes/pulled.md", "narwhalette")
	// git checkout of a branch without the note, and back.
	testvault.Git(t, dir, "checkout", "-q", "-b", "older", "HEAD~1")
	gone("git checkout", "notes/pulled.md")
	testvault.Git(t, dir, "checkout", "-q", "main")
	expect("git checkout back", "narwhalette rollout", "notes/pulled.md", "narwhalette")
	// git stash of an uncommitted edit, and pop.
	os.WriteFile(filepath.Join(dir, "notes", "pulled.md"), []byte("# Pulled\n\nplatypunk rollout\n"), 0o644)
	expect("uncommitted edit", "platypunk rollout", "notes/pulled.md", "platypunk")
	testvault.Git(t, dir, "stash", "-q")
	expect("git stash", "narwhalette rollout", "notes/pulled.md", "narwhalette")
	testvault.Git(t, dir, "stash", "pop", "-q")
	expect("git stash pop", "platypunk rollout", "notes/pulled.md", "platypunk")
	summary(t, "freshness", "editor add/edit/rename/delete, git pull, checkout, stash", fmt.Sprintf("%d checks of load and activate", checks), "all reflected")
}

// TestReliabilityHostilePaths tries paths that lead out of the vault (or the
// repository) at every MCP entry point that takes one: every one must be a
// tool error, and nothing outside may be read.
func TestReliabilityHostilePaths(t *testing.T) {
	dir := demoVault(t, "api")
	secret := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(secret, []byte("# Secret\n\nnever show this\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "notes", "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(dir, "linked-dir")); err != nil {
		t.Fatal(err)
	}
	hostile := []string{"../secret.md", "/etc/passwd", secret, "notes/../../secret.md", "a\x00b.md", ".git/config", "notes/link.md", "linked-dir/secret.md", "..", "", "notes\\..\\..\\x.md",
		"notes/a\nb.md", "notes/a\x01b.md", "notes/a\x7fb.md", "notes/evil\u202Edm.txt.md"}
	c := startMCP(t, dir, "api")
	defer c.close()
	tried, refused := 0, 0
	try := func(what string, args any) {
		tried++
		res, isErr, err := c.memory(args)
		b, _ := json.Marshal(res)
		if err == nil && isErr && !strings.Contains(string(b), "never show this") {
			refused++
			return
		}
		t.Errorf("%s was not refused: %v %s", what, err, b)
	}
	for _, p := range hostile {
		try("load "+p, map[string]any{"op": map[string]any{"load": map[string]any{"ids": []string{p}}}})
		try("create "+p, map[string]any{"op": map[string]any{"store": map[string]any{"create": map[string]any{"path": p, "body": "# x\n"}}}})
		try("rename to "+p, map[string]any{"op": map[string]any{"store": map[string]any{"rename": map[string]any{"id": "LORE.md", "new_path": p}}}})
	}
	// The vault profile: inspect_log_node and guard_check files.
	v := exec.Command(binary(t), "mcp", "--profile", "vault")
	v.Env = append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api", "LORE_MCP_NO_EMBED=1")
	v.Dir = dir
	in, _ := v.StdinPipe()
	out, _ := v.StdoutPipe()
	v.Start()
	vc := &mcpClient{cmd: v, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	vc.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "r", "version": "1"}})
	defer vc.close()
	call := func(what, tool string, args any) {
		tried++
		raw, err := vc.request("tools/call", map[string]any{"name": tool, "arguments": args})
		var r struct {
			IsError bool `json:"isError"`
		}
		json.Unmarshal(raw, &r)
		if err == nil && r.IsError && !strings.Contains(string(raw), "never show this") {
			refused++
			return
		}
		t.Errorf("%s was not refused: %v %s", what, err, raw)
	}
	for _, p := range append(hostile, "node_../../x", "node_zz") {
		call("inspect_log_node "+p, "inspect_log_node", map[string]any{"node_id": p})
	}
	for _, p := range hostile {
		if p == "" || p == ".git/config" { // inside the repository: guard may read it
			continue
		}
		call("guard_check files "+p, "guard_check", map[string]any{"files": []string{p}, "repo_path": dir})
	}
	// repo_path outside the workspace, devices.
	for _, args := range []map[string]any{
		{"repo_path": "/", "files": []string{"etc/passwd"}},
		{"repo_path": "/dev", "files": []string{"zero"}},
		{"repo_path": filepath.Dir(secret), "files": []string{"secret.md"}},
		{"repo_path": "..", "files": []string{"x"}},
	} {
		call(fmt.Sprintf("guard_check %v", args), "guard_check", args)
	}
	summary(t, "hostile paths", "load, store create/rename (.., absolute, symlinks out, NUL, control and bidi characters), inspect_log_node, guard_check files and repo_path", fmt.Sprintf("tried %d, refused %d", tried, refused))
}

// TestReliabilityLimits measures a long-running lore mcp on a large vault
// (LORE_LIMITS_VAULT, made by make reliability): activate p50 and the
// server's peak memory (VmHWM). Skipped without the vault.
func TestReliabilityLimits(t *testing.T) {
	dir := os.Getenv("LORE_LIMITS_VAULT")
	if dir == "" {
		t.Skip("set LORE_LIMITS_VAULT to a generated vault (make reliability does)")
	}
	c := startMCP(t, dir, "")
	defer c.close()
	queries := []string{"parse config file errors", "how is the index refreshed", "retry budget for sync", "并发控制", "release checklist", "vector search quantization"}
	var ms []float64
	for i := 0; i < 200; i++ {
		start := time.Now()
		if _, isErr, err := c.memory(map[string]any{"op": map[string]any{"activate": map[string]any{"query": queries[i%len(queries)]}}}); err != nil || isErr {
			t.Fatalf("activate: %v", err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	sortFloats(ms)
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			hwm = strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	summary(t, "limits: lore mcp", fmt.Sprintf("200 activates, p50 %.1f ms, p95 %.1f ms", ms[len(ms)/2], ms[len(ms)*95/100]), "peak memory "+hwm)
}

func sortFloats(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// TestReliabilityRealVaults adopts the Obsidian Hub (6,591 notes that many
// people wrote in Obsidian; 28 of them once panicked the parser and stopped
// every command) with lore init and indexes it with the lore binary: every
// note is parsed or named as unreadable, and none is a panic. It skips with
// one line when the shared data is absent.
func TestReliabilityRealVaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hub")
	n := shareddata.WriteHub(t, dir)
	bin := binary(t)
	lore := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), testGitEnv...)
		out, err := cmd.CombinedOutput()
		if err != nil && args[2] != "doctor" { // doctor exits 1 when it names problems
			t.Fatalf("lore %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	lore("init", "--git", dir)
	out := lore("--vault", dir, "index", "--no-embed")
	var files, unreadable int
	fmt.Sscanf(out, "%d memory files", &files)
	if i := strings.Index(out, "file(s) could not be read"); i >= 0 {
		fmt.Sscanf(out[strings.LastIndexByte(out[:i-1], '\n')+1:], "%d", &unreadable)
	}
	panics := strings.Count(out, "a bug in lore")
	doctor := lore("--vault", dir, "doctor")
	if panics > 0 || !strings.Contains(doctor, fmt.Sprintf("problems:   %d", unreadable)) && unreadable > 0 {
		t.Errorf("%d panics; doctor does not name the %d unreadable notes:\n%s", panics, unreadable, doctor)
	}
	if files == 0 {
		t.Fatalf("lore index indexed nothing:\n%s", out)
	}
	if got := lore("--vault", dir, "search", "hotkeys", "-n", "1"); !strings.Contains(got, ".md") {
		t.Errorf("search on the Hub found nothing:\n%s", got)
	}
	summary(t, "real vaults: the Obsidian Hub", fmt.Sprintf("%d notes in the archive, %d memory files indexed (dot folders left out, as Obsidian does)", n, files),
		fmt.Sprintf("%d unreadable (invalid frontmatter, read as text and named by doctor), %d panics", unreadable, panics))
}
