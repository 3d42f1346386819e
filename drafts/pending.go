package drafts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/lore-memory/lore/vault"
)

// A person edits notes in any editor and need not know git: their edits are
// published memory from the moment they are saved (lore reads the work
// tree), and lore records them as the person's own commit on the org ref
// (CommitEdits) only when they ask: `lore commit`, or a merge with
// --with-edits; a plain merge waits while there are any (merge.go). A person who commits themselves sets
// commit_edits: false in lore.yaml; a merge touching an uncommitted note then
// waits for them, as before.
//
// An agent's Draft of a note with uncommitted edits forks from a "pending
// base" commit: the org ref plus the person's version of that note,
// authored as the person (pendingBase). The Draft then holds only the
// agent's change on top of the person's text, so `lore drafts diff` shows
// just that, and a merge after the person's edit was committed sees no
// clash. When the org ref and a Draft both changed a note since the Draft
// forked, the merge combines them with git's own three-way file merge (git
// merge-file) and stops only where the two touched the same lines.

// pendingEdits lists the vault's memory files whose work-tree bytes differ
// from the org ref (vault-relative), when the work tree is on the org branch.
func (s *Store) pendingEdits(ctx context.Context) ([]string, error) {
	if headBranch(s.gitDir) != s.org {
		return nil, nil
	}
	vaultDir := strings.TrimSuffix(s.prefix, "/")
	if vaultDir == "" {
		vaultDir = "."
	}
	out, err := runGit(ctx, s.top, "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", vaultDir)
	if err != nil {
		return nil, err
	}
	var paths []string
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 {
			continue
		}
		code, p := rec[:2], rec[3:]
		if code[0] == 'R' || code[0] == 'C' {
			i++ // the rename's source follows
			if i < len(recs) {
				if rel, ok := strings.CutPrefix(recs[i], s.prefix); ok && s.recordable(rel) {
					paths = append(paths, rel)
				}
			}
		}
		if rel, ok := strings.CutPrefix(p, s.prefix); ok && s.recordable(rel) {
			paths = append(paths, rel)
		}
	}
	return paths, nil
}

// recordable: the files lore commits for a person — notes, lore.yaml and
// the guidelines file.
func (s *Store) recordable(rel string) bool {
	if rel == vault.ConfigFile || rel == s.v.Config.Guidelines {
		return true
	}
	clean, err := vault.CleanPath(rel)
	return err == nil && clean == rel && vault.IsMemoryPath(rel)
}

// CommitEdits records the person's uncommitted edits to memory files as
// their own commit on the org ref (git's user.name and user.email; lore's
// fallback identity when git has none), and returns the commit and the
// paths. Nothing else they staged is committed. It does nothing when the
// work tree is not on the org branch, or commit_edits is false.
func (s *Store) CommitEdits(ctx context.Context) (string, []string, error) {
	if err := s.writable("commit"); err != nil {
		return "", nil, err
	}
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return "", nil, err
	}
	defer unlock()
	return s.commitEditsLocked(ctx, "Record edits to notes")
}

