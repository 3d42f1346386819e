package guard

import (
	"context"

	"github.com/lore-memory/lore/vault"
)

// Input says which changes a check reads: a unified diff, whole files, the
// changes of HEAD since a base branch, the uncommitted work tree, or (the
// zero Input) the staged changes.
type Input struct {
	Diff     []byte   // a unified diff, when not nil
	Files    []string // whole files, relative to the repository root or absolute inside it
	Branch   string   // HEAD's changes since this base
	WorkTree bool     // uncommitted changes (staged or not) against HEAD
}

// Changes reads the changes in selects from the repository holding dir (for
// a diff or files outside any repository, dir itself is the root), and a
// Content for require rules: the work tree for diffs, files and the work
// tree, the index for staged changes, HEAD for a branch range. done
// releases what Content holds. Bad input is a CodeInvalid error.
func Changes(ctx context.Context, dir string, in Input) (diffs []FileDiff, content Content, done func(), err error) {
	done = func() {}
	repo, rerr := OpenRepo(ctx, dir)
	root := dir
	if rerr == nil {
		root = repo.Root
	}
	switch {
	case in.Diff != nil:
		if diffs, err = ParseDiff(in.Diff); err != nil {
			return nil, nil, done, vault.Errorf(vault.CodeInvalid, "the diff: %v", err)
		}
		return diffs, Files(root), done, nil
	case len(in.Files) > 0:
		if diffs, err = WholeFiles(root, in.Files); err != nil {
			return nil, nil, done, vault.Errorf(vault.CodeInvalid, "%v", err)
		}
		return diffs, Files(root), done, nil
	}
	if rerr != nil {
		return nil, nil, done, vault.Errorf(vault.CodeInvalid, "%v", rerr)
	}
	var data []byte
	switch {
	case in.Branch != "":
		data, err = repo.Branch(ctx, in.Branch)
		content, done = repo.Blobs(ctx, "HEAD")
	case in.WorkTree:
		data, err = repo.WorkTree(ctx)
		content = Files(root)
	default:
		data, err = repo.Staged(ctx)
		content, done = repo.Blobs(ctx, "")
	}
	if err == nil {
		diffs, err = ParseDiff(data)
	}
	if err != nil {
		done()
		return nil, nil, func() {}, vault.Errorf(vault.CodeInvalid, "%v", err)
	}
	return diffs, content, done, nil
}

// ChangedPaths lists the paths the work tree (or, with a base, HEAD since
// that base) changes: what the loadout puts first.
func ChangedPaths(ctx context.Context, dir, base string) ([]string, error) {
	diffs, _, done, err := Changes(ctx, dir, Input{Branch: base, WorkTree: base == ""})
	defer done()
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(diffs))
	for i, d := range diffs {
		paths[i] = d.Path()
	}
	return paths, nil
}
