package drafts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// daemon is git daemon on loopback (internal/testvault).
type daemon = testvault.Daemon

func startDaemon(t *testing.T, base string, port int) *daemon {
	return testvault.StartDaemon(t, base, port)
}

// withRemote makes a bare repository served by git daemon and sets it as
// the vault's origin, holding main.
func withRemote(t *testing.T, tv *tvault) (*daemon, string) {
	base := t.TempDir()
	bare := filepath.Join(base, "vault.git")
	testvault.Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	d := startDaemon(t, base, 0)
	tv.git("remote", "add", "origin", d.URL("vault.git"))
	tv.git("push", "-q", "origin", "main")
	return d, bare
}

func outboxOf(t *testing.T, s *Store, id string) OutboxEntry {
	t.Helper()
	es, err := s.outboxEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.DraftID == id {
			return e
		}
	}
	return OutboxEntry{}
}

func TestSyncPushesRetriesAndNeverForcesOrg(t *testing.T) {
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	d, bare := withRemote(t, tv)
	now := time.Now()
	tv.s.setClock(func() time.Time { return now })

	r := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/sync.md", Body: "# Sync\n\nfirst\n"}})
	rep, err := tv.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pushed) != 1 || rep.Pushed[0] != r.DraftID || rep.Error != "" {
		t.Fatalf("first sync: %+v", rep)
	}
	branch := "drafts/api/" + r.DraftID
	if got, want := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", branch)), strings.TrimSpace(tv.git("rev-parse", branch)); got != want {
		t.Fatalf("remote has %s, local %s", got, want)
	}
	if e := outboxOf(t, tv.s, r.DraftID); e.Status != "synced" {
		t.Fatalf("outbox %+v", e)
	}
	if st := tv.s.syncStatus(ctx, r.DraftID); st != "synced" {
		t.Fatalf("status %s", st)
	}

	// The remote goes away: the Draft retries, with the reason, and keeps its commit.
	d.Stop()
	cur := tv.load("api", r.ResourceID)
	u := tv.apply("api", update(r.ResourceID, cur.ContentHash, "first", "second"))
	rep, err = tv.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := outboxOf(t, tv.s, r.DraftID)
	if e.Status != "retrying" || e.LastError == "" || e.Attempts != 1 || rep.Error == "" {
		t.Fatalf("remote down: %+v %+v", e, rep)
	}
	if !strings.Contains(tv.load("api", r.ResourceID).Content, "second") {
		t.Fatal("the local Draft lost the update")
	}
	// Not due before its backoff; due after it, and the remote is back.
	d = startDaemon(t, d.Base, d.Port)
	if rep, _ = tv.s.syncWith(ctx, SyncOptions{}); len(rep.Pushed) != 0 {
		t.Fatalf("pushed before the backoff: %+v", rep)
	}
	now = now.Add(time.Minute)
	if rep, _ = tv.s.syncWith(ctx, SyncOptions{}); len(rep.Pushed) != 1 {
		t.Fatalf("after backoff: %+v", rep)
	}
	if got := strings.TrimSpace(testvault.Git(t, bare, "log", "-1", "--format=%B", branch)); !strings.Contains(got, u.LocalOperationID) {
		t.Fatalf("remote branch head:\n%s", got)
	}

	// Merge locally; sync pushes main as a fast-forward and deletes the remote Draft branch.
	if _, err := tv.s.Merge(ctx, []string{r.DraftID}); err != nil {
		t.Fatal(err)
	}
	rep, _ = tv.s.syncWith(ctx, SyncOptions{})
	if rep.Org != "pushed" || len(rep.Deleted) != 1 {
		t.Fatalf("after merge: %+v", rep)
	}
	if out := testvault.Git(t, bare, "branch", "--list", "drafts/*"); out != "" {
		t.Fatalf("remote draft branch left:\n%s", out)
	}

	// Someone rewrites the remote's main: lore reports it and never force-pushes.
	other := filepath.Join(t.TempDir(), "other")
	testvault.Git(t, filepath.Dir(other), "clone", "-q", d.URL("vault.git"), other)
	testvault.Git(t, other, "reset", "-q", "--hard", "HEAD~1")
	os.WriteFile(filepath.Join(other, "rewrite.md"), []byte("# rewritten\n"), 0o644)
	testvault.Git(t, other, "add", "-A")
	testvault.Git(t, other, "commit", "-qm", "rewrite")
	testvault.Git(t, other, "push", "-q", "-f", "origin", "main")
	rewritten := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "main"))
	c2 := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/after.md", Body: "# After\n\nx\n"}})
	if _, err := tv.s.Merge(ctx, []string{c2.DraftID}); err != nil {
		t.Fatal(err)
	}
	localMain := strings.TrimSpace(tv.git("rev-parse", "main"))
	rep, _ = tv.s.syncWith(ctx, SyncOptions{})
	if !strings.Contains(rep.Org, "diverged") || !strings.Contains(rep.Org, "rewritten") {
		t.Fatalf("rewritten org: %+v", rep)
	}
	if got := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "main")); got != rewritten {
		t.Fatal("sync overwrote the remote's main")
	}
	if got := strings.TrimSpace(tv.git("rev-parse", "main")); got != localMain {
		t.Fatal("sync moved the local main")
	}

	// A remote that refuses the push: the Draft fails, with the reason.
	os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte("#!/bin/sh\necho 'drafts are closed' >&2\nexit 1\n"), 0o755)
	c3 := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/refused.md", Body: "# Refused\n\nx\n"}})
	rep, _ = tv.s.syncWith(ctx, SyncOptions{})
	if e := outboxOf(t, tv.s, c3.DraftID); e.Status != "failed" || !strings.Contains(e.LastError, "refused") {
		t.Fatalf("refused push: %+v %+v", e, rep)
	}
	tv.git("fsck", "--strict")
	testvault.Git(t, bare, "fsck", "--strict")
}

