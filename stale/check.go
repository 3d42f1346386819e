package stale

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Checker checks notes' citations against one code repository. It is safe
// for concurrent use. What it found is kept by (note path, note bytes,
// vault HEAD, code HEAD), in memory and, when a cache file is set, on disk:
// while neither repository moves and the note is unchanged, a check runs
// no git command.
type Checker struct {
	code      string // the code repository's work tree
	vaultRoot string // the vault's folder (its history says when a section was written)
	now       func() time.Time

	runs atomic.Int64 // git commands started (tests count them)

	mu       sync.Mutex
	codeRepo *git.Repository
	vaultRep *git.Repository
	origin   string
	cache    *cache
	ds       deltas // what changed between two heads, asked once
	// citesNothing holds the notes (path and hash) known to cite no code:
	// they are not parsed again in this process.
	citesNothing map[string]bool // at most maxCitesNothing, then started anew
	headMu       sync.Mutex      // head's go-git reads
}

// New returns a checker of the code repository at code (any folder in
// it) for the vault at vaultRoot. cacheDir keeps findings across
// processes ("" keeps them in memory only).
func New(ctx context.Context, code, vaultRoot, cacheDir string) (*Checker, error) {
	c := &Checker{vaultRoot: vaultRoot, now: time.Now, cache: &cache{dir: cacheDir}}
	open := &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true}
	// go-git reads the repositories' files: no process while nothing moved.
	if repo, err := git.PlainOpenWithOptions(code, open); err == nil {
		if wt, err := repo.Worktree(); err == nil {
			c.codeRepo, c.code = repo, wt.Filesystem.Root()
			if cfg, err := repo.Config(); err == nil && cfg.Remotes["origin"] != nil && len(cfg.Remotes["origin"].URLs) > 0 {
				c.origin = Origin(cfg.Remotes["origin"].URLs[0])
			}
		}
	}
	if c.code == "" {
		top, err := c.git(ctx, code, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			return nil, fmt.Errorf("%s is not in a git repository: %v", code, err)
		}
		c.code = strings.TrimSpace(string(top))
		if url, err := c.git(ctx, c.code, nil, "config", "--get", "remote.origin.url"); err == nil {
			c.origin = Origin(string(url))
		}
	}
	c.vaultRep, _ = git.PlainOpenWithOptions(vaultRoot, open)
	return c, nil
}

// Code is the code repository's work tree.
func (c *Checker) Code() string { return c.code }

// GitRuns counts the git commands the checker has started.
func (c *Checker) GitRuns() int64 { return c.runs.Load() }

// Flush writes the cache file, when there is one and it changed.
func (c *Checker) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cache.flush()
}

// CheckNote implements vault.CodeChecker.
func (c *Checker) CheckNote(ctx context.Context, notePath string, raw []byte) ([]vault.CodeFinding, error) {
	fs, _, err := c.checkNote(ctx, notePath, raw)
	return fs, err
}

// maxCitesNothing bounds the notes a long-running process remembers as
// citing nothing.
const maxCitesNothing = 200_000

