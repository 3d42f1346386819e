package drafts

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/lore-memory/lore/vault"
)

// A team shares one remote. Each sync fetches the org ref and every Draft
// branch (drafts/*) from it, then, under the store's write lock:
//
//   - a teammate's Draft becomes a local branch (laid over its own project
//     only, as every Draft is); one whose remote branch moved ahead is
//     fast-forwarded; one that moved on both machines gets a merge commit
//     joining both sides when their files merge cleanly, and otherwise is
//     left as it is here, with the remote's commits kept in
//     refs/remotes/<remote>/drafts/… and the reason in the outbox;
//   - a Draft whose text is already published (its head in the org ref's
//     history, or, after a squash or rebase on the host, every file it
//     touched as its head has it) is retired here and on the remote, and
//     never merged twice; one whose remote branch was deleted elsewhere
//     with nothing new here is retired too (a teammate merged or discarded
//     it), while one with new commits here is pushed again;
//   - the org ref moves forward to the remote's when it is behind, with the
//     work tree when the org branch is checked out and no uncommitted edit
//     touches a file that changed (such edits are kept and named); when
//     both sides published, nothing moves unless the person asked for a
//     merge commit (SyncOptions.Merge).
//
// What came in (notes changed, by whom) goes into the report.

// SyncOptions say what a sync may do beyond pushing and fast-forwarding.
type SyncOptions struct {
	// Merge makes a merge commit, as the person, when both this machine and
	// the remote published since the last sync.
	Merge bool
}

// NoteChange is a published note that changed in what a sync brought in.
type NoteChange struct {
	Path    string   `json:"path"`
	Authors []string `json:"authors"`
}

// HostName is this machine's name as a Draft's commits record it: the host
// name without its domain, or "" when there is none to give.
func HostName() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	h, _, _ = strings.Cut(h, ".")
	if strings.ContainsAny(h, " \t\n") {
		return ""
	}
	return h
}

// tracking is where the remote's org ref is fetched to.
func (s *Store) tracking() string {
	return "refs/remotes/" + s.remote + "/" + strings.TrimPrefix(s.org, "refs/heads/")
}

// remoteDrafts is where the remote's Draft branches are fetched to.
func (s *Store) remoteDrafts() string { return "refs/remotes/" + s.remote + "/drafts/" }

// fetchDrafts fetches every Draft branch of the remote, pruning those the
// remote no longer has.
func (s *Store) fetchDrafts(ctx context.Context) error {
	_, err := s.remoteGit(ctx, "fetch", "--no-tags", "--quiet", "--prune", s.remote, "+"+BranchPrefix+"*:"+s.remoteDrafts()+"*")
	return err
}

// team brings what the remote has into this vault (see above). It runs
// under the store's write lock.
func (s *Store) team(ctx context.Context, opt SyncOptions, rep *SyncReport) error {
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return err
	}
	defer unlock()
	repo, err := s.repo()
	if err != nil {
		return err
	}
	if _, err := s.recoverLocked(ctx, repo); err != nil {
		return err
	}
	if err := s.pullOrg(ctx, repo, opt, rep); err != nil {
		return err
	}
	if err := s.adopt(ctx, repo, rep); err != nil {
		return err
	}
	return s.retire(ctx, repo, rep)
}

