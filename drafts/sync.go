package drafts

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lore-memory/lore/vault"
)

// Sync is plain git against the vault's remote, through the git CLI so the
// user's own credentials (SSH agent, credential helpers, insteadOf rules)
// work exactly as for their other pushes; go-git supports only part of
// them. Draft branches are pushed (never forced), discarded and merged ones
// deleted there (each push naming, as a lease, the commit lore last
// pushed, so a teammate's commits on a Draft branch are never deleted or
// overwritten), and the org ref fetched into refs/remotes/<remote>/<org>;
// the org ref is pushed only when the remote's is an ancestor of it, so a
// sync can never overwrite published history.

// maxAttempts is how many transport failures in a row a Draft's sync
// survives (retrying with backoff) before it is marked failed.
const maxAttempts = 10

// backoff is the wait before the n-th retry: 5 s doubling, at most 10 min.
func backoff(n int) time.Duration {
	d := 5 * time.Second << min(n, 7)
	return min(d, 10*time.Minute)
}

// SyncReport says what one sync did.
type SyncReport struct {
	Remote  string        `json:"remote"`
	Pushed  []string      `json:"pushed"`
	Deleted []string      `json:"deleted"`
	Failed  []string      `json:"failed"`
	Org     string        `json:"org"` // the org ref against the remote's
	Outbox  []OutboxEntry `json:"outbox"`
	Error   string        `json:"error,omitempty"` // a transport failure, if any
	// What came in (team.go): teammates' Drafts new here, Drafts that
	// moved on the remote, Drafts joined from two machines, Drafts retired
	// as published or closed elsewhere, the published notes that changed
	// (by whom), and what happened to the org ref.
	Fetched  []string     `json:"fetched"`
	Updated  []string     `json:"updated"`
	Combined []string     `json:"combined"`
	Retired  []string     `json:"retired"`
	CameIn   []NoteChange `json:"came_in"`
	OrgNote  string       `json:"org_note,omitempty"`
	// Refused are the remote's Draft branches not brought here, each with
	// why (one that changes files outside the vault folder).
	Refused []string `json:"refused,omitempty"`
	// Kept are Drafts made here whose files the org ref now holds as they
	// are: not retired by sync (the person discards or merges them).
	Kept []string `json:"kept,omitempty"`
	// MergedNothing is a sync --merge that left both sides as they were
	// (OrgNote says why, and the one thing to do).
	MergedNothing bool `json:"merged_nothing,omitempty"`
}

// syncWith fetches the remote's org ref and Draft branches, brings them
// here (team.go), and pushes due Drafts (and the org ref, when it is ahead
// as a fast-forward). A remote that cannot be reached leaves the Drafts
// retrying with the reason (and returns no error: the outbox has it); a
// refused push marks the Draft failed.
func (s *Store) syncWith(ctx context.Context, opt SyncOptions) (SyncReport, error) {
	rep := s.newReport()
	if err := s.writable("sync"); err != nil {
		return rep, err
	}
	unlock, err := lockFile(ctx, s.syncLock())
	if err != nil {
		return rep, err
	}
	defer unlock()
	return s.syncLocked(ctx, opt, rep)
}

// newReport is an empty report on the store's remote (lists empty, not
// null, in JSON).
func (s *Store) newReport() SyncReport {
	return SyncReport{Remote: s.remote, Pushed: []string{}, Deleted: []string{}, Failed: []string{},
		Fetched: []string{}, Updated: []string{}, Combined: []string{}, Retired: []string{}, CameIn: []NoteChange{}}
}

// syncLock is the lock one sync at a time holds (beside the store's write
// lock, which a sync takes only while it changes refs here).
func (s *Store) syncLock() string { return filepath.Join(s.v.DataDir(), "sync.lock") }

