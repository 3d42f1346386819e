package drafts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/vault"
)

// BranchPrefix is where Draft branches live: refs/heads/drafts/<project>/<draft_id>.
const BranchPrefix = "refs/heads/drafts/"

// MaxBody is the largest resource a store operation may produce (1 MiB).
const MaxBody = 1 << 20

var (
	_ vault.OverlaySource = overlays{}
	_ vault.Proposer      = (*Store)(nil)
	_ vault.Rememberer    = (*Store)(nil)
	_ vault.Reviewer      = (*Store)(nil)
)

// Store writes Drafts for one vault and lays them over its index.
type Store struct {
	v      *vault.Vault
	ix     vault.DraftIndex
	out    vault.Outbox
	gitDir string // the worktree's git directory (its HEAD)
	refs   refs   // the common git directory (refs, objects)
	top    string // the repository's work tree
	prefix string // the vault folder inside the repository: "" or "notes/"
	org    string // the org ref, e.g. refs/heads/main
	remote string
	clock  func() time.Time
	lock   string
	// How long a merge's publish waits for a running sync, and how long
	// one fetch or push may take (defaultPublishWait, defaultRemoteTimeout;
	// tests shorten them).
	publishWait, remoteTimeout time.Duration

	mu         sync.Mutex
	infos      map[string]*Draft // by branch and head, see draftAt
	broken     map[string]string // Draft branches the last listing could not read, and why
	signed     *refsRead         // the refs OverlaySignature last read, for Overlay
	reach      map[plumbing.Hash]bool
	reachOrg   plumbing.Hash
	reachSince time.Time
}

// Open opens the Draft store of the vault ix follows, keeping its sync
// state in out, and makes ix show each project its open Drafts
// (UseOverlay). The store closes out with itself.
func Open(ctx context.Context, ix vault.DraftIndex, out vault.Outbox) (*Store, error) {
	v := ix.Vault()
	s := &Store{v: v, ix: ix, out: out, gitDir: v.GitDir, clock: time.Now, publishWait: defaultPublishWait, remoteTimeout: defaultRemoteTimeout,
		infos: map[string]*Draft{}, broken: map[string]string{}}
	common := v.GitDir
	if data, err := os.ReadFile(filepath.Join(v.GitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(v.GitDir, c)
		}
		common = filepath.Clean(c)
	}
	s.refs = refs{dir: common}
	switch {
	case filepath.Base(v.GitDir) == ".git":
		s.top = filepath.Dir(v.GitDir)
	default:
		data, err := os.ReadFile(filepath.Join(v.GitDir, "gitdir"))
		if err != nil {
			return nil, vault.Errorf(vault.CodeNotVault, "cannot find the work tree of git directory %s", v.GitDir)
		}
		s.top = filepath.Dir(strings.TrimSpace(string(data)))
	}
	if real, err := filepath.EvalSymlinks(s.top); err == nil {
		s.top = real
	}
	rel, ok := within.Rel(s.top, v.Root)
	if !ok {
		return nil, vault.Errorf(vault.CodeNotVault, "vault %s is not inside its repository %s", v.Root, s.top)
	}
	if rel != "." {
		s.prefix = filepath.ToSlash(rel) + "/"
	}
	s.org = v.Config.OrgBranch()
	s.remote = v.Config.Remote
	s.lock = filepath.Join(v.DataDir(), "drafts.lock")
	ix.UseOverlay(overlays{s})
	if s.out.ReadOnly() == "" { // a read-only vault is read as it is
		if _, err := s.finishInterrupted(ctx); err != nil {
			return nil, fmt.Errorf("an interrupted merge could not be finished: %w", err)
		}
	}
	return s, nil
}

// overlays lays the store's open Drafts over the index (vault.OverlaySource).
type overlays struct{ s *Store }

// Health is what lore doctor checks of the store: the org ref, Draft
// branches that cannot be read, locks left behind, a person's edits not
// committed.
type Health struct{ s *Store }

// Health returns what lore doctor checks of the store.
func (s *Store) Health() Health { return Health{s} }