// checkNote is CheckNote that also says how many citations the note
// makes. A note whose check is cached at these heads is not parsed again:
// the cache answers from its hash.
func (c *Checker) checkNote(ctx context.Context, notePath string, raw []byte) ([]vault.CodeFinding, int, error) {
	key := notePath + "\x00" + vault.HashBytes(raw)
	c.mu.Lock()
	none := c.citesNothing[key]
	c.mu.Unlock()
	if none {
		return nil, 0, nil
	}
	codeHead, err := c.head(ctx, c.codeRepo, c.code)
	if err != nil {
		return nil, 0, fmt.Errorf("the code repository %s has no commit to check against: %v", c.code, err)
	}
	vaultHead, _ := c.head(ctx, c.vaultRep, c.vaultRoot)
	c.mu.Lock()
	old, ok := c.cache.get(key)
	c.mu.Unlock()
	if ok && old.CodeHead == codeHead && old.VaultHead == vaultHead {
		return old.Findings, old.Cites, nil
	}
	if ok && c.unaffected(ctx, old, notePath, codeHead, vaultHead) {
		e := *old
		e.CodeHead, e.VaultHead = codeHead, vaultHead
		c.mu.Lock()
		c.cache.put(key, &e)
		c.mu.Unlock()
		return e.Findings, e.Cites, nil
	}
	r, err := markdown.Parse(notePath, raw)
	if err != nil {
		return nil, 0, err
	}
	cites := Cite(r, raw, c.origin)
	if len(cites) == 0 {
		c.mu.Lock()
		if c.citesNothing == nil || len(c.citesNothing) >= maxCitesNothing {
			c.citesNothing = map[string]bool{}
		}
		c.citesNothing[key] = true
		c.mu.Unlock()
		return nil, 0, nil
	}
	found, err := c.check(ctx, notePath, raw, codeHead, cites)
	if err != nil {
		return nil, 0, err
	}
	e := &entry{CodeHead: codeHead, VaultHead: vaultHead, Findings: found, Cites: len(cites)}
	for _, ct := range cites {
		switch ct.Kind {
		case KindCommit:
			e.Commits = true
		case KindIdentifier:
			e.Words = append(e.Words, ct.Ident)
			e.Paths = append(e.Paths, ct.Scope...)
		default:
			e.Paths = append(e.Paths, strings.TrimSuffix(ct.Path, "/"))
		}
	}
	c.mu.Lock()
	c.cache.put(key, e)
	c.mu.Unlock()
	return found, len(cites), nil
}

// head resolves a repository's HEAD from its files (go-git reads them: no
// process), or with git when go-git cannot read the repository. One at a
// time: a go-git repository is not documented as safe for concurrent use.
func (c *Checker) head(ctx context.Context, repo *git.Repository, dir string) (string, error) {
	c.headMu.Lock()
	defer c.headMu.Unlock()
	if repo != nil {
		if ref, err := repo.Head(); err == nil {
			return ref.Hash().String(), nil
		}
	}
	out, err := c.git(ctx, dir, nil, "rev-parse", "--verify", "-q", "HEAD")
	return strings.TrimSpace(string(out)), err
}

// git runs a git command in dir, counting it.
func (c *Checker) git(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	c.runs.Add(1)
	if stdin == nil {
		return gitcli.Run(ctx, dir, nil, args...) // not a nil *bytes.Reader: an io.Reader that is not nil
	}
	return gitcli.Run(ctx, dir, bytes.NewReader(stdin), args...)
}

// command is git in dir, counted, for a caller that streams its output.
func (c *Checker) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	c.runs.Add(1)
	return gitcli.Command(ctx, dir, args...)
}

var errTooLong = errors.New("output too long")

// maxEvidenceCommits bounds the versions of a file read to find the commit
// that changed cited lines.
const maxEvidenceCommits = 200

// commitInfo is a commit as evidence.
type commitInfo struct{ id, author, date string }

const logFormat = "--format=%H%x00%an%x00%ad"

func parseLog(out []byte) []commitInfo {
	var cs []commitInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) == 3 && len(f[0]) >= 40 {
			cs = append(cs, commitInfo{f[0], f[1], f[2]})
		}
	}
	return cs
}

func (ci commitInfo) finding(c Citation, problem string) vault.CodeFinding {
	return vault.CodeFinding{Cites: c.Text, Kind: c.Kind, Problem: problem, Path: c.Path,
		Commit: ci.id, Author: ci.author, Date: ci.date, HeadingPath: headings(c.HeadingPath), Line: c.Line}
}

func headings(hp []string) []string {
	if hp == nil {
		return []string{}
	}
	return hp
}

// check runs the git side of a note's check.
func (c *Checker) check(ctx context.Context, notePath string, raw []byte, head string, cites []Citation) ([]vault.CodeFinding, error) {
	k := &checking{Checker: c, head: head, bases: map[int64]string{}}
	for _, ct := range cites {
		if ct.Kind == KindIdentifier && !slices.Contains(k.idents, ct.Ident) {
			k.idents = append(k.idents, ct.Ident)
		}
	}
	if err := k.objects(ctx, cites); err != nil {
		return nil, err
	}
	var times []int64
	if needsTime(cites) {
		var err error
		if times, err = k.lineTimes(ctx, notePath, raw); err != nil {
			return nil, err
		}
	}
	var out []vault.CodeFinding
	for _, ct := range cites {
		var fs []vault.CodeFinding
		var err error
		switch ct.Kind {
		case KindPath, KindLines:
			fs, err = k.path(ctx, ct, since(ct, times))
		case KindIdentifier:
			fs, err = k.identifier(ctx, ct, since(ct, times))
		case KindCommit:
			fs, err = k.commit(ctx, ct)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("checking %s's citation %q: %v", notePath, ct.Text, err)
		}
		out = append(out, fs...)
	}
	return out, nil
}