// syncLocked is syncWith under the sync lock.
func (s *Store) syncLocked(ctx context.Context, opt SyncOptions, rep SyncReport) (SyncReport, error) {
	if !s.hasRemote(ctx) {
		return rep, vault.Errorf(vault.CodeConfig, "the vault has no git remote %q: add one with `git remote add %s URL`, or name another with remote: in lore.yaml", s.remote, s.remote)
	}
	if err := s.reconcile(ctx); err != nil {
		return rep, err
	}
	now := s.clock()
	fail := func(reason string) (SyncReport, error) {
		dues, err := s.out.Due(ctx, now)
		if err != nil {
			return rep, err
		}
		for _, d := range dues {
			st := "retrying"
			if d.Attempts+1 >= maxAttempts {
				st = "failed"
			}
			s.out.Retry(ctx, d.ID, st, reason, now.Add(backoff(d.Attempts)), now)
		}
		rep.Error = reason
		return s.finishReport(ctx, rep)
	}
	// Fetch first: what the remote has decides what is pushed.
	tracking := s.tracking()
	before, _ := s.refs.read(tracking)
	if _, err := s.remoteGit(ctx, "fetch", "--no-tags", "--quiet", s.remote, "+"+s.org+":"+tracking); err != nil && !strings.Contains(err.Error(), "couldn't find remote ref") {
		return fail(err.Error())
	}
	if err := s.fetchDrafts(ctx); err != nil {
		return fail(err.Error())
	}
	crashPoint("sync-after-fetch")
	if err := s.team(ctx, opt, &rep); err != nil {
		return rep, err
	}
	crashPoint("sync-after-team")
	dues, err := s.out.Due(ctx, now)
	if err != nil {
		return rep, err
	}
	pushOrg, orgState, err := s.orgState(before, tracking)
	if err != nil {
		return rep, err
	}
	rep.Org = orgState
	if opt.Merge && strings.HasPrefix(orgState, "diverged") {
		// --merge merged nothing: the note says why and what to do, and
		// the org line must not send the person back to --merge.
		rep.MergedNothing = true
		rep.Org = fmt.Sprintf("diverged from %s/%s; nothing was merged", s.remote, strings.TrimPrefix(s.org, "refs/heads/"))
	}
	if pushOrg {
		// The org ref goes first: a Draft merged here is deleted there only
		// once the org ref that holds it is (a protected branch refuses the
		// push, and the Draft must stay where teammates can see it).
		out, err := s.remoteGit(ctx, "push", "--porcelain", s.remote, s.org+":"+s.org)
		crashPoint("sync-after-org-push")
		s.recordPush(ctx, out, nil, now, &rep)
		if err != nil {
			if !strings.HasPrefix(rep.Org, "push refused") {
				rep.Org = "push failed: " + err.Error()
			} else if said := remoteSaid(err.Error()); said != "" {
				rep.Org += ": " + said // what the host said (a protected branch, a rule)
			}
			var keep []vault.DueDraft
			for _, d := range dues {
				if d.Head == "" {
					s.out.Retry(ctx, d.ID, "retrying", "the Draft's branch stays on the remote until "+strings.TrimPrefix(s.org, "refs/heads/")+" is published there ("+rep.Org+")", now.Add(backoff(d.Attempts)), now)
					continue
				}
				keep = append(keep, d)
			}
			dues = keep
		}
	}
	specs, leases, byRef := pushSpecs(dues)
	if len(specs) == 0 {
		return s.finishReport(ctx, rep)
	}
	out, pushErr := s.remoteGit(ctx, append(append(append([]string{"push", "--porcelain"}, leases...), s.remote), specs...)...)
	crashPoint("sync-after-push")
	seen := s.recordPush(ctx, out, byRef, now, &rep)
	if pushErr != nil {
		for _, d := range dues {
			if !seen[d.Branch] {
				st := "retrying"
				if d.Attempts+1 >= maxAttempts {
					st = "failed"
				}
				s.out.Retry(ctx, d.ID, st, pushErr.Error(), now.Add(backoff(d.Attempts)), now)
			}
		}
		rep.Error = pushErr.Error()
	}
	return s.finishReport(ctx, rep)
}

// pushSpecs are the refspecs that push the due Drafts (a deleted Draft's
// branch is deleted), the leases that name what each branch must hold on
// the remote for the push to go through (what lore pushed there last, or
// nothing), and the Drafts by branch. A teammate's commits pushed onto a
// Draft branch are never deleted or overwritten: git refuses the push
// ("stale info"), and the branch is kept.
func pushSpecs(dues []vault.DueDraft) (specs, leases []string, byRef map[string]vault.DueDraft) {
	specs = []string{}
	byRef = map[string]vault.DueDraft{}
	for _, d := range dues {
		if d.Head == "" {
			specs = append(specs, ":"+d.Branch)
		} else {
			specs = append(specs, d.Head+":"+d.Branch)
		}
		leases = append(leases, "--force-with-lease="+d.Branch+":"+d.Pushed)
		byRef[d.Branch] = d
	}
	return specs, leases, byRef
}