func TestSyncRemoteDiesMidPush(t *testing.T) {
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	d, bare := withRemote(t, tv)
	// The remote's receive-pack is killed with its daemon while the push is under way.
	hook := fmt.Sprintf("#!/bin/sh\nkill -9 $(cat %s/daemon.pid)\nkill -9 $PPID\nsleep 1\n", d.Base)
	os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755)
	r := tv.apply("web", vault.Op{Create: &vault.CreateOp{Path: "notes/mid.md", Body: "# Mid\n\nx\n"}})
	rep, err := tv.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := outboxOf(t, tv.s, r.DraftID); e.Status != "retrying" || e.LastError == "" {
		t.Fatalf("mid-push death: %+v %+v", e, rep)
	}
	if out := testvault.Git(t, bare, "branch", "--list", "drafts/*"); out != "" {
		t.Fatalf("a half push left a branch:\n%s", out)
	}
	os.Remove(filepath.Join(bare, "hooks", "pre-receive"))
	startDaemon(t, d.Base, d.Port)
	tv.s.setClock(func() time.Time { return time.Now().Add(time.Hour) })
	if rep, _ = tv.s.syncWith(ctx, SyncOptions{}); len(rep.Pushed) != 1 {
		t.Fatalf("retry: %+v", rep)
	}
	testvault.Git(t, bare, "fsck", "--strict")
}

func TestSyncWithoutRemoteSaysHowToAddOne(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	_, err := tv.s.syncWith(context.Background(), SyncOptions{})
	if err == nil || !strings.Contains(err.Error(), "git remote add origin") {
		t.Fatalf("%v", err)
	}
}

// TestAttack_SyncNeverDeletesATeammatesCommits: two Drafts were synced to
// a bare remote, a teammate pushed a commit onto each Draft's branch, the
// person discarded one and merged the other, and lore sync deleted both
// branches (":branch", no lease): the teammate's commits were reachable
// from no ref. Each delete and update names the commit lore pushed; a
// branch that moved on the remote is kept, and the outbox says why.
func TestAttack_SyncNeverDeletesATeammatesCommits(t *testing.T) {
	t.Parallel()
	tv := newVault(t, "", baseFiles)
	ctx := context.Background()
	d, bare := withRemote(t, tv)
	a := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/a.md", Body: "# A\n\na\n"}})
	b := tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/b.md", Body: "# B\n\nb\n"}})
	if rep, err := tv.s.syncWith(ctx, SyncOptions{}); err != nil || len(rep.Pushed) != 2 {
		t.Fatalf("first sync: %+v %v", rep, err)
	}
	// A teammate's clone pushes a commit onto each Draft branch.
	mate := filepath.Join(t.TempDir(), "mate")
	testvault.Git(t, filepath.Dir(mate), "clone", "-q", d.URL("vault.git"), mate)
	theirs := map[string]string{}
	for _, id := range []string{a.DraftID, b.DraftID} {
		branch := "drafts/api/" + id
		testvault.Git(t, mate, "fetch", "-q", "origin", branch+":"+branch)
		testvault.Git(t, mate, "checkout", "-q", branch)
		os.WriteFile(filepath.Join(mate, "notes", "mate-"+id+".md"), []byte("# Mate\n\ntheirs\n"), 0o644)
		testvault.Git(t, mate, "add", "-A")
		testvault.Git(t, mate, "-c", "user.name=mate", "-c", "user.email=mate@localhost", "commit", "-qm", "teammate's change")
		testvault.Git(t, mate, "push", "-q", "origin", branch)
		theirs[id] = strings.TrimSpace(testvault.Git(t, mate, "rev-parse", "HEAD"))
	}
	if _, err := tv.s.Discard(ctx, []string{a.DraftID}); err != nil {
		t.Fatal(err)
	}
	_, seen, _ := tv.s.Diff(ctx, b.DraftID)
	if _, err := tv.s.Merge(ctx, []string{b.DraftID + "@" + seen.Head}); err != nil {
		t.Fatal(err)
	}
	rep, err := tv.s.syncWith(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Deleted) != 0 || len(rep.Failed) != 2 {
		t.Errorf("sync deleted %v, failed %v; want both branches kept and reported", rep.Deleted, rep.Failed)
	}
	for id, commit := range theirs {
		if got := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "drafts/api/"+id)); got != commit {
			t.Errorf("the remote's drafts/api/%s is %q, want the teammate's %s", id, got, commit)
		}
		if e := outboxOf(t, tv.s, id); !strings.Contains(e.LastError, "someone pushed to drafts/api/"+id) {
			t.Errorf("outbox of %s: %+v; want it to say the branch moved on the remote", id, e)
		}
	}
}

