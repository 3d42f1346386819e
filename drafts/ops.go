package drafts

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// storePath checks a path an operation writes: inside the vault, a .md file
// outside dot-folders, and shared or under this project's own folder.
func storePath(field, p, project string) (string, error) {
	if p == "" {
		return "", vault.Errorf(vault.CodeInvalid, "%s is required", field)
	}
	if len(p) > 1024 {
		return "", vault.Errorf(vault.CodeInvalid, "%s is longer than 1024 bytes", field)
	}
	clean, err := vault.CleanPath(p)
	if err != nil {
		return "", vault.Errorf(vault.CodeInvalid, "%s: %s", field, vault.Message(err))
	}
	if !vault.IsMemoryPath(clean) {
		return "", vault.Errorf(vault.CodeInvalid, "%s %q is not a memory path: it must end in .md and not be inside a dot-folder", field, p)
	}
	if owner := vault.ProjectOf(clean); owner != "" && owner != project {
		return "", vault.Errorf(vault.CodeInvalid, "%s %q is inside projects/%s/, which belongs to project %s, not %s", field, p, owner, owner, project)
	}
	return clean, nil
}

// checkBody applies the content rules to a resource an operation produces.
func checkBody(field, p string, data []byte) error {
	if len(data) > MaxBody {
		return vault.Errorf(vault.CodeInvalid, "%s: the resource would be %d bytes; the limit is %d (1 MiB)", field, len(data), MaxBody)
	}
	if err := markdown.CheckContent(p, data); err != nil {
		return vault.Errorf(vault.CodeInvalid, "%s: %s", field, vault.Message(err))
	}
	return nil
}

// Apply performs one store operation for project: it checks the input
// against the project's Effective Memory, writes one commit on the Draft
// branch (or deletes the branch, for discard) and queues the Draft for sync.
// Operations are serialized across processes by a lock file; refs change by
// compare-and-swap. Nothing is written unless every check passed. Apply
// never publishes: the Draft waits for a person's merge.
func (s *Store) Apply(ctx context.Context, project string, op vault.Op) (vault.StoreResult, error) {
	name, err := op.Name()
	if err != nil {
		return vault.StoreResult{}, err
	}
	w, unlock, err := s.begin(ctx, project, name, op)
	if err != nil {
		return vault.StoreResult{}, err
	}
	defer unlock()
	if err := w.do(ctx, name, op); err != nil {
		return vault.StoreResult{}, err
	}
	return w.finish(ctx)
}

// Remember writes a new journal note for project, the journal's remember:
// a create inside folder (the namespace's own folder, under journal/), and
// nothing else. With journal.auto_publish (the default) the note is
// published at once, since the journal is an append-only diary: its Draft
// creates one new file inside folder and writes no guard rule, so it can
// neither change nor remove a published note. Anything else is refused
// before it is written.
func (s *Store) Remember(ctx context.Context, project, folder string, c vault.CreateOp) (vault.StoreResult, error) {
	if !vault.IsJournalPath(folder) || !strings.HasSuffix(folder, "/") || path.Clean(folder)+"/" != folder {
		return vault.StoreResult{}, vault.Errorf(vault.CodeInvalid, "remember writes inside a journal namespace's folder (journal/<userId>/<projectId>/), not %q", folder)
	}
	op := vault.Op{Create: &c}
	w, unlock, err := s.begin(ctx, project, "create", op)
	if err != nil {
		return vault.StoreResult{}, err
	}
	defer unlock()
	if clean, _ := vault.CleanPath(c.Path); !strings.HasPrefix(clean, folder) {
		return vault.StoreResult{}, vault.Errorf(vault.CodeInvalid, "remember writes inside its namespace's folder %s, not at %q", folder, c.Path)
	}
	if err := w.do(ctx, "create", op); err != nil {
		return vault.StoreResult{}, err
	}
	res, err := w.finish(ctx)
	if err != nil || !s.v.Config.JournalAutoPublish() {
		return res, err
	}
	base := w.parent
	if w.draft != nil {
		base = w.draft.base
	}
	if ok, _ := s.onlyNewNotes(w.repo, base, w.head, folder); ok {
		if _, err := s.mergeLocked(ctx, w.repo, []string{w.draftID}, s.clock()); err == nil {
			res.Published = true
		}
	}
	return res, nil
}