// checking is one note's check: what it learned of the code repository.
type checking struct {
	*Checker
	head    string
	present map[string]bool            // path (no trailing slash) → at HEAD
	gone    map[string]goneInfo        // path → how it left
	bases   map[int64]string           // a section's time → the code's commit then ("" none)
	blobs   map[string]string          // rev:path → content
	idents  []string                   // the identifiers the note cites
	words   map[string]map[string]bool // rev and scope → the identifiers it has there
	paths   []string                   // the paths the note cites (and its identifiers' scopes)
	pathsOf map[string]map[string]bool // rev → the paths it has
}

type goneInfo struct {
	never     bool
	by        commitInfo
	renamedTo string
}

func needsTime(cites []Citation) bool {
	for _, c := range cites {
		if c.Kind != KindCommit {
			return true
		}
	}
	return false
}

// since is when a citation was last vouched for: the newest change to its
// section's lines (the whole note's for the frontmatter). 0: unknown.
func since(c Citation, times []int64) int64 {
	from, to := c.sectionFrom, c.sectionTo
	if from == 0 {
		from, to = 1, len(times)
	}
	var t int64
	for l := from; l <= to && l <= len(times); l++ {
		t = max(t, times[l-1])
	}
	return t
}

// objects asks which cited paths HEAD has, in one git command.
func (k *checking) objects(ctx context.Context, cites []Citation) error {
	seen := map[string]bool{}
	for _, c := range cites {
		for _, p := range append([]string{strings.TrimSuffix(c.Path, "/")}, c.Scope...) {
			if p != "" && !seen[p] {
				seen[p] = true
				k.paths = append(k.paths, p)
			}
		}
	}
	var err error
	k.present, err = k.pathsAt(ctx, k.head)
	return err
}

// pathsAt returns which of the note's paths rev has, asking once per rev
// in one git command.
func (k *checking) pathsAt(ctx context.Context, rev string) (map[string]bool, error) {
	if got, ok := k.pathsOf[rev]; ok {
		return got, nil
	}
	got := map[string]bool{}
	if len(k.paths) > 0 {
		var in bytes.Buffer
		for _, p := range k.paths {
			in.WriteString(rev + ":" + p + "\n")
		}
		out, err := k.git(ctx, k.code, in.Bytes(), "cat-file", "--batch-check")
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, p := range k.paths {
			if i < len(lines) && !strings.HasSuffix(lines[i], " missing") && !strings.HasSuffix(lines[i], " ambiguous") {
				got[p] = true
			}
		}
	}
	if k.pathsOf == nil {
		k.pathsOf = map[string]map[string]bool{}
	}
	k.pathsOf[rev] = got
	return got, nil
}

// whereGone learns how a path HEAD lacks left the repository: deleted or
// renamed by a commit, or never there at all (then it is no citation of
// this repository: a vault path, another project's file).
func (k *checking) whereGone(ctx context.Context, p, base string) (goneInfo, error) {
	if k.gone == nil {
		k.gone = map[string]goneInfo{}
	}
	if g, ok := k.gone[base+":"+p]; ok {
		return g, nil
	}
	g := goneInfo{never: true}
	had, err := k.fact(ctx, "path\x00"+base+"\x00"+p, func() (bool, error) {
		at, err := k.pathsAt(ctx, base)
		return at[p], err
	})
	if err != nil || !had {
		k.gone[base+":"+p] = g
		return g, err
	}
	out, err := k.git(ctx, k.code, nil, "log", "-1", "--no-renames", "--diff-filter=D", "--date=short", logFormat, base+".."+k.head, "--", p)
	if err != nil {
		return goneInfo{}, err
	}
	g = goneInfo{}
	if cs := parseLog(out); len(cs) > 0 {
		g = goneInfo{by: cs[0]}
		names, err := k.git(ctx, k.code, nil, "diff-tree", "-r", "-M", "--no-commit-id", "--name-status", "--root", cs[0].id)
		if err != nil {
			return goneInfo{}, err
		}
		for _, line := range strings.Split(string(names), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 || !strings.HasPrefix(f[0], "R") {
				continue
			}
			if f[1] == p {
				g.renamedTo = f[2]
				break
			}
			if rest, ok := strings.CutPrefix(f[1], p+"/"); ok && strings.HasSuffix(f[2], "/"+rest) {
				g.renamedTo = strings.TrimSuffix(f[2], "/"+rest) // a folder moved
				break
			}
		}
	}
	k.gone[base+":"+p] = g
	return g, nil
}