// OrgHead is the org ref's commit (zero when it does not exist).
func (h Health) OrgHead() (plumbing.Hash, error) { return h.s.orgHead() }

// BrokenDrafts names the Draft branches the store cannot read, and why.
func (h Health) BrokenDrafts(ctx context.Context) (map[string]string, error) {
	return h.s.brokenDrafts(ctx)
}

// StaleLocks lists the lock files a killed process left in the store's git
// directory.
func (h Health) StaleLocks() []string { return StaleLocks(h.s.commonDir()) }

// PendingEdits lists the notes a person changed and has not committed.
func (h Health) PendingEdits(ctx context.Context) ([]string, error) { return h.s.pendingEdits(ctx) }

// ReadOnly says why the store cannot write ("" when it can): the vault's
// git directory cannot be written (a read-only file system, a full disk).
// Reads go on (Drafts are git branches); writes say why they cannot.
func (s *Store) ReadOnly() string { return s.out.ReadOnly() }

// writable refuses a write when the vault's git directory cannot be
// written, naming why, before anything is touched.
func (s *Store) writable(what string) error {
	if s.ReadOnly() == "" {
		return nil
	}
	return vault.Errorf(vault.CodeInternal, "%s cannot be done: %s; free space or make the file system writable, then try again (reads still work)", what, s.ReadOnly())
}

// Close closes the outbox.
func (s *Store) Close() error { return s.out.Close() }

// setClock replaces the clock (tests).
func (s *Store) setClock(now func() time.Time) { s.clock = now }

// orgHead is the org ref's commit (zero when the branch has none yet).
func (s *Store) orgHead() (plumbing.Hash, error) { return s.refs.read(s.org) }

// commonDir is the git directory that holds the refs and objects.
func (s *Store) commonDir() string { return s.refs.dir }

// OrgRef is the full name of the org ref.
func (s *Store) OrgRef() string { return s.org }

func (s *Store) repo() (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(s.top, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", s.top, err)
	}
	if st, ok := rereading(r.Storer, s.refs.dir); ok {
		r.Storer = st // objects git packed after the open are found (objects.go)
	}
	return r, nil
}

// Draft is one Draft branch as lore reads it: the domain's Draft (its Head
// as text), and the commits it is made of.
type Draft struct {
	vault.Draft
	head   plumbing.Hash
	base   plumbing.Hash // the org commit it forked from
	forked time.Time     // when its first commit was made
	// outside are the files it changes outside the vault folder (a vault
	// that is a folder of a code repository): a Draft changes notes only,
	// so one that changes anything else is never merged nor adopted.
	outside []string
	// oversize are the files it writes larger than vault.MaxFileBytes
	// ("path (size)"): a note that large is no note, and reading it would
	// cost every teammate its size in memory, so such a Draft is never
	// adopted nor merged, and its blobs never read.
	oversize []string
}

// Operation is one store call recorded on a Draft (one commit).
type Operation = vault.DraftOperation