// adopt makes the remote's Draft branches local (see above).
func (s *Store) adopt(ctx context.Context, repo *git.Repository, rep *SyncReport) error {
	remote, err := s.refs.list(s.remoteDrafts())
	if err != nil {
		return err
	}
	local, err := s.refs.list(BranchPrefix)
	if err != nil {
		return err
	}
	entries, err := s.out.Entries(ctx)
	if err != nil {
		return err
	}
	rows := map[string]OutboxEntry{}
	for _, e := range entries {
		rows[e.DraftID] = e
	}
	now := s.clock()
	changed := false
	for _, name := range sortedNames(remote) {
		branch := BranchPrefix + strings.TrimPrefix(name, s.remoteDrafts())
		project, id, ok := splitBranch(branch)
		if !ok {
			continue
		}
		r, l := remote[name], local[branch]
		row, known := rows[id]
		if l != r {
			if d, err := s.draftAt(repo, branch, project, id, r); err == nil && len(d.outside) > 0 {
				rep.Refused = append(rep.Refused, outsideError(d, "does not bring it here").Error())
				continue
			} else if err == nil && len(d.oversize) > 0 {
				rep.Refused = append(rep.Refused, oversizeError(d, "does not bring it here").Error())
				continue
			}
		}
		switch {
		case l == r:
			if known && row.Pushed != r.String() && row.Head == r.String() {
				s.out.Synced(ctx, id, r.String(), now)
			}
		case l.IsZero():
			if known && row.DeleteOnly {
				continue // closed here: the delete on the remote is queued
			}
			if err := s.refs.cas(branch, plumbing.ZeroHash, r); err != nil {
				return err
			}
			crashPoint("sync-mid-adopt")
			s.enqueue(ctx, id, project, branch, r.String())
			s.out.Synced(ctx, id, r.String(), now)
			rep.Fetched = append(rep.Fetched, id)
			changed = true
		default:
			if ok, _ := isAncestor(repo, l, r); ok { // the remote is ahead
				if err := s.refs.cas(branch, l, r); err != nil {
					return err
				}
				s.enqueue(ctx, id, project, branch, r.String())
				s.out.Synced(ctx, id, r.String(), now)
				rep.Updated = append(rep.Updated, id)
				changed = true
				continue
			}
			if ok, _ := isAncestor(repo, r, l); ok {
				continue // ahead here: pushed below
			}
			m, err := s.combine(ctx, repo, branch, id, l, r)
			if err != nil {
				s.out.Failed(ctx, id, err.Error(), now)
				rep.Failed = append(rep.Failed, id)
				continue
			}
			if err := s.refs.cas(branch, l, m); err != nil {
				return err
			}
			// Pushed as a fast-forward of what the remote has.
			s.enqueue(ctx, id, project, branch, r.String())
			s.out.Synced(ctx, id, r.String(), now)
			s.enqueue(ctx, id, project, branch, m.String())
			rep.Combined = append(rep.Combined, id)
			changed = true
		}
	}
	// Drafts pushed before whose remote branch is gone. A teammate's with
	// nothing new here was closed elsewhere (merged or discarded by them;
	// they hold it): retired. One made on this machine, or with new commits
	// here, is pushed again: a branch deleted on the host, or a remote that
	// lost it, never takes away the only copy of a Draft.
	for branch, l := range local {
		project, id, ok := splitBranch(branch)
		if !ok {
			continue
		}
		if _, there := remote[s.remoteDrafts()+strings.TrimPrefix(branch, BranchPrefix)]; there {
			continue
		}
		row, known := rows[id]
		if !known || row.Pushed == "" || row.DeleteOnly {
			continue
		}
		if row.Pushed == l.String() && !s.madeHere(ctx, repo, branch, project, id, l) {
			if err := s.refs.cas(branch, l, plumbing.ZeroHash); err != nil {
				return err
			}
			s.out.Forget(ctx, id)
			rep.Retired = append(rep.Retired, id)
			changed = true
			continue
		}
		s.out.Forget(ctx, id) // the remote has nothing: push without a lease on a commit
		s.enqueue(ctx, id, project, branch, l.String())
	}
	if changed {
		s.ix.NotifyChanged()
	}
	return nil
}

// madeHere reports whether a store on this machine made any of the Draft's
// commits (the outbox logs every operation it acknowledged); a Draft that
// cannot be read counts as made here, so it is kept.
func (s *Store) madeHere(ctx context.Context, repo *git.Repository, branch, project, id string, head plumbing.Hash) bool {
	d, err := s.draftAt(repo, branch, project, id, head)
	if err != nil {
		return true
	}
	for _, op := range d.Operations {
		if op.LocalOperationID != "" && s.out.OperationLogged(ctx, op.LocalOperationID) {
			return true
		}
	}
	return false
}