// fact answers a question about a commit (never changes once answered)
// from the checker's cache, else by ask, and keeps the answer.
func (k *checking) fact(ctx context.Context, key string, ask func() (bool, error)) (bool, error) {
	k.mu.Lock()
	v, ok := k.cache.fact(key)
	k.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := ask()
	if err != nil {
		return false, err
	}
	k.mu.Lock()
	k.cache.setFact(key, v)
	k.mu.Unlock()
	return v, nil
}

// path checks a path or a path:lines citation.
func (k *checking) path(ctx context.Context, c Citation, t int64) ([]vault.CodeFinding, error) {
	p := strings.TrimSuffix(c.Path, "/")
	base, err := k.base(ctx, t)
	if err != nil || base == "" {
		return nil, err // the code has no commit as old as the section
	}
	if !k.present[p] {
		g, err := k.whereGone(ctx, p, base)
		if err != nil || g.never {
			return nil, err
		}
		if g.renamedTo == "" {
			return []vault.CodeFinding{g.by.finding(c, vault.ProblemRemoved)}, nil
		}
		f := g.by.finding(c, vault.ProblemRenamed)
		f.RenamedTo = g.renamedTo
		return []vault.CodeFinding{f}, nil
	}
	if base == k.head {
		return nil, nil
	}
	if c.Kind == KindLines {
		return k.lines(ctx, c, base)
	}
	out, err := k.git(ctx, k.code, nil, "log", "--date=short", logFormat, base+".."+k.head, "--", p)
	if err != nil {
		return nil, err
	}
	cs := parseLog(out)
	if len(cs) == 0 {
		return nil, nil
	}
	f := cs[0].finding(c, vault.ProblemChanged)
	f.Commits = len(cs)
	return []vault.CodeFinding{f}, nil
}

// lines checks a path:lines citation: the lines the note cited, as the file
// was when its section was written, must still be in the file (anywhere:
// lines that moved with an edit above them still hold).
func (k *checking) lines(ctx context.Context, c Citation, base string) ([]vault.CodeFinding, error) {
	then, ok, err := k.blob(ctx, base, c.Path)
	if err != nil || !ok {
		return nil, err // the file came after the note: nothing to compare
	}
	block := lineRange(then, c.From, c.To)
	if block == nil {
		return nil, nil // the range was past the file's end already
	}
	now, _, err := k.blob(ctx, k.head, c.Path)
	if err != nil || holds(now, block) {
		return nil, err
	}
	// The evidence: the first commit since whose file lost the lines.
	out, err := k.git(ctx, k.code, nil, "log", "--reverse", "--date=short", logFormat, base+".."+k.head, "--", c.Path)
	if err != nil {
		return nil, err
	}
	cs := parseLog(out)
	if len(cs) == 0 {
		return nil, nil
	}
	by, read := cs[len(cs)-1], cs[:min(len(cs), maxEvidenceCommits)]
	var in bytes.Buffer
	for _, ci := range read {
		in.WriteString(ci.id + ":" + c.Path + "\n")
	}
	if texts, err := k.batch(ctx, in.Bytes(), len(read)); err == nil {
		for i, t := range texts {
			if !holds(t, block) {
				by = read[i]
				break
			}
		}
	}
	f := by.finding(c, vault.ProblemLines)
	f.Commits = len(cs)
	return []vault.CodeFinding{f}, nil
}

