package drafts

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lore-memory/lore/outbox"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

var long = flag.Bool("long", false, "run the long concurrency test (16 processes × 100 operations)")

// TestMain doubles as the store worker the concurrency test starts as
// separate processes (LORE_STORE_WORKER set).
func TestMain(m *testing.M) {
	if os.Getenv("LORE_STORE_WORKER") != "" {
		os.Exit(storeWorker())
	}
	if os.Getenv("LORE_MERGE_CRASH") != "" {
		os.Exit(mergeCrashWorker())
	}
	if os.Getenv("LORE_SYNC_CRASH") != "" {
		os.Exit(syncCrashWorker())
	}
	os.Exit(m.Run())
}

// storeWorker performs LORE_OPS store operations on LORE_DIR as
// LORE_PROJECT, printing "ack <local_operation_id> <draft_id> <resource_id>
// <line>" for each one the store acknowledged (line: the text an update
// added, "-" for a create): creates, updates of its own notes and updates of a
// shared note that every worker edits (stale hashes are retried, as an
// agent would, after loading again).
func storeWorker() int {
	ctx := context.Background()
	dir, project, name := os.Getenv("LORE_DIR"), os.Getenv("LORE_PROJECT"), os.Getenv("LORE_STORE_WORKER")
	var n int
	fmt.Sscan(os.Getenv("LORE_OPS"), &n)
	_, ix, s, err := openAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rng := rand.New(rand.NewSource(int64(len(name)) + int64(name[len(name)-1])))
	var mine []string
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for i := 0; i < n; i++ {
		var res vault.StoreResult
		var err error
		added := "-"
		switch k := rng.Intn(10); {
		case k < 4 || len(mine) == 0:
			p := fmt.Sprintf("notes/%s-%d.md", name, i)
			res, err = s.Apply(ctx, project, vault.Op{Create: &vault.CreateOp{Path: p, Body: fmt.Sprintf("# %s %d\n\nline 0 of %s\n", name, i, name)}})
			if err == nil {
				mine = append(mine, res.ResourceID)
			}
		default:
			id := "mem_release"
			if k < 8 {
				id = mine[rng.Intn(len(mine))]
			}
			for try := 0; try < 50; try++ {
				var rs []vault.Loaded
				if rs, err = ix.Load(ctx, []string{id}, project); err != nil {
					break
				}
				body := rs[0].Content
				last := body[strings.LastIndex(strings.TrimSuffix(body, "\n"), "\n")+1:]
				added = fmt.Sprintf("%s-op-%d", name, i)
				res, err = s.Apply(ctx, project, vault.Op{Update: &vault.UpdateOp{ID: id, ExpectedHash: rs[0].ContentHash,
					Replacements: []vault.Replacement{{OldText: last, NewText: last + added + "\n"}}}})
				if vault.ErrorCode(err) != vault.CodeContentChanged && vault.ErrorCode(err) != vault.CodeReplacementAmbiguous {
					break
				}
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s op %d: %v\n", name, i, err)
			return 1
		}
		fmt.Fprintf(out, "ack %s %s %s %s\n", res.LocalOperationID, res.DraftID, res.ResourceID, added)
	}
	return 0
}

// TestManyProcessesStoreAtOnce runs 8 store processes × 50 operations on one
// vault, across two projects, while a person commits with the git CLI and
// the index is refreshed and rebuilt: every acknowledged operation must be a
// commit on a Draft branch afterwards, every line an acknowledged update
// added must be in the resource's final content as its project sees it (read
// from git, not the index), each project must see all its notes, and git
// fsck must be clean.
func TestManyProcessesStoreAtOnce(t *testing.T) {
	procs, ops := 8, 50
	if *long {
		procs, ops = 16, 100
	}
	if testing.Short() {
		procs, ops = 4, 10
	}
	tv := newVault(t, "", baseFiles)
	var wg sync.WaitGroup
	acks := make([][]string, procs)
	type added struct{ project, resource, line string }
	lines := make([][]added, procs)
	errs := make(chan error, procs+1)
	for w := 0; w < procs; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			project := []string{"api", "web"}[w%2]
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), gitEnv...)
			cmd.Env = append(cmd.Env, fmt.Sprintf("LORE_STORE_WORKER=w%d", w), "LORE_DIR="+tv.dir,
				"LORE_PROJECT="+project, fmt.Sprintf("LORE_OPS=%d", ops))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs <- fmt.Errorf("worker %d: %v\n%s", w, err, stderr.String())
			}
			for _, l := range strings.Split(string(out), "\n") {
				if f := strings.Fields(l); len(f) == 5 && f[0] == "ack" {
					acks[w] = append(acks[w], f[1])
					if f[4] != "-" {
						lines[w] = append(lines[w], added{project, f[3], f[4]})
					}
				}
			}
		}(w)
	}
	// A person commits at the same time, and the index follows.
	stop := make(chan struct{})
	var pw sync.WaitGroup
	pw.Add(1)
	go func() {
		defer pw.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tv.write(fmt.Sprintf("person/%d.md", i), fmt.Sprintf("# Person %d\n", i))
			if err := exec.Command("git", "-C", tv.root, "add", "-A").Run(); err != nil {
				errs <- err
				return
			}
			cmd := exec.Command("git", "-C", tv.root, "commit", "-qm", fmt.Sprintf("person %d", i))
			cmd.Env = append(os.Environ(), gitEnv...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("person's commit: %v\n%s", err, out)
				return
			}
			refresh := tv.ix.Index.Refresh
			if i%3 == 2 {
				refresh = tv.ix.Index.Rebuild
			}
			if _, err := refresh(context.Background(), nil); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	pw.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	logged := tv.git("log", "--branches=drafts/*", "--format=%B")
	total := 0
	for w, list := range acks {
		if len(list) != ops {
			t.Errorf("worker %d acknowledged %d of %d", w, len(list), ops)
		}
		for _, lop := range list {
			total++
			if !strings.Contains(logged, "Lore-Operation-Id: "+lop+"\n") {
				t.Errorf("acknowledged operation %s is not on any Draft branch", lop)
			}
		}
	}
	// Every acknowledged update's line is in the content, as git holds it.
	lost := 0
	for _, list := range lines {
		for _, a := range list {
			d := tv.draftCarrying(a.project, a.resource)
			if d == nil || !strings.Contains(tv.git("show", d.Head+":"+d.Path), a.line+"\n") {
				lost++
				t.Errorf("acknowledged update %s of %s (project %s) is not in its final content", a.line, a.resource, a.project)
			}
		}
	}
	tv.git("fsck", "--strict", "--no-progress")
	// Each project sees every note its workers created, and not the other's.
	for w := 0; w < procs; w++ {
		project, other := []string{"api", "web"}[w%2], []string{"web", "api"}[w%2]
		hits, err := tv.ix.Search(context.Background(), fmt.Sprintf("line 0 of w%d", w), vault.SearchOptions{Project: project, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, h := range hits {
			if strings.HasPrefix(h.Path, fmt.Sprintf("notes/w%d-", w)) {
				seen++
			}
		}
		if seen == 0 {
			t.Errorf("project %s sees none of worker %d's notes", project, w)
		}
		hits, _ = tv.ix.Search(context.Background(), fmt.Sprintf("line 0 of w%d", w), vault.SearchOptions{Project: other, Limit: 200})
		for _, h := range hits {
			if strings.HasPrefix(h.Path, fmt.Sprintf("notes/w%d-", w)) {
				t.Fatalf("project %s sees worker %d's Draft %s", other, w, h.Path)
			}
		}
	}
	nlines := 0
	for _, l := range lines {
		nlines += len(l)
	}
	t.Logf("%d processes × %d operations: %d acknowledged, all on Draft branches; %d updates' lines, %d lost", procs, ops, total, nlines, lost)
}

// draftCarrying returns project's open Draft that carries resource.
func (tv *tvault) draftCarrying(project, resource string) *Draft {
	ds, err := tv.s.listDrafts(context.Background(), project, false)
	if err != nil {
		tv.t.Fatal(err)
	}
	for _, d := range ds {
		if d.ResourceID == resource {
			return d
		}
	}
	return nil
}

// openAll opens a vault folder, its index and its Draft store, as a lore
// process does (for the worker processes of these tests).
func openAll(dir string) (*vault.Vault, *retrieve.Memory, *Store, error) {
	ctx := context.Background()
	v, err := vault.Open(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	ix, err := retrieve.Open(ctx, v)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := outbox.Open(ctx, filepath.Join(v.DataDir(), "outbox.db"))
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := Open(ctx, ix.Index, out)
	return v, ix, s, err
}