// do carries out one operation on the write.
func (w *write) do(ctx context.Context, name string, op vault.Op) error {
	switch name {
	case "create":
		return w.create(ctx, op.Create)
	case "update":
		return w.update(ctx, op.Update)
	case "rename":
		return w.rename(ctx, op.Rename)
	case "delete":
		return w.delete(ctx, op.Delete)
	case "discard":
		return w.discard(ctx, op.Discard.ID)
	}
	return nil
}

// begin checks an operation's input and project, takes the store lock and
// opens the repository: the start of every write.
func (s *Store) begin(ctx context.Context, project, name string, op vault.Op) (*write, func(), error) {
	if err := s.writable("store " + name); err != nil {
		return nil, nil, err
	}
	if project == "" || !vault.ValidProjectName(project) {
		return nil, nil, vault.Errorf(vault.CodeUnbound, "store needs a project: Drafts are carried by one (bind this workspace with `lore bind --vault DIR --project NAME`)")
	}
	if err := s.validate(name, op, project); err != nil {
		return nil, nil, err
	}
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return nil, nil, err
	}
	repo, err := s.repo()
	if err == nil {
		_, err = s.recoverLocked(context.Background(), repo)
	}
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return &write{s: s, repo: repo, project: project, op: name, lop: newID("lop_", s.clock())}, unlock, nil
}

// validate checks what needs no repository.
func (s *Store) validate(name string, op vault.Op, project string) error {
	switch name {
	case "create":
		c := op.Create
		if _, err := storePath("create.path", c.Path, project); err != nil {
			return err
		}
		if strings.TrimSpace(c.Body) == "" {
			return vault.Errorf(vault.CodeInvalid, "create.body is required: the full Markdown of the new resource")
		}
		return checkBody("create.body", c.Path, []byte(c.Body))
	case "update":
		u := op.Update
		if u.ID == "" {
			return vault.Errorf(vault.CodeInvalid, "update.id is required")
		}
		if u.ExpectedHash == "" {
			return vault.Errorf(vault.CodeInvalid, "update.expected_hash is required: the content_hash that load returned (sha256:…)")
		}
		if !validHash(u.ExpectedHash) {
			return vault.Errorf(vault.CodeInvalid, "update.expected_hash %s is not a content hash: it must be \"sha256:\" and 64 hex digits, the content_hash that load returned", quote(u.ExpectedHash))
		}
		if len(u.Replacements) == 0 {
			return vault.Errorf(vault.CodeInvalid, "update.replacements is empty: give at least one {old_text, new_text}")
		}
		for i, r := range u.Replacements {
			if r.OldText == "" {
				return vault.Errorf(vault.CodeInvalid, "update.replacements[%d].old_text is empty: it must be exact text that occurs once", i)
			}
		}
	case "rename":
		if op.Rename.ID == "" {
			return vault.Errorf(vault.CodeInvalid, "rename.id is required")
		}
		if _, err := storePath("rename.new_path", op.Rename.NewPath, project); err != nil {
			return err
		}
	case "delete":
		if op.Delete.ID == "" {
			return vault.Errorf(vault.CodeInvalid, "delete.id is required")
		}
	case "discard":
		if op.Discard.ID == "" {
			return vault.Errorf(vault.CodeInvalid, "discard.id is required")
		}
	}
	return nil
}

// write is one store operation in progress.
type write struct {
	s       *Store
	repo    *git.Repository
	project string
	op      string // the operation performed (delete may become discard)
	lop     string

	drafts      []*Draft      // the project's open Drafts, read under the lock
	draft       *Draft        // the Draft extended; nil for a new one
	draftID     string        // set once known
	parent      plumbing.Hash // the commit the new one goes on
	tree        plumbing.Hash // the new commit's tree, as edited
	head        plumbing.Hash // the commit written (finish)
	resourceID  string
	path        string
	description string
	discarded   bool
}

