package drafts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

// MergeResult says what a merge did.
type MergeResult = vault.MergeResult

// Merge folds Drafts (by id, any project) into the org ref, for a person. It
// is all or nothing: if any Draft changes a path the org ref also changed
// since the Draft forked, nothing merges and the error names every such
// path. When the vault's work tree is on the org branch it is brought up to
// date — and when it has uncommitted changes to an affected file, merge
// refuses and names them.
func (s *Store) Merge(ctx context.Context, ids []string) (MergeResult, error) {
	if err := s.writable("merge"); err != nil {
		return MergeResult{}, err
	}
	if len(ids) == 0 {
		return MergeResult{}, vault.Errorf(vault.CodeInvalid, "name at least one Draft to merge")
	}
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return MergeResult{}, err
	}
	defer unlock()
	repo, err := s.repo()
	if err != nil {
		return MergeResult{}, err
	}
	if _, err := s.recoverLocked(ctx, repo); err != nil {
		return MergeResult{}, err
	}
	// Uncommitted edits in the vault's work tree are not the person's
	// review: anything with write access there (an agent whose workspace
	// holds the vault, a sync client, a plugin) may have made them. A merge
	// publishes only what the person saw, so it waits until they record
	// the edits themselves (lore commit, or merge --with-edits, which list
	// them first).
	if s.v.Config.CommitsEdits() {
		paths, err := s.pendingEdits(ctx)
		if err != nil {
			return MergeResult{}, err
		}
		if len(paths) > 0 {
			return MergeResult{}, vault.Errorf(vault.CodeConflict, "nothing was merged: the vault's work tree has %d uncommitted edit(s) a merge would publish unreviewed (%s). Look at them (git -C %s diff), then record them as yours (lore commit, or lore drafts merge --with-edits) or undo them, and merge again", len(paths), listSome(paths, 5), s.v.Root)
		}
	}
	return s.mergeLocked(ctx, repo, ids, s.clock())
}

func (s *Store) mergeLocked(ctx context.Context, repo *git.Repository, ids []string, now time.Time) (MergeResult, error) {
	res := MergeResult{OrgRef: s.org, Merged: []string{}}
	all, org, err := s.list(repo)
	if err != nil {
		return res, err
	}
	var picked []*Draft
	for _, arg := range ids {
		id, head := SplitReviewed(arg)
		d, err := pick(all, id)
		if err != nil {
			return res, err
		}
		if err := d.checkReviewed(head); err != nil {
			return res, err
		}
		if len(d.oversize) > 0 {
			return res, oversizeError(d, "does not merge it")
		}
		if len(d.outside) > 0 {
			// The diff a person reviews shows the vault folder only; a
			// fast-forward to the Draft's head would publish the rest too.
			return res, outsideError(d, "does not merge")
		}
		picked = append(picked, d)
	}
	if org.IsZero() {
		return res, vault.Errorf(vault.CodeNotVault, "the org ref %s does not exist", s.org)
	}
	orgCommit, err := repo.CommitObject(org)
	if err != nil {
		return res, err
	}
	cur, curTree := org, orgCommit.TreeHash
	var conflicts, merged []string
	var mergedDrafts []*Draft
	for _, d := range picked {
		id := d.ID
		// Already in the org ref: by ancestry, or (a squash or a rebase on
		// the host) every file as the Draft's head has it. Never twice.
		if d.Merged || s.published(repo, d, []plumbing.Hash{curTree}) {
			res.Skipped = append(res.Skipped, id)
			continue
		}
		baseTree, headTree, err := s.trees(repo, d.base, d.head)
		if err != nil {
			return res, err
		}
		combined, clash, err := s.threeWay(ctx, repo, d, baseTree, headTree, curTree)
		if err != nil {
			return res, err
		}
		if len(clash) > 0 {
			conflicts = append(conflicts, fmt.Sprintf("%s: %s", id, strings.Join(clash, ", ")))
			continue
		}
		if cur == d.base {
			cur, curTree = d.head, headTree // fast-forward
		} else {
			if cur, curTree, err = s.mergeCommit(repo, d, cur, curTree, headTree, combined, now); err != nil {
				return res, err
			}
		}
		merged = append(merged, id)
		mergedDrafts = append(mergedDrafts, d)
	}
	if len(conflicts) > 0 {
		return res, vault.Errorf(vault.CodeConflict, "nothing was merged: the org ref changed these paths since the Draft forked — %s. Update the Draft (or discard it) and merge again", strings.Join(conflicts, "; "))
	}
	res.Commit = cur.String()
	if cur == org {
		res.WorkTree = "unchanged"
		return res, nil
	}
	if err := s.advance(ctx, repo, org, cur, orgCommit.TreeHash, curTree, mergedDrafts, now, &res); err != nil {
		return res, err
	}
	res.Merged = merged
	return res, nil
}