// lineRange returns lines from..to of text (1-based, inclusive), their
// trailing blanks trimmed; nil when the file is shorter.
func lineRange(text string, from, to int) []string {
	lines := strings.Split(text, "\n")
	if from > len(lines) || from < 1 {
		return nil
	}
	to = min(to, len(lines))
	out := make([]string, 0, to-from+1)
	for _, l := range lines[from-1 : to] {
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	return out
}

// holds reports whether block's lines stand together in text.
func holds(text string, block []string) bool {
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
outer:
	for i := 0; i+len(block) <= len(lines); i++ {
		for j, b := range block {
			if lines[i+j] != b {
				continue outer
			}
		}
		return true
	}
	return false
}

// blob reads rev:path.
func (k *checking) blob(ctx context.Context, rev, p string) (string, bool, error) {
	key := rev + ":" + p
	if s, ok := k.blobs[key]; ok {
		return s, true, nil
	}
	texts, err := k.batch(ctx, []byte(key+"\n"), 1)
	if err != nil {
		return "", false, err
	}
	if texts[0] == missing {
		return "", false, nil
	}
	if k.blobs == nil {
		k.blobs = map[string]string{}
	}
	k.blobs[key] = texts[0]
	return texts[0], true, nil
}

const missing = "\x00missing"

// batch reads n objects with one git cat-file --batch.
func (k *checking) batch(ctx context.Context, in []byte, n int) ([]string, error) {
	out, err := k.git(ctx, k.code, in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	texts := make([]string, 0, n)
	for i := 0; i < n; i++ {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("cat-file: short output")
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			texts = append(texts, missing)
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || f[1] != "blob" {
			texts = append(texts, missing)
			if err == nil {
				r.Discard(size + 1)
			}
			continue
		}
		buf := make([]byte, size+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("cat-file: short output")
		}
		texts = append(texts, string(buf[:size]))
	}
	return texts, nil
}

// base is the code's commit when a section was written: the newest commit
// of HEAD's first-parent line at or before t. HEAD when t is 0 (unknown)
// or later than HEAD; "" when the code has no commit that old.
func (k *checking) base(ctx context.Context, t int64) (string, error) {
	if t == 0 {
		return k.head, nil
	}
	if b, ok := k.bases[t]; ok {
		return b, nil
	}
	out, err := k.git(ctx, k.code, nil, "rev-list", "-1", "--first-parent", "--before="+strconv.FormatInt(t, 10), k.head)
	if err != nil {
		return "", err
	}
	b := strings.TrimSpace(string(out))
	k.bases[t] = b
	return b, nil
}

// identifier checks an identifier in the files its section cites (those
// at HEAD, or where they were renamed to), else in the whole repository.
// It is a citation only if the code had it when the section was written
// (at base): a name the code never had is another tool's, or prose.
func (k *checking) identifier(ctx context.Context, c Citation, t int64) ([]vault.CodeFinding, error) {
	base, err := k.base(ctx, t)
	if err != nil || base == "" || base == k.head {
		return nil, err // nothing older to compare with: what HEAD lacks, the section never saw
	}
	var scope []string
	for _, p := range c.Scope {
		if k.present[p] {
			scope = append(scope, p)
		} else if g, err := k.whereGone(ctx, p, base); err != nil {
			return nil, err
		} else if g.renamedTo != "" {
			scope = append(scope, p, g.renamedTo)
		}
	}
	if len(scope) > 0 {
		fs, had, err := k.identIn(ctx, c, scope, base)
		if had || err != nil {
			return fs, err
		}
	}
	fs, _, err := k.identIn(ctx, c, nil, base)
	return fs, err
}

// identIn looks for c's identifier in scope (nil: everywhere) at HEAD, and
// when it is not there, at base. had is false when base did not have it
// there either (then it is no citation of scope).
func (k *checking) identIn(ctx context.Context, c Citation, scope []string, base string) ([]vault.CodeFinding, bool, error) {
	now, err := k.wordsAt(ctx, k.head, scope)
	if err != nil || now[c.Ident] {
		return nil, err == nil, err
	}
	had, err := k.fact(ctx, "ident\x00"+base+"\x00"+c.Ident+"\x00"+strings.Join(scope, "\x00"), func() (bool, error) {
		then, err := k.wordsAt(ctx, base, scope)
		return then[c.Ident], err
	})
	if err != nil || !had {
		return nil, false, err
	}
	args := append([]string{"log", "-1", "-S", c.Ident, "--date=short", logFormat, base + ".." + k.head, "--"}, scope...)
	out, err := k.git(ctx, k.code, nil, args...)
	if err != nil {
		return nil, false, err
	}
	var by commitInfo
	if cs := parseLog(out); len(cs) > 0 {
		by = cs[0]
	}
	f := by.finding(c, vault.ProblemIdentifier)
	if len(scope) > 0 {
		f.Path = scope[len(scope)-1] // a renamed file's new name comes last
		for _, p := range scope {
			if k.present[p] {
				f.Path = p
				break
			}
		}
	}
	return []vault.CodeFinding{f}, true, nil
}

// wordsAt returns which of the note's identifiers rev has as words in
// scope (nil: anywhere): one pass over the tree for all of them, not a
// grep each (docs/BENCHMARKS.md, "Stale memory"), once per rev and scope.
func (k *checking) wordsAt(ctx context.Context, rev string, scope []string) (map[string]bool, error) {
	key := rev + "\x00" + strings.Join(scope, "\x00")
	if found, ok := k.words[key]; ok {
		return found, nil
	}
	args := []string{"grep", "-h", "-o", "-w", "-F"}
	for _, id := range k.idents {
		args = append(args, "-e", id)
	}
	args = append(append(args, rev, "--"), scope...)
	cmd := k.command(ctx, k.code, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	found := map[string]bool{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("git grep: %s", strings.TrimSpace(errb.String()+" "+err.Error()))
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		found[line] = true
	}
	if k.words == nil {
		k.words = map[string]map[string]bool{}
	}
	k.words[key] = found
	return found, nil
}

// commit checks a commit id: a commit that some branch or tag holds.
func (k *checking) commit(ctx context.Context, c Citation) ([]vault.CodeFinding, error) {
	typ, err := k.git(ctx, k.code, nil, "cat-file", "-t", c.Commit)
	if err == nil && strings.TrimSpace(string(typ)) == "commit" {
		refs, err := k.git(ctx, k.code, nil, "for-each-ref", "--count=1", "--format=%(refname)", "--contains", c.Commit)
		if err != nil || strings.TrimSpace(string(refs)) != "" {
			return nil, err
		}
	} else if err == nil {
		return nil, nil // a blob or a tree: not a commit citation
	}
	return []vault.CodeFinding{{Cites: c.Text, Kind: c.Kind, Problem: vault.ProblemCommit,
		HeadingPath: headings(c.HeadingPath), Line: c.Line}}, nil
}

// lineTimes returns when each line of the note was last changed (unix
// seconds; the vault's history by git blame, the bytes as given: a line
// not committed yet is now).
func (k *checking) lineTimes(ctx context.Context, notePath string, raw []byte) ([]int64, error) {
	n := bytes.Count(raw, []byte("\n"))
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		n++
	}
	times := make([]int64, n)
	now := k.now().Unix()
	out, err := k.git(ctx, k.vaultRoot, raw, "blame", "--porcelain", "--contents", "-", "--", notePath)
	if err != nil {
		for i := range times {
			times[i] = now // not in the vault's history: all new
		}
		return times, nil
	}
	commitTime := map[string]int64{}
	var cur string
	var final int
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "\t"):
			if final >= 1 && final <= n {
				t, ok := commitTime[cur]
				if !ok || strings.Trim(cur, "0") == "" {
					t = now
				}
				times[final-1] = t
			}
		case strings.HasPrefix(line, "committer-time "):
			t, _ := strconv.ParseInt(strings.TrimPrefix(line, "committer-time "), 10, 64)
			commitTime[cur] = t
		default:
			f := strings.Fields(line)
			if len(f) >= 3 && len(f[0]) >= 40 && isHex(f[0]) {
				cur = f[0]
				final, _ = strconv.Atoi(f[2])
			}
		}
	}
	return times, nil
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