// current loads a resource from the project's Effective Memory, read from
// git and the work tree under the lock (see resolve.go).
func (w *write) current(ctx context.Context, field, id string) (seen, error) {
	cur, ok, err := w.resolve(ctx, id)
	if err != nil {
		return seen{}, err
	}
	if !ok {
		return seen{}, vault.Errorf(vault.CodeNotFound, "%s %q is not in project %s's memory", field, id, w.project)
	}
	return cur, nil
}

// start picks the Draft to extend (d, the one carrying the resource, if
// any) or a new one forked from the org ref — from a pending base holding
// the person's uncommitted version of the note at pending, when there is
// one (see pending.go) — and loads the tree to edit.
func (w *write) start(d *Draft, pending string) error {
	if d != nil {
		w.draft, w.draftID, w.parent = d, d.ID, d.head
	} else {
		org, err := w.s.refs.read(w.s.org)
		if err != nil {
			return err
		}
		if org.IsZero() {
			return vault.Errorf(vault.CodeNotVault, "the org ref %s does not exist yet: commit the vault once (git commit) before storing", w.s.org)
		}
		w.draftID, w.parent = newID("drf_", w.s.clock()), org
		if pending != "" {
			if w.parent, err = w.pendingBase(org, pending); err != nil {
				return err
			}
		}
	}
	c, err := w.repo.CommitObject(w.parent)
	if err != nil {
		return err
	}
	w.tree = c.TreeHash
	return nil
}

// draftOf reads one project's Draft by id.
func (s *Store) draftOf(repo *git.Repository, project, id string) (*Draft, error) {
	name := BranchPrefix + project + "/" + id
	head, err := s.refs.read(name)
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, vault.Errorf(vault.CodeNotFound, "project %s has no open Draft %s", project, id)
	}
	return s.draftAt(repo, name, project, id, head)
}

// noSymlink refuses a path that passes through a symbolic link in the
// vault's work tree: merging it would write through the link.
func (s *Store) noSymlink(field, p string) error {
	cur := s.v.Root
	for _, seg := range strings.Split(p, "/") {
		cur = filepath.Join(cur, seg)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil // the rest does not exist yet
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return vault.Errorf(vault.CodeInvalid, "%s %s goes through a symbolic link in the vault (%s); lore does not write through links", field, p, strings.TrimPrefix(cur, s.v.Root+string(filepath.Separator)))
		}
	}
	return nil
}

// put sets (data non-nil) or removes (nil) a vault path in the edited tree.
func (w *write) put(p string, data []byte) error {
	blob := plumbing.ZeroHash
	if data != nil {
		h, err := writeBlob(w.repo.Storer, data)
		if err != nil {
			return err
		}
		blob = h
	}
	t, err := setPath(w.repo.Storer, w.tree, w.s.prefix+p, blob)
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "path %s: %v", p, err)
	}
	w.tree = t
	return nil
}

func (w *write) create(ctx context.Context, c *vault.CreateOp) error {
	p, _ := storePath("create.path", c.Path, w.project)
	if err := w.s.noSymlink("create.path", p); err != nil {
		return err
	}
	if taken, err := w.taken(ctx, p); err != nil || taken {
		if err == nil {
			err = pathTaken{vault.Errorf(vault.CodeInvalid, "create.path %s already exists in project %s's memory; update it instead", p, w.project)}
		}
		return err
	}
	w.resourceID = newID("mem_", w.s.clock())
	data, err := newResource(c.Body, w.resourceID, c.Description)
	if err != nil {
		return err
	}
	if err := checkBody("create.body", p, data); err != nil {
		return err
	}
	if err := w.start(nil, ""); err != nil {
		return err
	}
	w.path, w.description = p, deref(c.Description)
	return w.put(p, data)
}

