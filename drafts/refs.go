package drafts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Refs are read and written the way the git CLI does it, so lore and a
// person's git can work on one repository at the same moment: a ref is
// changed by creating "<ref>.lock" exclusively, checking the ref still holds
// the expected value (compare-and-swap), writing the new value, flushing it
// and renaming the lock over the ref. A crash leaves either the old or the new
// value, never half a ref. (go-git's own ref writer rewrites the ref file in
// place under flock, which the git CLI does not honour.)

// errRefMoved is a compare-and-swap that found another value.
var errRefMoved = errors.New("the ref moved")

// refs reads and writes refs in one git directory (the common one, for
// linked worktrees).
type refs struct{ dir string }

func (r refs) path(name string) string { return filepath.Join(r.dir, filepath.FromSlash(name)) }

// read returns the hash a ref holds, or the zero hash when it does not exist.
func (r refs) read(name string) (plumbing.Hash, error) {
	data, err := os.ReadFile(r.path(name))
	if err == nil {
		s := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			return r.read(target)
		}
		if !plumbing.IsHash(s) {
			return plumbing.ZeroHash, fmt.Errorf("ref %s holds %q, not a commit hash", name, s)
		}
		return plumbing.NewHash(s), nil
	}
	if !errors.Is(err, os.ErrNotExist) && !isDirErr(err) {
		return plumbing.ZeroHash, err
	}
	packed, err := r.packed()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return packed[name], nil
}

// isDirErr: a ref name that is a folder (refs/heads/drafts itself).
func isDirErr(err error) bool { return errors.Is(err, syscall.EISDIR) }

// packed parses packed-refs (a missing file is empty).
func (r refs) packed() (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	data, err := os.ReadFile(filepath.Join(r.dir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		h, name, ok := strings.Cut(line, " ")
		if ok && plumbing.IsHash(h) {
			out[name] = plumbing.NewHash(h)
		}
	}
	return out, sc.Err()
}

// list returns every ref under prefix (e.g. "refs/heads/drafts/"), loose
// refs overriding packed ones.
//
// The loose refs are read before packed-refs, as git reads them: git packs a
// ref by writing packed-refs first and deleting the loose file after, so a
// loose ref missed by the walk is in the packed-refs read after it. Read the
// other way round, a ref packed in between was in neither (a new Draft left
// out of a listing, its rows dropped from the index).
func (r refs) list(prefix string) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	root := r.path(prefix)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(r.dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		h, err := r.read(name)
		if err != nil {
			return err
		}
		if !h.IsZero() { // deleted since the folder was read
			out[name] = h
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	packed, err := r.packed()
	if err != nil {
		return nil, err
	}
	for name, h := range packed {
		if _, loose := out[name]; !loose && strings.HasPrefix(name, prefix) {
			out[name] = h
		}
	}
	return out, nil
}

// StaleLock is the age past which a ref's (or git's index's) lock file is
// taken to be left by a process that died: git holds such a lock for
// milliseconds, and waits at most 100 ms for one by default.
const StaleLock = 10 * time.Second

// lock creates name's lock file, waiting up to a few seconds while another
// writer (lore or git) holds it. A lock older than StaleLock was left by a
// process that died holding it (a killed ref update): it is removed, so one
// crash does not block every later store on that ref.
func lockRef(p string) (*os.File, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := os.OpenFile(p+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, os.ErrExist) && removeStaleLock(p+".lock") {
			continue
		}
		if !errors.Is(err, os.ErrExist) || time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: %w (if no git or lore process is running, remove %s.lock)", p, err, p)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// cas moves ref name from old to new; the zero hash as old means "must not
// exist", as new means "delete". It fails with errRefMoved when the ref holds
// anything but old.
func (r refs) cas(name string, old, new plumbing.Hash) error {
	p := r.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := lockRef(p)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(p + ".lock")
		}
	}()
	cur, err := r.read(name)
	if err != nil {
		return err
	}
	if cur != old {
		return fmt.Errorf("%w: %s is at %s, expected %s", errRefMoved, name, short(cur), short(old))
	}
	if new.IsZero() {
		// packed-refs first, then the loose file, as git deletes: the other
		// way round, a reader (or a crash) between the two would find the
		// ref's older, packed value.
		if err := r.unpack(name); err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil // the deferred cleanup drops the lock
	}
	if _, err := f.WriteString(new.String() + "\n"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(p+".lock", p); err != nil {
		return err
	}
	done = true
	syncDir(filepath.Dir(p))
	return nil
}

// unpack removes name from packed-refs, under packed-refs.lock as git does.
func (r refs) unpack(name string) error {
	pp := filepath.Join(r.dir, "packed-refs")
	data, err := os.ReadFile(pp)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !bytes.Contains(data, []byte(" "+name+"\n"))) {
		return nil
	}
	if err != nil {
		return err
	}
	f, err := lockRef(pp)
	if err != nil {
		return err
	}
	defer os.Remove(pp + ".lock")
	if data, err = os.ReadFile(pp); err != nil {
		f.Close()
		return err
	}
	var out []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasSuffix(l, " "+name) {
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "^") {
				i++ // its peeled line goes too
			}
			continue
		}
		out = append(out, l)
	}
	if _, err := f.WriteString(strings.Join(out, "\n")); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(pp+".lock", pp)
}

// head returns the branch HEAD names in gitDir (the worktree's own), or ""
// when HEAD is detached.
func headBranch(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !ok {
		return ""
	}
	return target
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:12]
}

// sortedNames returns m's keys in order.
func sortedNames(m map[string]plumbing.Hash) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// removeStaleLock removes a lock file older than StaleLock and reports
// whether it did.
// awaitLock waits until lock file p is gone, or removes it once it is
// stale: what a process that finishes an interrupted write does with a lock
// the killed writer may have left (it is taken as the killed process's only
// when it grows older than StaleLock, so this can take that long).
func awaitLock(p string) {
	for deadline := time.Now().Add(StaleLock + time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(p); err != nil || removeStaleLock(p) || time.Now().After(deadline) {
			return
		}
	}
}

func removeStaleLock(p string) bool {
	st, err := os.Stat(p)
	if err != nil || time.Since(st.ModTime()) < StaleLock {
		return false
	}
	return os.Remove(p) == nil
}

// StaleLocks lists the lock files under the git directory's refs (and the
// git index's) older than StaleLock: what a killed git or lore process left.
func StaleLocks(gitDir string) []string {
	var out []string
	check := func(p string, st os.FileInfo) {
		if strings.HasSuffix(p, ".lock") && time.Since(st.ModTime()) >= StaleLock {
			out = append(out, p)
		}
	}
	filepath.Walk(filepath.Join(gitDir, "refs"), func(p string, st os.FileInfo, err error) error {
		if err == nil && !st.IsDir() {
			check(p, st)
		}
		return nil
	})
	for _, name := range []string{"index.lock", "packed-refs.lock", "HEAD.lock"} {
		if st, err := os.Stat(filepath.Join(gitDir, name)); err == nil {
			check(filepath.Join(gitDir, name), st)
		}
	}
	return out
}