func (s *Store) commitEditsLocked(ctx context.Context, subject string) (string, []string, error) {
	if !s.v.Config.CommitsEdits() {
		return "", nil, nil
	}
	paths, err := s.pendingEdits(ctx)
	if err != nil || len(paths) == 0 {
		return "", nil, err
	}
	full := make([]string, len(paths))
	for i, p := range paths {
		full[i] = s.prefix + p
	}
	list := strings.Join(full, "\x00")
	if _, err := runGitIn(ctx, s.top, list, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return "", nil, fmt.Errorf("record your edits: %w", err)
	}
	msg := subject + "\n\nlore recorded these edits to the vault as their author's own commit:\n- " + strings.Join(paths, "\n- ") + "\n"
	args := []string{"-c", "commit.gpgsign=false"}
	if _, err := runGit(ctx, s.top, "var", "GIT_AUTHOR_IDENT"); err != nil {
		// git knows no identity: lore's fallback, as for its own commits.
		repo, err := s.repo()
		if err != nil {
			return "", nil, err
		}
		sig := Signature(repo, s.clock())
		args = append(args, "-c", "user.name="+sig.Name, "-c", "user.email="+sig.Email)
	}
	args = append(args, "commit", "-q", "--no-verify", "-m", msg, "--pathspec-from-file=-", "--pathspec-file-nul")
	if _, err := runGitIn(ctx, s.top, list, args...); err != nil {
		// Nothing half done: what add staged is unstaged again.
		runGitIn(ctx, s.top, list, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul")
		return "", nil, fmt.Errorf("record your edits: %w", err)
	}
	head, err := s.refs.read(s.org)
	return head.String(), paths, err
}

// pendingBase returns the commit a new Draft of path p forks from: the org
// ref itself when the work tree holds the org ref's version of p, else a
// commit on top of it holding the person's uncommitted version (authored as
// the person), so the Draft carries only the agent's change.
func (w *write) pendingBase(org plumbing.Hash, p string) (plumbing.Hash, error) {
	s := w.s
	orgCommit, err := w.repo.CommitObject(org)
	if err != nil {
		return org, err
	}
	published, inOrg, err := readBlob(w.repo.Storer, orgCommit.TreeHash, s.prefix+p)
	if err != nil {
		return org, err
	}
	data, err := s.v.ReadFile(filepath.FromSlash(p)) // through the vault's root: no symlink out
	if err != nil || (inOrg && bytes.Equal(data, published)) {
		return org, nil // not on disk (a Draft's own file), or unchanged
	}
	blob, err := writeBlob(w.repo.Storer, data)
	if err != nil {
		return org, err
	}
	tree, err := setPath(w.repo.Storer, orgCommit.TreeHash, s.prefix+p, blob)
	if err != nil {
		return org, err
	}
	sig := Signature(w.repo, s.clock())
	return writeCommit(w.repo, &object.Commit{Author: *sig, Committer: *sig, TreeHash: tree, ParentHashes: []plumbing.Hash{org},
		Message: fmt.Sprintf("Your uncommitted edit of %s\n\nlore recorded the version of %s that an agent's Draft starts from; it was not yet committed to %s.\n", p, p, strings.TrimPrefix(s.org, "refs/heads/"))})
}

// mergeFile is git's three-way merge of one file's versions: ours (the org
// ref's now), base (where the Draft forked) and theirs (the Draft's). It
// reports whether the merge was clean.
func mergeFile(ctx context.Context, ours, base, theirs []byte) ([]byte, bool, error) {
	tmp, err := os.MkdirTemp("", "lore-merge-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(tmp)
	names := []string{"ours", "base", "theirs"}
	for i, data := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(tmp, names[i]), data, 0o600); err != nil {
			return nil, false, err
		}
	}
	out, err := runGit(ctx, tmp, "merge-file", "-p", "--quiet", "ours", "base", "theirs")
	if err != nil {
		return nil, false, nil // conflicts (git exits with their count) or a failure: not clean
	}
	return []byte(out), true, nil
}

// blobBytes reads a blob (zero: absent).
func blobBytes(repo *git.Repository, h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	if size, err := blobSize(repo.Storer, h); err != nil {
		return nil, err
	} else if size > vault.MaxFileBytes {
		return nil, blobTooLarge(h.String(), size)
	}
	b, err := object.GetBlob(repo.Storer, h)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), err
}

// effective returns the version of path p (vault-relative) that a Draft's
// project sees: the Draft's, unless a person edited the note in the work
// tree after the Draft forked from it — a person's newer edit is never
// hidden behind an agent's older proposal. Then it is the person's edit
// combined with the Draft's change (git merge-file), or, where the two
// touched the same lines (or the Draft deletes the note), the person's
// edit alone. ok is false when the note is gone in that view.
func (s *Store) effective(ctx context.Context, repo *git.Repository, d *Draft, p string) ([]byte, bool, error) {
	baseTree, headTree, err := s.trees(repo, d.base, d.head)
	if err != nil {
		return nil, false, err
	}
	head, inHead, err := readBlob(repo.Storer, headTree, s.prefix+p)
	if err != nil {
		return nil, false, err
	}
	work, werr := s.v.ReadFile(filepath.FromSlash(p)) // through the vault's root: no symlink out
	if werr != nil {
		return head, inHead, nil // not in the work tree: the Draft's version
	}
	base, inBase, err := readBlob(repo.Storer, baseTree, s.prefix+p)
	if err != nil {
		return nil, false, err
	}
	switch {
	case inBase && bytes.Equal(work, base):
		return head, inHead, nil // the person has not touched it since
	case inHead && bytes.Equal(work, head):
		return head, true, nil
	case !inBase && !inHead:
		return work, true, nil
	}
	if inBase && inHead {
		if merged, clean, err := mergeFile(ctx, work, base, head); err == nil && clean {
			return merged, true, nil
		}
	}
	return work, true, nil
}