// TestAttack_ASilentRemoteHoldsNothing: a remote that accepts the
// connection and never answers made lore sync never return (git fetch had
// no timeout), and a running lore mcp's background sync held its lock with
// it. A fetch or push now gives up after the store's remoteTimeout (1 s here), the sync
// returns and says so, and the store's lock is free for a merge.
func TestAttack_ASilentRemoteHoldsNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	tv := newVault(t, "", baseFiles)
	tv.s.remoteTimeout = time.Second
	tv.git("remote", "add", "origin", "git://"+ln.Addr().String()+"/vault.git")
	tv.apply("api", vault.Op{Create: &vault.CreateOp{Path: "notes/x.md", Body: "# X\n\ntext\n"}})
	done := make(chan SyncReport, 1)
	go func() {
		rep, _ := tv.s.syncWith(context.Background(), SyncOptions{})
		done <- rep
	}()
	select {
	case rep := <-done:
		if !strings.Contains(rep.Error, "did not answer") {
			t.Errorf("the sync's report: %+v", rep)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("lore sync against a silent remote never returned")
	}
	cur := tv.load("api", "mem_release")
	d := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	if _, err := tv.s.Merge(context.Background(), []string{d.DraftID}); err != nil {
		t.Errorf("a merge after the silent remote: %v", err)
	}
}

// TestAttack_AStuckSyncQueuesThePublish: with a sync stuck on a silent
// remote (lore mcp's background sync holding the sync lock), a merge moved
// the org ref here and then waited forever to publish, ignoring ^C. The
// merge now returns, saying the publish waits for a later sync; the stuck
// sync's lock wait ends when its context does (^C); and once the remote
// answers, the next sync publishes the merge.
func TestAttack_AStuckSyncQueuesThePublish(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	})
	tv := newVault(t, "", baseFiles)
	tv.s.remoteTimeout, tv.s.publishWait = 10*time.Minute, 200*time.Millisecond
	bare := filepath.Join(t.TempDir(), "good.git")
	testvault.Git(t, tv.root, "clone", "-q", "--bare", tv.root, bare)
	tv.git("remote", "add", "origin", "git://"+ln.Addr().String()+"/vault.git")

	stuckCtx, unstick := context.WithCancel(context.Background())
	stuck := make(chan error, 1)
	go func() {
		_, err := tv.s.syncWith(stuckCtx, SyncOptions{})
		stuck <- err
	}()
	select { // the background sync is now inside git fetch, holding the lock
	case c := <-accepted:
		accepted <- c
	case <-time.After(time.Minute):
		t.Fatal("the sync never reached the remote")
	}

	cur := tv.load("api", "mem_release")
	d := tv.apply("api", update("mem_release", cur.ContentHash, "Run the tests first.", "Run the tests, then tag."))
	res, err := tv.s.Merge(context.Background(), []string{d.DraftID})
	if err != nil {
		t.Fatal(err)
	}
	published := make(chan string, 1)
	go func() { published <- tv.s.publish(context.Background()) }()
	select {
	case got := <-published:
		if !strings.Contains(got, "not published yet") || !strings.Contains(got, "another sync is still running") {
			t.Errorf("the merge's publish said %q; want it to say a later sync publishes it", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the merge's publish waited on the stuck sync")
	}

	// A second sync started meanwhile waits for the lock; ^C ends the wait.
	waitCtx, cancelWait := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, err := tv.s.syncWith(waitCtx, SyncOptions{})
		second <- err
	}()
	cancelWait()
	select {
	case err := <-second:
		var busy *LockBusyError
		if !errors.As(err, &busy) {
			t.Errorf("a sync whose wait was cancelled returned %v; want a LockBusyError", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a cancelled sync kept waiting for the lock")
	}

	unstick() // the stuck sync's git is killed with its context
	select {
	case <-stuck:
	case <-time.After(time.Minute):
		t.Fatal("the stuck sync did not end with its context")
	}
	tv.git("remote", "set-url", "origin", bare)
	rep, err := tv.s.syncWith(context.Background(), SyncOptions{})
	if err != nil || rep.Error != "" {
		t.Fatalf("the next sync: %v %+v", err, rep)
	}
	if got := strings.TrimSpace(testvault.Git(t, bare, "rev-parse", "main")); got != res.Commit {
		t.Errorf("the remote's main is %s after the next sync; want the merge %s", got, res.Commit)
	}
}
