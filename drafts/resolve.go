package drafts

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// A store operation reads the resource it changes from git and the work
// tree, under the store lock — never from the index. The index's copy of the
// Drafts is shared by every lore process and may lag (a slower process can
// write an older overlay; a rebuild empties and refills it), so a hash check
// against it could pass on text that is no longer the branch's, and a commit
// built on the real head would then undo an acknowledged change. Reading the
// Draft branch head that the commit goes on, while holding the lock, makes
// the expected_hash check and the commit one step. The index only helps to
// find which file a resource id names, and every answer it gives is checked
// against the file itself.

// seen is a resource as the project sees it: its bytes and where they come
// from (draft nil: the work tree).
type seen struct {
	vault.Loaded
	draft     *Draft
	derivedID bool // the id comes from the path (no frontmatter id)
}

// projectDrafts returns the project's open Drafts, read from the refs now.
func (w *write) projectDrafts() ([]*Draft, error) {
	if w.drafts != nil {
		return w.drafts, nil
	}
	all, _, err := w.s.list(w.repo)
	if err != nil {
		return nil, err
	}
	w.drafts = []*Draft{}
	for _, d := range all {
		if d.Project == w.project && !d.Merged {
			w.drafts = append(w.drafts, d)
		}
	}
	return w.drafts, nil
}

// resolve finds a resource (by id or path) in the project's Effective Memory:
// the project's own open Drafts first, then the vault's work tree. A path
// outside the project's view (another project's folder) is not found.
func (w *write) resolve(ctx context.Context, target string) (seen, bool, error) {
	p, err := vault.TargetPath(target)
	if err != nil {
		return seen{}, false, err
	}
	ds, err := w.projectDrafts()
	if err != nil {
		return seen{}, false, err
	}
	// The Draft that carries the resource (by id), or that changes the path.
	for _, d := range ds {
		if p == "" && d.ResourceID == target {
			if d.Path == "" {
				return seen{}, false, nil // deleted in the Draft
			}
			return w.fromDraft(ctx, d, d.Path)
		}
	}
	if p == "" {
		if p, err = w.workTreePath(ctx, target); err != nil || p == "" {
			return seen{}, false, err
		}
	}
	// A symlink in the work tree is another name of the note it points
	// to: an edit through it edits that note (seen, and owned, under its
	// own path), and a link to anything else is refused with the reason.
	// Written at the link's path, it replaced the link with a file, and
	// the diff showed a one-line edit.
	if to, err := w.s.v.LinkTarget(filepath.FromSlash(p)); err != nil {
		return seen{}, false, err
	} else if to != "" && to != p {
		return w.resolve(ctx, to)
	}
	if owner := vault.ProjectOf(p); owner != "" && owner != w.project {
		return seen{}, false, nil
	}
	for _, d := range ds {
		for _, dp := range d.Paths {
			if strings.TrimPrefix(dp, w.s.prefix) == p {
				return w.fromDraft(ctx, d, p)
			}
		}
	}
	data, err := w.s.v.ReadFile(filepath.FromSlash(p))
	if vault.ErrorCode(err) == vault.CodeNotFound {
		return seen{}, false, nil
	}
	if err != nil {
		return seen{}, false, err
	}
	return w.seenOf(p, data, nil)
}

// fromDraft reads path p as Draft d's project sees it (effective: the
// Draft's version, combined with a person's newer edit); gone: not found.
func (w *write) fromDraft(ctx context.Context, d *Draft, p string) (seen, bool, error) {
	data, ok, err := w.s.effective(ctx, w.repo, d, p)
	if err != nil || !ok {
		return seen{}, false, err
	}
	return w.seenOf(p, data, d)
}

func (w *write) seenOf(p string, data []byte, d *Draft) (seen, bool, error) {
	r, err := markdown.Parse(p, data)
	if err != nil {
		return seen{}, false, vault.Errorf(vault.CodeInvalid, "%s cannot be changed by store: %s", p, vault.Message(err))
	}
	out := seen{Loaded: vault.Loaded{ResourceID: r.ID, Path: p, Kind: "memory", Scope: vault.ScopeOf(vault.ProjectOf(p)),
		Title: r.Title, ContentHash: vault.HashBytes(data), Content: string(data)}, draft: d, derivedID: r.IDDerived}
	if d != nil {
		out.DraftID = d.ID
	}
	return out, true, nil
}

// workTreePath finds the work-tree file whose id is id: the index's answer
// when the file confirms it, else a scan of the vault (the index may be
// behind, or being rebuilt). "" when no file has that id.
func (w *write) workTreePath(ctx context.Context, id string) (string, error) {
	if p, err := w.s.ix.PublishedPath(ctx, id); err == nil && p != "" && w.fileHasID(p, id) {
		return p, nil
	}
	files, _, err := w.s.v.Scan()
	if err != nil {
		return "", err
	}
	derived := strings.HasPrefix(id, "path_")
	for _, f := range files {
		// A derived id names its path (the hash is cheap); a frontmatter
		// id must be in the file's bytes.
		if (!derived || vault.DerivedID(f.Path) == id) && w.fileHasID(f.Path, id) {
			return f.Path, nil
		}
	}
	return "", nil
}

// fileHasID reads a work-tree file and reports whether its id is id.
func (w *write) fileHasID(p, id string) bool {
	data, err := w.s.v.ReadFile(filepath.FromSlash(p))
	if err != nil || (!strings.HasPrefix(id, "path_") && !bytes.Contains(data, []byte(id))) {
		return false
	}
	r, err := markdown.Parse(p, data)
	return err == nil && r.ID == id
}

// taken reports whether a path is in use: in the project's view (its
// Drafts, the work tree) or on the org ref (a file a person deleted but did
// not commit is still published).
func (w *write) taken(ctx context.Context, p string) (bool, error) {
	if _, ok, err := w.resolve(ctx, p); err != nil || ok {
		return ok, err
	}
	if _, ok := w.s.v.StatFile(filepath.FromSlash(p)); ok {
		return true, nil // on disk (perhaps shadowed by a Draft's rename): not free
	}
	org, err := w.s.refs.read(w.s.org)
	if err != nil || org.IsZero() {
		return false, err
	}
	_, orgTree, err := w.s.trees(w.repo, plumbing.ZeroHash, org)
	if err != nil {
		return false, err
	}
	_, ok, err := blobAt(w.repo.Storer, orgTree, w.s.prefix+p)
	return ok, err
}