// combine joins the two sides of a Draft that moved on two machines with a
// merge commit, when git merges their trees without a conflict.
func (s *Store) combine(ctx context.Context, repo *git.Repository, branch, id string, l, r plumbing.Hash) (plumbing.Hash, error) {
	out, err := runGit(ctx, s.top, "merge-tree", "--write-tree", "--no-messages", l.String(), r.String())
	tree := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if err != nil || len(tree) != 40 {
		return plumbing.ZeroHash, fmt.Errorf("%s has commits here and on %s that change the same lines; lore keeps both (the remote's in %s): combine them with git (git merge %s%s) and sync again",
			strings.TrimPrefix(branch, "refs/heads/"), s.remote, s.remoteDrafts()+strings.TrimPrefix(branch, BranchPrefix), s.remoteDrafts(), strings.TrimPrefix(branch, BranchPrefix))
	}
	lc, err := repo.CommitObject(l)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t := trailers(lc.Message)
	msg := fmt.Sprintf("lore combine %s\n\nThe Draft moved on two machines; this joins both.\n\nLore-Draft: %s\nLore-Operation: combine\nLore-Resource: %s\nLore-Path: %s\nLore-Project: %s\n",
		t["Lore-Path"], id, t["Lore-Resource"], t["Lore-Path"], t["Lore-Project"])
	sig := Signature(repo, s.clock())
	return writeCommit(repo, &object.Commit{Author: *sig, Committer: *sig, Message: msg,
		TreeHash: plumbing.NewHash(tree), ParentHashes: []plumbing.Hash{l, r}})
}

// retire drops the Drafts whose text is already published (see above),
// here and on the remote.
func (s *Store) retire(ctx context.Context, repo *git.Repository, rep *SyncReport) error {
	ds, _, err := s.list(repo)
	if err != nil {
		return err
	}
	// Retired by content only against the local org ref: the remote's
	// (a force-pushed org branch) is not the person's published memory.
	trees := []plumbing.Hash{}
	if h, err := s.refs.read(s.org); err == nil && !h.IsZero() {
		if c, err := repo.CommitObject(h); err == nil {
			trees = append(trees, c.TreeHash)
		}
	}
	changed := false
	for _, d := range ds {
		if !d.Merged {
			if !s.published(repo, d, trees) {
				continue
			}
			// A Draft made here is retired by its content only while its
			// head is a commit made here (a squash or a rebase of it on the
			// host): a teammate with push rights to drafts/* can add a
			// commit on top that makes its files "as the org has them", and
			// such a Draft is kept for the person to discard or merge.
			if s.madeHere(ctx, repo, d.Branch, d.Project, d.ID, d.head) && !s.out.CommitLogged(ctx, d.head.String()) {
				rep.Kept = append(rep.Kept, d.ID)
				continue
			}
		}
		// Anything retired stays recoverable: refs/lore/retired/<id>.
		old, err := s.refs.read(RetiredPrefix + d.ID)
		if err != nil {
			return err
		}
		if err := s.refs.cas(RetiredPrefix+d.ID, old, d.head); err != nil {
			return err
		}
		if err := s.refs.cas(d.Branch, d.head, plumbing.ZeroHash); err != nil {
			return err
		}
		s.outboxDiscarded(ctx, d.ID)
		rep.Retired = append(rep.Retired, d.ID)
		changed = true
	}
	if changed {
		s.ix.NotifyChanged()
	}
	return nil
}

// RetiredPrefix is where sync keeps the head of each Draft it retired, so
// none is lost: git branch drafts/<project>/<id> refs/lore/retired/<id>
// brings one back.
const RetiredPrefix = "refs/lore/retired/"