// threeWay compares each path d changed at its base, its head and cur (the
// org tree as merged so far): a path cur left as the base had it, or
// already holds as d's head does, merges as is; one that both changed
// merges by git's three-way file merge when all three versions exist and
// the changes touch different lines (combined holds the result); any other
// is a clash.
func (s *Store) threeWay(ctx context.Context, repo *git.Repository, d *Draft, baseTree, headTree, curTree plumbing.Hash) (combined map[string][]byte, clash []string, err error) {
	combined = map[string][]byte{}
	for _, p := range d.Paths {
		b, inBase, err := blobAt(repo.Storer, baseTree, p)
		if err != nil {
			return nil, nil, err
		}
		h, inHead, _ := blobAt(repo.Storer, headTree, p)
		c, inCur, _ := blobAt(repo.Storer, curTree, p)
		if c == b || c == h {
			continue
		}
		// Both changed the note since the Draft forked: git's three-way
		// file merge, when all three versions exist and they touched
		// different lines.
		if inBase && inHead && inCur {
			vb, err1 := blobBytes(repo, b)
			vh, err2 := blobBytes(repo, h)
			vc, err3 := blobBytes(repo, c)
			if err1 == nil && err2 == nil && err3 == nil {
				if out, clean, err := mergeFile(ctx, vc, vb, vh); err == nil && clean {
					combined[p] = out
					continue
				}
			}
		}
		clash = append(clash, p)
	}
	return combined, clash, nil
}

// mergeCommit writes d's paths (combined's merged texts where there are
// any, else d's head's) onto curTree and commits the result as a merge of
// cur and d's head.
func (s *Store) mergeCommit(repo *git.Repository, d *Draft, cur, curTree, headTree plumbing.Hash, combined map[string][]byte, now time.Time) (plumbing.Hash, plumbing.Hash, error) {
	var err error
	for _, p := range d.Paths {
		h, _, _ := blobAt(repo.Storer, headTree, p)
		if data, ok := combined[p]; ok {
			if h, err = writeBlob(repo.Storer, data); err != nil {
				return cur, curTree, err
			}
		}
		if curTree, err = setPath(repo.Storer, curTree, p, h); err != nil {
			return cur, curTree, err
		}
	}
	sig := Signature(repo, now)
	subject := fmt.Sprintf("Merge Draft %s (project %s)", d.ID, d.Project)
	if n := len(d.Operations); n > 0 {
		subject += fmt.Sprintf(": %s %s", d.Operations[n-1].Op, d.Operations[n-1].Path)
	}
	cur, err = writeCommit(repo, &object.Commit{
		Author: *sig, Committer: *sig, Message: subject + "\n", TreeHash: curTree,
		ParentHashes: []plumbing.Hash{cur, d.head},
	})
	return cur, curTree, err
}

// advance moves the org ref from org to cur (and the work tree with it when
// it has the org branch checked out) and deletes the merged Drafts'
// branches, leaving a merge intent behind until it is done, so a crash is
// completed by the next lore process (intent.go).
func (s *Store) advance(ctx context.Context, repo *git.Repository, org, cur, orgTree, curTree plumbing.Hash, mergedDrafts []*Draft, now time.Time, res *MergeResult) error {
	onOrg := headBranch(s.gitDir) == s.org
	if onOrg {
		if err := s.checkClean(repo, orgTree, curTree); err != nil {
			return err
		}
	}
	// From here a crash leaves the intent behind, and the next lore process
	// completes the merge (intent.go).
	intent := mergeIntent{Org: s.org, Old: org.String(), New: cur.String(), WorkTree: onOrg, Drafts: map[string]string{}, At: now}
	for _, d := range mergedDrafts {
		intent.Drafts[d.Branch] = d.Head
	}
	if err := s.writeIntent(intent); err != nil {
		return err
	}
	crashPoint("after-intent")
	if onOrg {
		if _, err := runGit(ctx, s.top, "read-tree", "-m", "-u", org.String(), cur.String()); err != nil {
			s.clearIntent()
			return fmt.Errorf("update the work tree: %w (nothing was merged)", err)
		}
		res.WorkTree = "updated"
	} else {
		res.WorkTree = "not on " + strings.TrimPrefix(s.org, "refs/heads/") + ": only the branch moved"
	}
	crashPoint("after-worktree")
	if err := s.refs.cas(s.org, org, cur); err != nil {
		if onOrg {
			runGit(ctx, s.top, "read-tree", "-m", "-u", cur.String(), org.String())
		}
		s.clearIntent()
		return fmt.Errorf("%s moved while merging (run merge again): %w", s.org, err)
	}
	crashPoint("after-org")
	for _, d := range mergedDrafts {
		if err := s.refs.cas(d.Branch, d.head, plumbing.ZeroHash); err == nil {
			s.outboxDiscarded(ctx, d.ID)
		}
	}
	s.clearIntent()
	return nil
}