func (w *write) update(ctx context.Context, u *vault.UpdateOp) error {
	cur, err := w.current(ctx, "update.id", u.ID)
	if err != nil {
		return err
	}
	if cur.ContentHash != u.ExpectedHash {
		return vault.Errorf(vault.CodeContentChanged, "%s changed: its content_hash is now %s, not the expected_hash %s; load it again and redo the replacements", cur.Path, cur.ContentHash, u.ExpectedHash)
	}
	out, err := Replace(cur.Content, u.Replacements)
	if err != nil {
		return err
	}
	if u.Description != nil {
		if out, err = setFrontmatter(out, "description", *u.Description); err != nil {
			return err
		}
	}
	if err := checkBody("update", cur.Path, []byte(out)); err != nil {
		return err
	}
	if err := sameID(cur.Path, cur.Content, out); err != nil {
		return err
	}
	if err := w.start(cur.draft, cur.Path); err != nil {
		return err
	}
	w.resourceID, w.path, w.description = cur.ResourceID, cur.Path, deref(u.Description)
	return w.put(cur.Path, []byte(out))
}

// sameID refuses an edit that would change or remove a resource's id: the
// frontmatter id it has (or the id derived from its path, when it has
// none) must be the id after the edit. Ids are stable; other frontmatter
// edits are the edit's own business.
func sameID(p, before, after string) error {
	old, err := markdown.Parse(p, []byte(before))
	if err != nil {
		return nil // a version lore cannot parse has no id to keep
	}
	now, err := markdown.Parse(p, []byte(after))
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "update: %s", vault.Message(err))
	}
	if now.ID == old.ID {
		return nil
	}
	if old.IDDerived {
		return vault.Errorf(vault.CodeInvalid, "update would give %s the frontmatter id %q: the field id is the resource's stable id (%s), and an update cannot change it", p, now.ID, old.ID)
	}
	if now.IDDerived {
		return vault.Errorf(vault.CodeInvalid, "update would remove the frontmatter field id (%s) from %s: a resource's id is stable, and an update cannot remove it", old.ID, p)
	}
	return vault.Errorf(vault.CodeInvalid, "update would change the frontmatter field id from %s to %s: a resource's id is stable, and an update cannot change it", old.ID, now.ID)
}

func (w *write) rename(ctx context.Context, r *vault.RenameOp) error {
	cur, err := w.current(ctx, "rename.id", r.ID)
	if err != nil {
		return err
	}
	np, _ := storePath("rename.new_path", r.NewPath, w.project)
	if err := w.s.noSymlink("rename.new_path", np); err != nil {
		return err
	}
	if np == cur.Path {
		return vault.Errorf(vault.CodeInvalid, "rename.new_path is the resource's current path %s", np)
	}
	if taken, err := w.taken(ctx, np); err != nil || taken {
		if err == nil {
			err = vault.Errorf(vault.CodeInvalid, "rename.new_path %s already exists in project %s's memory", np, w.project)
		}
		return err
	}
	content := cur.Content
	if cur.derivedID {
		// The id lore handed out for this note came from its path; written
		// into the frontmatter it keeps naming the note at its new path.
		if content, err = setFrontmatter(content, "id", cur.ResourceID); err != nil {
			return err
		}
	}
	if r.Description != nil {
		if content, err = setFrontmatter(content, "description", *r.Description); err != nil {
			return err
		}
	}
	if err := w.start(cur.draft, cur.Path); err != nil {
		return err
	}
	w.resourceID, w.path, w.description = cur.ResourceID, np, deref(r.Description)
	if err := w.put(cur.Path, nil); err != nil {
		return err
	}
	return w.put(np, []byte(content))
}

func (w *write) delete(ctx context.Context, d *vault.DeleteOp) error {
	cur, err := w.current(ctx, "delete.id", d.ID)
	if err != nil {
		return err
	}
	if dr := cur.draft; dr != nil {
		baseTree, _, err := w.s.trees(w.repo, dr.base, plumbing.ZeroHash)
		if err != nil {
			return err
		}
		published := false
		for _, p := range dr.Paths {
			if _, ok, err := blobAt(w.repo.Storer, baseTree, p); err != nil {
				return err
			} else if ok {
				published = true
			}
		}
		if !published { // only this project's unpublished create: drop it
			w.op, w.resourceID, w.path = "discard", cur.ResourceID, cur.Path
			return w.drop(dr)
		}
	}
	if err := w.start(cur.draft, ""); err != nil {
		return err
	}
	if _, ok, err := blobAt(w.repo.Storer, w.tree, w.s.prefix+cur.Path); err != nil {
		return err
	} else if !ok {
		return vault.Errorf(vault.CodeInvalid, "%s is not published (it is only in the working tree, not on %s), so a Draft cannot delete it; delete the file yourself", cur.Path, w.s.org)
	}
	w.resourceID, w.path, w.description = cur.ResourceID, cur.Path, deref(d.Description)
	return w.put(cur.Path, nil)
}