// published reports whether every file d touched is, in one of trees, as
// d's head has it: what a squash or a rebase on the host leaves.
func (s *Store) published(repo *git.Repository, d *Draft, trees []plumbing.Hash) bool {
	if len(d.Paths) == 0 {
		return false
	}
	_, head, err := s.trees(repo, d.base, d.head)
	if err != nil {
		return false
	}
	for _, t := range trees {
		all := true
		for _, p := range d.Paths {
			want, inHead, err1 := blobAt(repo.Storer, head, p)
			have, inTree, err2 := blobAt(repo.Storer, t, p)
			if err1 != nil || err2 != nil || inHead != inTree || want != have {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// pullOrg brings the remote's published memory here: a fast-forward of the
// org ref (and the work tree on the org branch) when it is behind, a merge
// commit when both sides published and opt.Merge asks for one.
func (s *Store) pullOrg(ctx context.Context, repo *git.Repository, opt SyncOptions, rep *SyncReport) error {
	local, err := s.refs.read(s.org)
	if err != nil {
		return err
	}
	remote, err := s.refs.read(s.tracking())
	if err != nil {
		return err
	}
	if local.IsZero() || remote.IsZero() || local == remote {
		return nil
	}
	if ok, _ := isAncestor(repo, remote, local); ok {
		return nil // ahead: pushed
	}
	target := remote
	behind, _ := isAncestor(repo, local, remote)
	if !behind {
		if !opt.Merge {
			return nil // orgState says what to do
		}
		out, err := runGit(ctx, s.top, "merge-tree", "--write-tree", "--name-only", local.String(), remote.String())
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err != nil || len(lines[0]) != 40 {
			var clash []string
			for _, l := range lines[1:] {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Auto-merging") && !strings.HasPrefix(l, "CONFLICT") {
					clash = append(clash, l)
				}
			}
			rep.OrgNote = fmt.Sprintf("both sides changed %s: nothing was merged; merge %s into %s with git, then sync again", strings.Join(clash, ", "), s.tracking(), strings.TrimPrefix(s.org, "refs/heads/"))
			return nil
		}
		sig := Signature(repo, s.clock())
		if target, err = writeCommit(repo, &object.Commit{Author: *sig, Committer: *sig, TreeHash: plumbing.NewHash(lines[0]),
			Message:      fmt.Sprintf("Merge %s/%s (lore sync --merge)\n", s.remote, strings.TrimPrefix(s.org, "refs/heads/")),
			ParentHashes: []plumbing.Hash{local, remote}}); err != nil {
			return err
		}
	}
	lc, err := repo.CommitObject(local)
	if err != nil {
		return err
	}
	tc, err := repo.CommitObject(target)
	if err != nil {
		return err
	}
	var res vault.MergeResult
	if err := s.advance(ctx, repo, local, target, lc.TreeHash, tc.TreeHash, nil, s.clock(), &res); err != nil {
		if vault.ErrorCode(err) == vault.CodeConflict {
			rep.OrgNote = strings.Replace(err.Error(), "nothing was merged", "the published memory did not come in", 1)
			return nil
		}
		return err
	}
	if !behind {
		rep.OrgNote = "merged " + s.remote + "/" + strings.TrimPrefix(s.org, "refs/heads/") + " with a merge commit"
	} else {
		rep.OrgNote = "came in from " + s.remote
	}
	rep.CameIn, err = s.cameIn(ctx, local, remote)
	s.ix.NotifyChanged()
	return err
}

// cameIn lists the notes the commits from..to changed, with their authors.
func (s *Store) cameIn(ctx context.Context, from, to plumbing.Hash) ([]NoteChange, error) {
	out, err := runGit(ctx, s.top, "log", "--no-merges", "--format=%x00%an", "--name-only", from.String()+".."+to.String())
	if err != nil {
		return nil, err
	}
	by := map[string]map[string]bool{}
	author := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "\x00"):
			author = l[1:]
		case strings.HasSuffix(l, ".md") && strings.HasPrefix(l, s.prefix):
			p := strings.TrimPrefix(l, s.prefix)
			if by[p] == nil {
				by[p] = map[string]bool{}
			}
			by[p][author] = true
		}
	}
	var changes []NoteChange
	for p, as := range by {
		c := NoteChange{Path: path.Clean(p)}
		for a := range as {
			c.Authors = append(c.Authors, a)
		}
		sort.Strings(c.Authors)
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}