// recordPush records in the outbox and in rep what git push --porcelain
// said of each ref (out), and returns the refs it named.
func (s *Store) recordPush(ctx context.Context, out string, byRef map[string]vault.DueDraft, now time.Time, rep *SyncReport) map[string]bool {
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) < 3 || len(parts[0]) != 1 {
			continue
		}
		flag, summary := parts[0], parts[2]
		_, to, _ := strings.Cut(parts[1], ":")
		seen[to] = true
		if to == s.org {
			if flag == "!" {
				rep.Org = "push refused: " + summary
			} else {
				rep.Org = "pushed"
			}
			continue
		}
		d, ok := byRef[to]
		if !ok {
			continue
		}
		if flag == "!" && !strings.Contains(summary, "remote ref does not exist") {
			reason := "the remote refused the push: " + summary
			if strings.Contains(summary, "stale info") || strings.Contains(summary, "fetch first") || strings.Contains(summary, "non-fast-forward") {
				reason = fmt.Sprintf("someone pushed to %s on %s since lore last pushed it (a teammate's commits?), and lore leaves what they pushed there: ", strings.TrimPrefix(d.Branch, "refs/heads/"), s.remote)
				if d.Head == "" {
					reason += "the Draft is closed here, its branch is kept there; fetch it with git to review their commits"
				} else {
					reason += "fetch it with git to review and combine their commits with the Draft"
				}
			}
			s.out.Failed(ctx, d.ID, reason, now)
			rep.Failed = append(rep.Failed, d.ID)
			continue
		}
		if d.Head == "" {
			s.out.Forget(ctx, d.ID)
			rep.Deleted = append(rep.Deleted, d.ID)
			continue
		}
		s.out.Synced(ctx, d.ID, d.Head, now)
		rep.Pushed = append(rep.Pushed, d.ID)
	}
	return seen
}

func (s *Store) finishReport(ctx context.Context, rep SyncReport) (SyncReport, error) {
	var err error
	rep.Outbox, err = s.outboxEntries(ctx)
	return rep, err
}

// orgState compares the org ref with the remote's (as just fetched) and says
// whether a fast-forward push is due.
func (s *Store) orgState(before plumbing.Hash, tracking string) (bool, string, error) {
	local, err := s.refs.read(s.org)
	if err != nil {
		return false, "", err
	}
	remote, err := s.refs.read(tracking)
	if err != nil {
		return false, "", err
	}
	rewritten := ""
	repo, err := s.repo()
	if err != nil {
		return false, "", err
	}
	if !before.IsZero() && before != remote {
		if ok, _ := isAncestor(repo, before, remote); !ok {
			rewritten = " (the remote's org ref was rewritten since the last sync)"
		}
	}
	switch {
	case local.IsZero():
		return false, "no local org ref", nil
	case remote.IsZero():
		return true, "pushed (new on the remote)", nil
	case local == remote:
		return false, "up to date" + rewritten, nil
	}
	if ok, _ := isAncestor(repo, remote, local); ok {
		return true, "pushed", nil
	}
	if ok, _ := isAncestor(repo, local, remote); ok {
		return false, fmt.Sprintf("behind %s/%s: the published memory that came in is not here yet%s", s.remote, strings.TrimPrefix(s.org, "refs/heads/"), rewritten), nil
	}
	return false, fmt.Sprintf("diverged from %s/%s: both sides published since the last sync, and nothing was lost; run lore sync --merge to join them with a merge commit as you (or merge with git); lore never force-pushes the org ref%s", s.remote, strings.TrimPrefix(s.org, "refs/heads/"), rewritten), nil
}

// reconcile makes the outbox follow the Draft branches: a Draft whose head
// the outbox does not have is queued; a row whose Draft is gone is turned
// into a remote delete (if the remote has it) or dropped.
func (s *Store) reconcile(ctx context.Context) error {
	ds, err := s.listDrafts(ctx, "", false)
	if err != nil {
		return err
	}
	open := map[string]bool{}
	for _, d := range ds {
		open[d.ID] = true
		if s.out.Head(ctx, d.ID) != d.Head {
			s.enqueue(ctx, d.ID, d.Project, d.Branch, d.Head)
		}
	}
	tracked, err := s.out.Tracked(ctx)
	if err != nil {
		return err
	}
	for _, id := range tracked {
		if !open[id] {
			s.outboxDiscarded(ctx, id)
		}
	}
	return nil
}

// hasRemote reports whether the vault's git remote (remote: in lore.yaml,
// origin by default) exists.
func (s *Store) hasRemote(ctx context.Context) bool {
	_, err := runGit(ctx, s.top, "remote", "get-url", s.remote)
	return err == nil
}