// discard drops the project's Draft named by id: a draft id, or the
// resource the Draft carries (its id, its path in the Draft, or a path the
// Draft changes — so a Draft that deletes or renames a resource can be
// discarded by the resource's old name too).
func (w *write) discard(ctx context.Context, id string) error {
	if strings.HasPrefix(id, "drf_") {
		d, err := w.s.draftOf(w.repo, w.project, id)
		if err != nil {
			return err
		}
		w.resourceID, w.path = d.ResourceID, d.Path
		return w.drop(d)
	}
	ds, err := w.projectDrafts()
	if err != nil {
		return err
	}
	p, _ := vault.CleanPath(id)
	for _, d := range ds {
		hit := d.ResourceID == id || (p != "" && d.Path == p)
		for _, dp := range d.Paths {
			hit = hit || (p != "" && strings.TrimPrefix(dp, w.s.prefix) == p)
		}
		if hit {
			w.resourceID, w.path = d.ResourceID, d.Path
			return w.drop(d)
		}
	}
	if cur, ok, err := w.resolve(ctx, id); err == nil && ok && cur.draft == nil {
		return vault.Errorf(vault.CodeNotFound, "%s has no open Draft in project %s", id, w.project)
	}
	return vault.Errorf(vault.CodeNotFound, "discard.id %q is neither an open Draft of project %s nor a resource one carries", id, w.project)
}

// drop deletes a Draft branch.
func (w *write) drop(d *Draft) error {
	if err := w.s.refs.cas(d.Branch, d.head, plumbing.ZeroHash); err != nil {
		return fmt.Errorf("discard %s: %w", d.ID, err)
	}
	w.draftID, w.discarded = d.ID, true
	return nil
}

// finish commits the edited tree on the Draft branch (unless the operation
// dropped the Draft), queues it for sync and, on an auto-publish path, merges it.
func (w *write) finish(ctx context.Context) (vault.StoreResult, error) {
	s := w.s
	res := vault.StoreResult{LocalOperationID: w.lop, DraftID: w.draftID, ResourceID: w.resourceID, Path: w.path, Operation: w.op}
	if w.discarded {
		if s.outboxDiscarded(ctx, w.draftID) == "synced" {
			// Never pushed: "synced" would say the remote has it. The discard
			// is queued like any change, and the next sync confirms that the
			// remote has no such branch (and then forgets the row).
			s.enqueue(ctx, w.draftID, w.project, BranchPrefix+w.project+"/"+w.draftID, "")
		}
		s.recordOp(ctx, w.lop, w.draftID, w.project, w.op, w.resourceID, w.path, "")
		res.Queued, res.SyncStatus = true, "queued"
		return res, nil
	}
	msg := fmt.Sprintf("lore %s %s\n\n", w.op, w.path)
	if w.description != "" {
		msg += w.description + "\n\n"
	}
	msg += fmt.Sprintf("Lore-Draft: %s\nLore-Operation: %s\nLore-Operation-Id: %s\nLore-Resource: %s\nLore-Path: %s\nLore-Project: %s\n",
		w.draftID, w.op, w.lop, w.resourceID, w.path, w.project)
	if h := HostName(); h != "" {
		msg += "Lore-Host: " + h + "\n" // where the Draft came from, for a team's list
	}
	now := s.clock()
	sig := Signature(w.repo, now)
	head, err := writeCommit(w.repo, &object.Commit{
		Author: *sig, Committer: *sig, Message: msg, TreeHash: w.tree, ParentHashes: []plumbing.Hash{w.parent},
	})
	if err != nil {
		return vault.StoreResult{}, err
	}
	branch := BranchPrefix + w.project + "/" + w.draftID
	old := plumbing.ZeroHash
	if w.draft != nil {
		old = w.draft.head
	}
	if err := s.refs.cas(branch, old, head); err != nil {
		return vault.StoreResult{}, fmt.Errorf("store: %w", err)
	}
	s.enqueue(ctx, w.draftID, w.project, branch, head.String())
	s.recordOp(ctx, w.lop, w.draftID, w.project, w.op, w.resourceID, w.path, head.String())
	s.ix.NotifyChanged() // a long-running server indexes and embeds it now
	w.head = head
	res.Queued, res.SyncStatus = true, "queued"
	return res, nil
}