// trailers reads "Lore-…: value" lines of a commit message.
func trailers(msg string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(msg, "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(k, "Lore-") {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// splitBranch parses refs/heads/drafts/<project>/<id>.
func splitBranch(name string) (project, id string, ok bool) {
	rest, ok := strings.CutPrefix(name, BranchPrefix)
	if !ok {
		return "", "", false
	}
	project, id, ok = strings.Cut(rest, "/")
	if !ok || strings.Contains(id, "/") || !vault.ValidProjectName(project) || !vault.ValidRefComponent(id) {
		return "", "", false // not a Draft lore could have made (git ignores such names)
	}
	return project, id, true
}

// list returns every Draft branch (merged ones included), sorted by branch.
func (s *Store) list(repo *git.Repository) ([]*Draft, plumbing.Hash, error) {
	heads, org, err := s.readHeads()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return s.listFrom(repo, heads, org)
}

// refsRead is one reading of the Draft branches and the org ref.
type refsRead struct {
	heads map[string]plumbing.Hash
	org   plumbing.Hash
}

// readHeads reads every Draft branch and the org ref.
func (s *Store) readHeads() (map[string]plumbing.Hash, plumbing.Hash, error) {
	heads, err := s.refs.list(BranchPrefix)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	org, err := s.refs.read(s.org)
	return heads, org, err
}

// listFrom reads the Drafts of one reading of the refs.
func (s *Store) listFrom(repo *git.Repository, heads map[string]plumbing.Hash, org plumbing.Hash) ([]*Draft, plumbing.Hash, error) {
	var out []*Draft
	oldest := time.Time{}
	s.mu.Lock()
	s.broken = map[string]string{}
	s.mu.Unlock()
	for _, name := range sortedNames(heads) {
		project, id, ok := splitBranch(name)
		if !ok {
			continue
		}
		d, err := s.draftAt(repo, name, project, id, heads[name])
		if err != nil {
			// One Draft that cannot be read (a path git's tools refuse, a
			// missing object) must not stop every project reading the
			// others: it is left out, and BrokenDrafts names it.
			s.mu.Lock()
			s.broken[name] = err.Error()
			s.mu.Unlock()
			continue
		}
		if len(d.oversize) > 0 {
			// Listed (so it can be discarded) and named, never read.
			s.mu.Lock()
			s.broken[name] = oversizeError(d, "does not lay it over the index nor merge it").Error()
			s.mu.Unlock()
		}
		if oldest.IsZero() || d.forked.Before(oldest) {
			oldest = d.forked
		}
		out = append(out, d)
	}
	if len(out) > 0 {
		reach, err := s.reachable(repo, org, oldest)
		if err != nil {
			return nil, org, err
		}
		for i, d := range out {
			if reach[d.head] {
				dd := *d
				dd.Merged = true
				out[i] = &dd
			}
		}
	}
	return out, org, nil
}

// reachable returns the commits in org's history made since a day before
// since: where the heads of Drafts forked after since are, if a person merged
// them with git. One walk serves every Draft; the last one is cached.
func (s *Store) reachable(repo *git.Repository, org plumbing.Hash, since time.Time) (map[plumbing.Hash]bool, error) {
	s.mu.Lock()
	prev, prevSince, prevOrg := s.reach, s.reachSince, s.reachOrg
	if prev != nil && s.reachOrg == org && !since.Before(prevSince) {
		s.mu.Unlock()
		return prev, nil
	}
	s.mu.Unlock()
	// When the org ref only moved forward, walk the new commits alone and
	// stop where the last walk's set begins.
	var known map[plumbing.Hash]bool
	if prev != nil && !since.Before(prevSince) {
		known = prev
	}
	seen, err := walkSinceKnown(repo, org, since.Add(-24*time.Hour), prevOrg, known)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.reach, s.reachOrg, s.reachSince = seen, org, since
	s.mu.Unlock()
	return seen, nil
}

// draftAt reads a Draft from its branch: the lore commits on top of the org
// commit it forked from (walking first parents) and the paths it changes.
// (Whether the org ref contains it is list's business.) Results are cached
// by branch and head.
func (s *Store) draftAt(repo *git.Repository, name, project, id string, head plumbing.Hash) (*Draft, error) {
	key := head.String() + name
	s.mu.Lock()
	d := s.infos[key]
	s.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d = &Draft{Draft: vault.Draft{ID: id, Project: project, Branch: name, Head: head.String()}, head: head}
	c, err := repo.CommitObject(head)
	if err != nil {
		return nil, err
	}
	d.Updated, d.forked = c.Committer.When, c.Committer.When
	d.base = head
	earlier, err := s.walkDraft(repo, d, c, name, id)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(d.Operations)-1; i < j; i, j = i+1, j-1 {
		d.Operations[i], d.Operations[j] = d.Operations[j], d.Operations[i]
	}
	if earlier != nil {
		d.base, d.forked, d.ResourceID = earlier.base, earlier.forked, earlier.ResourceID
		d.Author, d.Host = earlier.Author, earlier.Host
		d.Operations = append(append([]Operation{}, earlier.Operations...), d.Operations...)
	}
	if n := len(d.Operations); n > 0 {
		d.Path = d.Operations[n-1].Path
		if d.Operations[n-1].Op == "delete" {
			d.Path = ""
		}
	}
	baseTree, headTree, err := s.trees(repo, d.base, head)
	if err != nil {
		return nil, err
	}
	if d.Paths, err = changedPaths(repo.Storer, baseTree, headTree, s.prefix); err != nil {
		return nil, err
	}
	for _, p := range d.Paths {
		if h, ok, err := blobAt(repo.Storer, headTree, p); err == nil && ok {
			if size, err := blobSize(repo.Storer, h); err == nil && size > vault.MaxFileBytes {
				d.oversize = append(d.oversize, fmt.Sprintf("%s (%s)", strings.TrimPrefix(p, s.prefix), humanBytes(size)))
			}
		}
	}
	if s.prefix != "" {
		all, err := changedPaths(repo.Storer, baseTree, headTree, "")
		if err != nil {
			return nil, err
		}
		for _, p := range all {
			if !strings.HasPrefix(p, s.prefix) {
				d.outside = append(d.outside, p)
			}
		}
	}
	s.mu.Lock()
	if len(s.infos) > 4096 {
		s.infos = map[string]*Draft{}
	}
	s.infos[key] = d
	s.mu.Unlock()
	return d, nil
}

// walkDraft reads d's operations from its commits, newest first, from c back
// to the first commit that is not the Draft's (its base), or to a commit of
// the same branch read before (earlier, returned: its operations come
// before these).
func (s *Store) walkDraft(repo *git.Repository, d *Draft, c *object.Commit, name, id string) (earlier *Draft, err error) {
	for cur := c; ; {
		if cur != c {
			s.mu.Lock()
			earlier = s.infos[cur.Hash.String()+name]
			s.mu.Unlock()
			if earlier != nil {
				break
			}
		}
		t := trailers(cur.Message)
		if t["Lore-Draft"] != id {
			d.base = cur.Hash
			break
		}
		if d.ResourceID == "" {
			d.ResourceID = t["Lore-Resource"]
		}
		d.forked = cur.Committer.When
		d.Author, d.Host = cur.Author.Name, t["Lore-Host"] // the first commit's, once walked
		d.Operations = append(d.Operations, Operation{
			LocalOperationID: t["Lore-Operation-Id"], Op: t["Lore-Operation"], Path: t["Lore-Path"],
			Description: t["Lore-Description"], At: cur.Committer.When, Commit: cur.Hash.String(),
		})
		if len(cur.ParentHashes) == 0 {
			d.base = plumbing.ZeroHash
			break
		}
		if cur, err = repo.CommitObject(cur.ParentHashes[0]); err != nil {
			return nil, err
		}
	}
	return earlier, nil
}

// trees returns the root trees of two commits (zero for a zero commit).
func (s *Store) trees(repo *git.Repository, a, b plumbing.Hash) (plumbing.Hash, plumbing.Hash, error) {
	var out [2]plumbing.Hash
	for i, h := range []plumbing.Hash{a, b} {
		if h.IsZero() {
			continue
		}
		c, err := repo.CommitObject(h)
		if err != nil {
			return out[0], out[1], err
		}
		out[i] = c.TreeHash
	}
	return out[0], out[1], nil
}

// isAncestor reports whether commit a is in the history of b, walking
// back from b only through commits no older than a day before a.
func isAncestor(repo *git.Repository, a, b plumbing.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	ca, err := repo.CommitObject(a)
	if err != nil {
		return false, err
	}
	seen, err := walkSince(repo, b, ca.Committer.When.Add(-24*time.Hour))
	return seen[a], err
}

// walkSince returns start and every commit in its history reached through
// commits made after cutoff (a commit older than that is included but not
// walked past).
func walkSince(repo *git.Repository, start plumbing.Hash, cutoff time.Time) (map[plumbing.Hash]bool, error) {
	return walkSinceKnown(repo, start, cutoff, plumbing.ZeroHash, nil)
}

// walkSinceKnown is walkSince that stops at stop (an earlier walk's start)
// and then adds that walk's result, known, instead of walking it again. Only
// reaching stop itself proves known is all in start's history.
func walkSinceKnown(repo *git.Repository, start plumbing.Hash, cutoff time.Time, stop plumbing.Hash, known map[plumbing.Hash]bool) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	if start.IsZero() {
		return seen, nil
	}
	seen[start] = true
	queue := []plumbing.Hash{start}
	hitKnown := false
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if known != nil && h == stop {
			hitKnown = true
			continue
		}
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, err
		}
		if c.Committer.When.Before(cutoff) {
			continue
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	if hitKnown {
		for h := range known {
			seen[h] = true
		}
	}
	return seen, nil
}

// OverlaySignature changes whenever a Draft branch or the org ref moves.
// The reading is kept for the Overlay call that follows a changed signature,
// so the overlay is built from exactly the refs it was signed from, and they
// are read once.
func (o overlays) OverlaySignature(ctx context.Context) (string, error) {
	s := o.s
	heads, org, err := s.readHeads()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.signed = &refsRead{heads, org}
	s.mu.Unlock()
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", s.org, org)
	for _, n := range sortedNames(heads) {
		fmt.Fprintf(h, "%s %s", n, heads[n])
		// A person's edit of a note a Draft changes changes what the
		// project sees (effective): the work tree's stamp of its paths.
		s.mu.Lock()
		d := s.infos[heads[n].String()+n]
		s.mu.Unlock()
		if d != nil {
			fmt.Fprintf(h, " %s", s.workStamp(d))
		}
		fmt.Fprintln(h)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// workStamp is the size and time of the work-tree files of a Draft's paths.
func (s *Store) workStamp(d *Draft) string {
	h := fnv.New64a()
	for _, p := range d.Paths {
		rel, ok := strings.CutPrefix(p, s.prefix)
		if !ok {
			continue
		}
		if st, err := os.Stat(filepath.Join(s.v.Root, filepath.FromSlash(rel))); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", rel, st.Size(), st.ModTime().UnixNano())
		}
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// Overlay returns every open (unmerged) Draft with its versions of the
// memory files it changes — without them for Drafts whose head is in have.
func (o overlays) Overlay(ctx context.Context, have map[string]string) ([]vault.OverlayDraft, error) {
	s := o.s
	repo, err := s.repo()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	signed := s.signed
	s.signed = nil
	s.mu.Unlock()
	var ds []*Draft
	if signed != nil {
		ds, _, err = s.listFrom(repo, signed.heads, signed.org)
	} else {
		ds, _, err = s.list(repo)
	}
	if err != nil {
		return nil, err
	}
	var out []vault.OverlayDraft
	for _, d := range ds {
		if d.Merged || len(d.oversize) > 0 {
			continue // an oversize Draft is never read (BrokenDrafts names it)
		}
		head := d.Head + "+" + s.workStamp(d)
		if have[d.ID] == head {
			out = append(out, vault.OverlayDraft{ID: d.ID, Project: d.Project, Head: head, Unchanged: true})
			continue
		}
		od := vault.OverlayDraft{ID: d.ID, Project: d.Project, Head: head}
		for _, p := range d.Paths {
			rel := strings.TrimPrefix(p, s.prefix)
			if clean, err := vault.CleanPath(rel); err != nil || clean != rel || !vault.IsMemoryPath(rel) {
				continue // not a path lore reads (see BrokenDrafts for whole Drafts)
			}
			data, ok, err := s.effective(ctx, repo, d, rel)
			if err != nil {
				return nil, err
			}
			f := vault.OverlayFile{Path: rel}
			if ok {
				f.Data = data
				if f.Data == nil {
					f.Data = []byte{}
				}
			}
			od.Files = append(od.Files, f)
		}
		out = append(out, od)
	}
	return out, nil
}

// brokenDrafts returns the Draft branches that cannot be read, and why
// (for lore doctor and lore drafts list). They are left out everywhere else.
func (s *Store) brokenDrafts(ctx context.Context) (map[string]string, error) {
	repo, err := s.repo()
	if err != nil {
		return nil, err
	}
	if _, _, err := s.list(repo); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.broken))
	for k, v := range s.broken {
		out[k] = v
	}
	return out, nil
}

// List returns the Drafts of project ("" for all); merged ones only with all.
func (s *Store) List(ctx context.Context, project string, all bool) ([]vault.Draft, error) {
	ds, err := s.listDrafts(ctx, project, all)
	out := views(ds)
	for i, d := range ds {
		out[i].MadeHere = s.loggedHere(ctx, d)
	}
	return out, err
}

// loggedHere reports whether a store on this machine made every commit of
// d (the outbox logs each one's hash, which no one can forge; a name or a
// Lore-Host trailer anyone can).
func (s *Store) loggedHere(ctx context.Context, d *Draft) bool {
	for _, op := range d.Operations {
		if !s.out.CommitLogged(ctx, op.Commit) {
			return false
		}
	}
	return len(d.Operations) > 0
}

// views are Drafts as the domain has them.
func views(ds []*Draft) []vault.Draft {
	out := make([]vault.Draft, len(ds))
	for i, d := range ds {
		out[i] = d.Draft
	}
	return out
}

// listDrafts is List, with what the store reads of each Draft.
func (s *Store) listDrafts(ctx context.Context, project string, all bool) ([]*Draft, error) {
	repo, err := s.repo()
	if err != nil {
		return nil, err
	}
	ds, _, err := s.list(repo)
	if err != nil {
		return nil, err
	}
	var out []*Draft
	for _, d := range ds {
		if (project == "" || d.Project == project) && (all || !d.Merged) {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// Find returns the Draft with the given id (any project).
func (s *Store) Find(ctx context.Context, id string) (vault.Draft, error) {
	d, err := s.find(ctx, id)
	if err != nil {
		return vault.Draft{}, err
	}
	v := d.Draft
	v.MadeHere = s.loggedHere(ctx, d)
	return v, nil
}

// find is Find, with what the store reads of the Draft.
func (s *Store) find(ctx context.Context, id string) (*Draft, error) {
	ds, err := s.listDrafts(ctx, "", true)
	if err != nil {
		return nil, err
	}
	return pick(ds, id)
}

// pick returns the Draft id names: its whole id, or a unique prefix of one
// (at least minPrefix characters), as git takes a commit's. A prefix that
// names several is invalid_input naming them.
func pick(ds []*Draft, id string) (*Draft, error) {
	var found []*Draft
	for _, d := range ds {
		if d.ID == id {
			return d, nil
		}
		if len(id) >= minPrefix && strings.HasPrefix(d.ID, id) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, vault.Errorf(vault.CodeNotFound, "no Draft %s", id)
	}
	var names []string
	for _, d := range found {
		names = append(names, d.ID)
	}
	return nil, vault.Errorf(vault.CodeInvalid, "%s names %d Drafts (%s): give more of the id", id, len(found), strings.Join(names, ", "))
}

// minPrefix is the shortest Draft id prefix lore takes ("drf_" and two
// more characters).
const minPrefix = 6

// commit writes a commit object and returns its hash.
func writeCommit(repo *git.Repository, c *object.Commit) (plumbing.Hash, error) {
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return repo.Storer.SetEncodedObject(obj)
}

// oversizeError is the refusal of a Draft that writes a file larger than
// vault.MaxFileBytes.
func oversizeError(d *Draft, what string) error {
	return vault.Errorf(vault.CodeInvalid, "Draft %s writes %s, over the %s a note may hold: lore %s, and never reads it. Discard it (lore drafts discard %s), or ask its author to split it", d.ID, strings.Join(d.oversize, ", "), humanBytes(vault.MaxFileBytes), what, d.ID)
}

// humanBytes is a size as a person reads it.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// outsideError is the refusal of a Draft that changes files outside the
// vault folder, naming them.
func outsideError(d *Draft, what string) error {
	names := d.outside
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(d.outside)-5)
	}
	return vault.Errorf(vault.CodeInvalid, "Draft %s changes files outside the vault folder (%s%s): a Draft changes notes only, so lore %s it. Discard it (lore drafts discard %s), or ask its author to propose the notes alone", d.ID, strings.Join(names, ", "), more, what, d.ID)
}