// checkClean refuses a work-tree update when a file the merge changes has
// uncommitted changes (its bytes on disk are not the org ref's).
func (s *Store) checkClean(repo *git.Repository, from, to plumbing.Hash) error {
	paths, err := changedPaths(repo.Storer, from, to, "")
	if err != nil {
		return err
	}
	var dirty, inTheWay []string
	for _, p := range paths {
		want, inTree, err := readBlob(repo.Storer, from, p)
		if err != nil {
			return err
		}
		have, err := os.ReadFile(filepath.Join(s.top, filepath.FromSlash(p)))
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
			// An untracked file where the new tree has a folder, or a
			// folder where it has a file: git would refuse, or lose it.
			inTheWay = append(inTheWay, s.blocker(p))
			continue
		}
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if exists := err == nil; exists != inTree || (exists && !bytes.Equal(have, want)) {
			dirty = append(dirty, p)
		}
	}
	if len(inTheWay) > 0 {
		slices.Sort(inTheWay)
		return vault.Errorf(vault.CodeConflict, "nothing was merged: untracked %s in the vault's work tree stands where the new tree has other files; move it aside (it is not lost), then try again", strings.Join(slices.Compact(inTheWay), ", "))
	}
	if len(dirty) > 0 {
		return vault.Errorf(vault.CodeConflict, "nothing was merged: uncommitted changes to %s; commit or stash them, then merge again", strings.Join(dirty, ", "))
	}
	return nil
}

// blocker is what stands in the way of the repository path p in the work
// tree: p itself when it is a folder, or the first of its parents that is
// not one.
func (s *Store) blocker(p string) string {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if st, err := os.Lstat(filepath.Join(s.top, filepath.FromSlash(prefix))); err == nil && !st.IsDir() {
			return prefix
		}
	}
	return p + "/"
}

// SplitReviewed splits a Draft named with the head a person reviewed,
// "drf_…@<commit>", into the id and the head ("" when none was named).
func SplitReviewed(arg string) (id, head string) {
	id, head, _ = strings.Cut(arg, "@")
	return id, head
}

// minHead is the fewest hex digits of a reviewed head lore takes: 12, as
// lore prints heads, too many for an agent to make a commit that shares
// them.
const minHead = 12

// checkReviewed refuses a merge of d when the head the person reviewed
// (a prefix of a commit, "" when the caller named none) is not d's head:
// the Draft moved after it was reviewed.
func (d *Draft) checkReviewed(head string) error {
	if head == "" {
		return nil
	}
	if len(head) < minHead || len(head) > 40 || strings.Trim(strings.ToLower(head), "0123456789abcdef") != "" {
		return vault.Errorf(vault.CodeInvalid, "%s@%s: a reviewed head is %d to 40 hex digits of the commit lore drafts diff showed", d.ID, head, minHead)
	}
	if !strings.HasPrefix(d.head.String(), strings.ToLower(head)) {
		return vault.Errorf(vault.CodeContentChanged, "nothing was merged: Draft %s moved after it was reviewed (reviewed %s, now %s); review it again (lore drafts diff %s) and merge the head you saw", d.ID, head, shortHead(d.head), d.ID)
	}
	return nil
}

// shortHead is a commit as lore prints it for people (minHead digits).
func shortHead(h plumbing.Hash) string { return h.String()[:minHead] }