// onlyNewNotes reports whether the Draft from its fork point base to head
// only adds notes inside folder, and writes no guard rule in them: what the
// journal's remember may publish without a person.
func (s *Store) onlyNewNotes(repo *git.Repository, base, head plumbing.Hash, folder string) (bool, error) {
	baseTree, headTree, err := s.trees(repo, base, head)
	if err != nil {
		return false, err
	}
	paths, err := changedPaths(repo.Storer, baseTree, headTree, "")
	if err != nil || len(paths) == 0 {
		return false, err
	}
	for _, full := range paths {
		p, ok := strings.CutPrefix(full, s.prefix)
		if !ok || !strings.HasPrefix(p, folder) {
			return false, nil
		}
		before, _, err := readBlob(repo.Storer, baseTree, full)
		if err != nil || before != nil {
			return false, err
		}
		after, _, err := readBlob(repo.Storer, headTree, full)
		if err != nil || after == nil || !sameRules(p, nil, after) {
			return false, err
		}
	}
	return true, nil
}

// sameRules reports whether two versions of a note (nil: absent) write the
// same guard rules (a rule's line number does not count, though a body-form
// rule's id names its line, so moving one is a change); a version that
// cannot be parsed counts as different.
func sameRules(p string, a, b []byte) bool {
	rules := func(data []byte) ([]vault.RuleSpec, bool) {
		if data == nil {
			return nil, true
		}
		r, err := markdown.Parse(p, data)
		if err != nil {
			return nil, false
		}
		for i := range r.Rules {
			r.Rules[i].Line = 0
		}
		return r.Rules, true
	}
	ra, oka := rules(a)
	rb, okb := rules(b)
	return oka && okb && (len(ra) == 0 && len(rb) == 0 || reflect.DeepEqual(ra, rb))
}