// remoteSaid is what the remote printed about a push (git's "remote: …"
// lines), one line.
func remoteSaid(gitErr string) string {
	var said []string
	for _, l := range strings.Split(gitErr, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "git push: ")
		if m, ok := strings.CutPrefix(l, "remote: "); ok && strings.TrimSpace(m) != "" {
			said = append(said, strings.TrimSpace(m))
		}
	}
	return strings.Join(said, " ")
}

// defaultPublishWait is how long a merge's publish waits for a sync
// already running (lore mcp's background sync, another lore sync) before it
// leaves the publish to a later sync and returns (Store.publishWait).
const defaultPublishWait = 3 * time.Second

// publish syncs after a merge, when the vault has a remote, and says in one
// line how the org ref went ("" without a remote). When another sync holds
// the sync lock past its publishWait (a remote that is slow or stuck), the
// merge is already done here and the publish queues: the org ref is ahead
// of the remote's, so the next sync pushes it.
func (s *Store) publish(ctx context.Context) string {
	if !s.hasRemote(ctx) {
		return ""
	}
	rep, err := s.publishSync(ctx)
	switch {
	case err != nil:
		return "not published yet (lore sync tries again): " + err.Error()
	case rep.Error != "":
		return "not published yet (lore sync tries again): " + rep.Error
	}
	return "org ref: " + rep.Org
}

// errSyncRunning is a publish left to a later sync.
var errSyncRunning = errors.New("another sync is still running (a slow or silent remote?); the next lore sync, or a running lore mcp's next background sync, publishes it")

// publishSync is the sync after a merge: as syncWith, but waiting at most
// publishWait for a sync already running.
func (s *Store) publishSync(ctx context.Context) (SyncReport, error) {
	rep := s.newReport()
	if err := s.writable("sync"); err != nil {
		return rep, err
	}
	unlock, err := tryLockFile(ctx, s.syncLock(), s.publishWait)
	if err != nil {
		if ctx.Err() == nil {
			return rep, errSyncRunning
		}
		return rep, err
	}
	defer unlock()
	return s.syncLocked(ctx, SyncOptions{}, rep)
}

// Remote is the store's side that faces the vault's git remote: sync, the
// outbox it keeps, and publishing a merge (vault.Publisher).
type Remote struct{ s *Store }

var _ vault.Publisher = Remote{}

// Remote returns the store's remote side.
func (s *Store) Remote() Remote { return Remote{s} }

// Sync is SyncWith without options.
func (r Remote) Sync(ctx context.Context) (SyncReport, error) {
	return r.s.syncWith(ctx, SyncOptions{})
}

// SyncWith shares the vault through its remote (see syncWith).
func (r Remote) SyncWith(ctx context.Context, opt SyncOptions) (SyncReport, error) {
	return r.s.syncWith(ctx, opt)
}

// Publish sends what a merge changed to the remote (see publish).
func (r Remote) Publish(ctx context.Context) string { return r.s.publish(ctx) }

// PublishSync is the sync after a merge (see publishSync): it leaves the
// publish to a later sync when another one holds the sync lock.
func (r Remote) PublishSync(ctx context.Context) (SyncReport, error) { return r.s.publishSync(ctx) }

// Exists reports whether the vault's git remote exists.
func (r Remote) Exists(ctx context.Context) bool { return r.s.hasRemote(ctx) }

// Status is one Draft's sync status ("queued" when unknown).
func (r Remote) Status(ctx context.Context, id string) string { return r.s.syncStatus(ctx, id) }

// Outbox returns every Draft's sync state.
func (r Remote) Outbox(ctx context.Context) ([]OutboxEntry, error) { return r.s.outboxEntries(ctx) }

// Pending reports whether a Draft waits to be synced.
func (r Remote) Pending(ctx context.Context) bool { return r.s.pending(ctx) }

// OutboxError is the last error writing the outbox met in this process.
func (r Remote) OutboxError() error { return r.s.outboxError() }

// defaultRemoteTimeout bounds one fetch or push (Store.remoteTimeout): a
// remote that accepts and never answers (or a dead link) made lore sync,
// and a running lore mcp's background sync with its lock, wait forever.
const defaultRemoteTimeout = 2 * time.Minute

// remoteGit runs a git command that talks to the remote, within the
// store's remoteTimeout, and with HTTP's own stall limit (under 1 KB/s for
// 30 s).
func (s *Store) remoteGit(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.remoteTimeout)
	defer cancel()
	out, err := runGit(ctx, s.top, append([]string{"-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30"}, args...)...)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return out, fmt.Errorf("git %s: the remote did not answer within %v", args[0], s.remoteTimeout)
	}
	return out, err
}
