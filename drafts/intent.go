package drafts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lore-memory/lore/vault"
)

// A merge changes three things that no single write covers: the work tree
// (and git's index), the org ref, and the merged Drafts' branches. A crash
// between them once left the work tree holding the Drafts' text while the
// org ref had not moved: other projects read unreviewed text as published,
// both Drafts stayed open, and every later merge was refused. So a merge
// first writes its intent (merge.json in the data folder, fsynced) and
// removes it last; the next lore process to open the store finds it and
// finishes the merge, or rolls the work tree back when the org ref has
// moved elsewhere meanwhile. A merge is complete or absent after any crash.

// mergeIntent is what a merge is about to do.
type mergeIntent struct {
	Org      string            `json:"org_ref"`
	Old      string            `json:"old"`
	New      string            `json:"new"`
	WorkTree bool              `json:"work_tree"` // the work tree goes from Old to New
	Drafts   map[string]string `json:"drafts"`    // branch → head, deleted once merged
	At       time.Time         `json:"at"`
}

// crashHook, when set (tests only), is called at each step of a merge; a
// test makes it kill the process there.
var crashHook func(point string)

func crashPoint(point string) {
	if crashHook != nil {
		crashHook(point)
	}
}

func (s *Store) intentPath() string { return filepath.Join(s.v.DataDir(), "merge.json") }

// writeIntent records a merge durably before it touches anything.
func (s *Store) writeIntent(in mergeIntent) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := vault.WriteFileAtomic(s.intentPath(), data); err != nil {
		return fmt.Errorf("record the merge before making it: %w", err)
	}
	syncDir(filepath.Dir(s.intentPath()))
	return nil
}

func (s *Store) clearIntent() { os.Remove(s.intentPath()) }

// finishInterrupted finishes or rolls back a merge a crashed process left half done.
// It takes the store lock; Open calls it when an intent is there.
func (s *Store) finishInterrupted(ctx context.Context) (string, error) {
	if _, err := os.Stat(s.intentPath()); err != nil {
		return "", nil
	}
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return "", err
	}
	defer unlock()
	repo, err := s.repo()
	if err != nil {
		return "", err
	}
	return s.recoverLocked(ctx, repo)
}

// recoverLocked is Recover for a caller that holds the store lock.
func (s *Store) recoverLocked(ctx context.Context, repo *git.Repository) (string, error) {
	data, err := os.ReadFile(s.intentPath())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var in mergeIntent
	if err := json.Unmarshal(data, &in); err != nil || in.Org != s.org || !plumbing.IsHash(in.Old) || !plumbing.IsHash(in.New) {
		s.clearIntent() // torn or foreign: the merge never started to change anything
		return "discarded an unreadable merge record", nil
	}
	old, neu := plumbing.NewHash(in.Old), plumbing.NewHash(in.New)
	org, err := s.refs.read(s.org)
	if err != nil {
		return "", err
	}
	outcome := "finished"
	switch org {
	case old:
		awaitLock(s.refs.path(s.org) + ".lock")
		if err := s.refs.cas(s.org, old, neu); err != nil {
			return "", fmt.Errorf("finish the interrupted merge: %w", err)
		}
		fallthrough
	case neu:
		if in.WorkTree && headBranch(s.gitDir) == s.org {
			if err := s.settleWorkTree(ctx, repo, old, neu, neu); err != nil {
				return "", err
			}
		}
		for branch, head := range in.Drafts {
			if plumbing.IsHash(head) {
				// A lock on the branch may be the killed merge's, left as it
				// died deleting it; a branch that moved since is kept.
				awaitLock(s.refs.path(branch) + ".lock")
				s.refs.cas(branch, plumbing.NewHash(head), plumbing.ZeroHash)
			}
		}
	default:
		// The org ref moved elsewhere meanwhile (a person's git): the merge
		// is abandoned, and the work tree is put back where it took the
		// merge's text.
		outcome = "rolled back"
		if in.WorkTree && headBranch(s.gitDir) == s.org {
			if err := s.settleWorkTree(ctx, repo, neu, old, org); err != nil {
				return "", err
			}
		}
	}
	s.clearIntent()
	return fmt.Sprintf("%s an interrupted merge of %d Draft(s) onto %s", outcome, len(in.Drafts), strings.TrimPrefix(s.org, "refs/heads/")), nil
}

// settleWorkTree brings the files that differ between commits from and to
// to their version in to, where the work tree holds from's version (or
// already to's); a file a person changed since is left alone. Git's index
// entries for those paths are then set to commit index (the branch head).
// A git index lock that a killed process left is removed first.
func (s *Store) settleWorkTree(ctx context.Context, repo *git.Repository, from, to, index plumbing.Hash) error {
	fromTree, toTree, err := s.trees(repo, from, to)
	if err != nil {
		return err
	}
	paths, err := changedPaths(repo.Storer, fromTree, toTree, "")
	if err != nil || len(paths) == 0 {
		return err
	}
	for _, p := range paths {
		want, inTo, err := readBlob(repo.Storer, toTree, p)
		if err != nil {
			return err
		}
		was, inFrom, err := readBlob(repo.Storer, fromTree, p)
		if err != nil {
			return err
		}
		full := filepath.Join(s.top, filepath.FromSlash(p))
		have, rerr := os.ReadFile(full)
		exists := rerr == nil
		switch {
		case exists == inTo && (!exists || bytes.Equal(have, want)):
			continue // already there
		case exists != inFrom || (exists && !bytes.Equal(have, was)):
			continue // a person's own edit: theirs to keep
		case !inTo:
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return err
			}
		default:
			if err := vault.WriteFileAtomic(full, want); err != nil {
				return err
			}
		}
	}
	awaitLock(filepath.Join(s.gitDir, "index.lock"))
	cmd := []string{"-c", "core.quotePath=false", "reset", "-q", index.String(), "--pathspec-from-file=-", "--pathspec-file-nul"}
	if _, err := runGitIn(ctx, s.top, strings.Join(paths, "\x00"), cmd...); err != nil {
		return fmt.Errorf("update git's index after the interrupted merge: %w", err)
	}
	return nil
}