// validHash reports whether h is "sha256:" and 64 lower-case hex digits.
func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrPathTaken is what a create at a path already in use wraps (its code is
// invalid_input): callers that name notes themselves pick another name.
var ErrPathTaken = vault.ErrPathTaken

type pathTaken struct{ err error }

func (e pathTaken) Error() string   { return e.err.Error() }
func (e pathTaken) Unwrap() []error { return []error{e.err, ErrPathTaken} }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Replace applies exact-text replacements to content, all against the same
// original: each old_text must occur exactly once, and no two may overlap.
// Any failure rejects the whole set with the spec's error code.
func Replace(content string, rs []vault.Replacement) (string, error) {
	type span struct{ start, end, i int }
	spans := make([]span, 0, len(rs))
	for i, r := range rs {
		at := strings.Index(content, r.OldText)
		if at < 0 {
			return "", vault.Errorf(vault.CodeReplacementNotFound, "replacements[%d].old_text does not occur in the resource: %s", i, quote(r.OldText))
		}
		if strings.Contains(content[at+1:], r.OldText) {
			return "", vault.Errorf(vault.CodeReplacementAmbiguous, "replacements[%d].old_text occurs more than once; include more surrounding text so it is unique: %s", i, quote(r.OldText))
		}
		spans = append(spans, span{at, at + len(r.OldText), i})
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	for k := 1; k < len(spans); k++ {
		if spans[k].start < spans[k-1].end {
			return "", vault.Errorf(vault.CodeReplacementOverlap, "replacements[%d] and replacements[%d] overlap in the resource", spans[k-1].i, spans[k].i)
		}
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(content[last:sp.start])
		b.WriteString(rs[sp.i].NewText)
		last = sp.end
	}
	b.WriteString(content[last:])
	return b.String(), nil
}

func quote(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// newResource returns a created resource's bytes: body with id (and the
// description, if given) in its frontmatter, which is added when the body
// has none. A body whose frontmatter already sets id is refused: lore
// assigns new ids.
func newResource(body, id string, desc *string) ([]byte, error) {
	if fm, _, ok := splitFrontmatter(body); ok {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(fm), &m); err != nil {
			return nil, vault.Errorf(vault.CodeInvalid, "create.body: its frontmatter is not valid YAML: %v", err)
		}
		if _, has := m["id"]; has {
			return nil, vault.Errorf(vault.CodeInvalid, "create.body: its frontmatter sets id; leave it out, lore assigns the id of a new resource")
		}
	}
	out, err := setFrontmatter(body, "id", id)
	if err == nil && desc != nil {
		out, err = setFrontmatter(out, "description", *desc)
	}
	return []byte(out), err
}

// splitFrontmatter returns the YAML between the leading "---" lines, the rest,
// and whether there is a frontmatter block.
func splitFrontmatter(s string) (fm, rest string, ok bool) {
	first, after, found := strings.Cut(s, "\n")
	if !found || strings.TrimRight(first, "\r") != "---" {
		return "", s, false
	}
	for off := 0; off < len(after); {
		line, _, _ := strings.Cut(after[off:], "\n")
		if t := strings.TrimRight(line, "\r"); t == "---" || t == "..." {
			end := off + len(line)
			if end < len(after) {
				end++
			}
			return after[:off], after[end:], true
		}
		off += len(line) + 1
	}
	return "", s, false
}

// setFrontmatter sets a top-level frontmatter key to a string, editing only
// that key's lines (a person's formatting of the others stays as it is).
func setFrontmatter(s, key, value string) (string, error) {
	enc, err := yaml.Marshal(map[string]string{key: value})
	if err != nil {
		return "", err
	}
	line := strings.TrimSuffix(string(enc), "\n")
	fm, rest, ok := splitFrontmatter(s)
	if !ok {
		return "---\n" + line + "\n---\n" + s, nil
	}
	lines := strings.SplitAfter(fm, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	replaced := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, key+":") {
			for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t")) {
				i++ // the old value's continuation lines
			}
			if !replaced {
				out = append(out, line+"\n")
				replaced = true
			}
			continue
		}
		out = append(out, l)
	}
	if !replaced {
		out = append(out, line+"\n")
	}
	body := strings.Join(out, "")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return "---\n" + body + "---\n" + rest, nil
}

// CreateSuperseding creates a resource and, in the same Draft (one commit),
// marks each resource in supersede (ids or paths of the project's Effective
// Memory) status: superseded with superseded_by naming the new one. The
// caller's body should say supersedes: itself. It is flush_session's write.
func (s *Store) CreateSuperseding(ctx context.Context, project string, c vault.CreateOp, supersede []string) (vault.StoreResult, error) {
	w, unlock, err := s.begin(ctx, project, "create", vault.Op{Create: &c})
	if err != nil {
		return vault.StoreResult{}, err
	}
	defer unlock()
	// Read the old notes before the new one exists, then write all in one tree.
	type old struct{ path, content string }
	var olds []old
	for i, id := range supersede {
		cur, err := w.current(ctx, fmt.Sprintf("supersedes[%d]", i), id)
		if err != nil {
			return vault.StoreResult{}, err
		}
		olds = append(olds, old{cur.Path, cur.Content})
	}
	if err := w.create(ctx, &c); err != nil {
		return vault.StoreResult{}, err
	}
	for _, o := range olds {
		out, err := setFrontmatter(o.content, "status", "superseded")
		if err == nil {
			out, err = setFrontmatter(out, "superseded_by", w.resourceID)
		}
		if err != nil {
			return vault.StoreResult{}, err
		}
		if err := w.put(o.path, []byte(out)); err != nil {
			return vault.StoreResult{}, err
		}
	}
	return w.finish(ctx)
}