// Discard deletes Drafts (by id, any project), for a person.
func (s *Store) Discard(ctx context.Context, ids []string) ([]string, error) {
	if err := s.writable("discard"); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var done []string
	for _, arg := range ids {
		id, head := SplitReviewed(arg)
		d, err := s.find(ctx, id)
		if err != nil {
			return done, err
		}
		if err := d.checkReviewed(head); err != nil {
			return done, err
		}
		id = d.ID
		if err := s.refs.cas(d.Branch, d.head, plumbing.ZeroHash); err != nil {
			return done, fmt.Errorf("discard %s: %w", id, err)
		}
		s.outboxDiscarded(ctx, id)
		done = append(done, id)
	}
	return done, nil
}

// Diff returns a unified diff of what a Draft proposes: for each path it
// changes, the version it forked from (the org ref's then, or a person's
// uncommitted version it started from, see pending.go) against the Draft's,
// with the Draft as read (its Head is the commit the diff shows: a merge
// that names it merges exactly what was shown).
func (s *Store) Diff(ctx context.Context, id string) (string, vault.Draft, error) {
	d, err := s.find(ctx, id)
	if err != nil {
		return "", vault.Draft{}, err
	}
	patch, err := s.diff(ctx, d)
	return patch, d.Draft, err
}

func (s *Store) diff(ctx context.Context, d *Draft) (string, error) {
	repo, err := s.repo()
	if err != nil {
		return "", err
	}
	orgTree, headTree, err := s.trees(repo, d.base, d.head)
	if err != nil {
		return "", err
	}
	ta, err := object.GetTree(repo.Storer, orgTree)
	if err != nil {
		return "", err
	}
	tb, err := object.GetTree(repo.Storer, headTree)
	if err != nil {
		return "", err
	}
	chs, err := object.DiffTree(ta, tb)
	if err != nil {
		return "", err
	}
	want := map[string]bool{}
	for _, p := range d.Paths {
		want[p] = true
	}
	var keep object.Changes
	for _, ch := range chs {
		if want[ch.From.Name] || want[ch.To.Name] {
			keep = append(keep, ch)
		}
	}
	if len(keep) == 0 {
		return "", nil
	}
	patch, err := keep.PatchContext(ctx)
	if err != nil {
		return "", err
	}
	return linkNotes(repo, keep) + patch.String(), nil
}

// linkNotes says, above a diff, which of its paths are or were symbolic
// links, and to what: in a unified diff a link is a one-line file holding
// its target, which reads as a note's edit (a link replaced by a file, or
// a new link serving another folder's note under a shared name).
func linkNotes(repo *git.Repository, chs object.Changes) string {
	var b strings.Builder
	target := func(e object.ChangeEntry) string {
		data, err := blobBytes(repo, e.TreeEntry.Hash)
		if err != nil {
			return "?"
		}
		return termtext.Visible(string(data))
	}
	for _, ch := range chs {
		fromLink := ch.From.Name != "" && ch.From.TreeEntry.Mode == filemode.Symlink
		toLink := ch.To.Name != "" && ch.To.TreeEntry.Mode == filemode.Symlink
		switch {
		case fromLink && toLink:
			fmt.Fprintf(&b, "# %s: symlink to %s, now a symlink to %s\n", ch.To.Name, target(ch.From), target(ch.To))
		case toLink && ch.From.Name == "":
			fmt.Fprintf(&b, "# %s: new symlink to %s (not a note of its own: another name of its target)\n", ch.To.Name, target(ch.To))
		case toLink:
			fmt.Fprintf(&b, "# %s: was a file, now a symlink to %s\n", ch.To.Name, target(ch.To))
		case fromLink && ch.To.Name == "":
			fmt.Fprintf(&b, "# %s: symlink to %s, deleted\n", ch.From.Name, target(ch.From))
		case fromLink:
			fmt.Fprintf(&b, "# %s: was a symlink to %s, now a file of its own (the note it named is unchanged)\n", ch.To.Name, target(ch.From))
		}
	}
	return b.String()
}

// runGit runs the git CLI in dir (gitcli: never prompting, literal
// pathspecs).
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	return runGitIn(ctx, dir, "", args...)
}

// runGitIn is runGit with stdin.
func runGitIn(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	out, err := gitcli.Run(ctx, dir, strings.NewReader(stdin), args...)
	return string(out), err
}

// listSome joins the first n paths, and says how many more there are.
func listSome(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:n], ", "), len(paths)-n)
}
