package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/internal/within"
)

// Vault is an opened vault folder.
type Vault struct {
	Root   string // absolute, symlinks resolved
	GitDir string // the git directory of the repository holding Root
	Config Config
	root   *os.Root
}

// Open opens the vault at dir. It fails with CodeNotVault when dir is missing,
// not a folder, or not inside a git repository, and with CodeConfig when
// lore.yaml is wrong.
func Open(dir string) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return nil, Errorf(CodeNotVault, "vault folder %s does not exist or is not a folder", dir)
	}
	gitDir, err := FindGitDir(abs)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(abs)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", abs, err)
	}
	return &Vault{Root: abs, GitDir: gitDir, Config: cfg, root: r}, nil
}

// Close releases the vault's folder handle.
func (v *Vault) Close() error { return v.root.Close() }

// FindGitDir returns the git directory of the repository that holds dir,
// following a ".git" file (worktrees, submodules). It fails with CodeNotVault
// when there is none.
func FindGitDir(dir string) (string, error) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return p, nil
			}
			data, err := os.ReadFile(p)
			if err == nil {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
					g := strings.TrimSpace(rest)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					return g, nil
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", Errorf(CodeNotVault, "%s is not inside a git repository; run `lore init %s` to make it a vault", dir, dir)
		}
		d = parent
	}
}

// DataDir is the folder for lore's derived files (index, runs, outbox):
// <gitdir>/lore, or a sub-folder of it when the vault is a folder inside a
// larger repository. Deleting it loses nothing that `lore index` cannot rebuild.
func (v *Vault) DataDir() string {
	top := filepath.Dir(v.GitDir)
	rel, err := filepath.Rel(top, v.Root)
	if filepath.Base(v.GitDir) != ".git" || err != nil || rel == "." {
		return filepath.Join(v.GitDir, "lore")
	}
	sum := sha256.Sum256([]byte(filepath.ToSlash(rel)))
	return filepath.Join(v.GitDir, "lore", "vault-"+hex.EncodeToString(sum[:6]))
}

// IndexPath is the SQLite index file.
func (v *Vault) IndexPath() string { return filepath.Join(v.DataDir(), "index.db") }

// FileStat is what the freshness check compares: a memory file's identity on disk.
type FileStat struct {
	Path   string // normalized vault-relative path
	FSPath string // the relative path as the file system spells it
	Size   int64
	ModNs  int64
}

// Problem is a file lore could not read as memory, and why.
type Problem struct {
	Path    string
	Message string
}

// Scan lists the vault's memory files with their sizes and modification times.
// Files it refuses (symlinks out of the vault, unreadable entries) come back as
// problems; only a failure to read the vault root itself is an error. Folders
// are read in parallel and files are stat'ed relative to their folder, because
// this runs before every query.
func (v *Vault) Scan() ([]FileStat, []Problem, error) {
	return v.ScanFrom("")
}

// ScanFrom is Scan of the folder rel (an OS-relative path, "" for the root)
// and everything under it.
func (v *Vault) ScanFrom(rel string) ([]FileStat, []Problem, error) {
	if _, err := os.ReadDir(filepath.Join(v.Root, rel)); err != nil {
		if rel != "" && errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("scan vault %s: %w", v.Root, err)
	}
	// Each folder's files are kept as their own slice and joined once at
	// the end: appended to one growing slice, 10,000 files were copied
	// about twice over into memory the process had to fault in.
	var (
		mu       sync.Mutex
		chunks   [][]FileStat
		problems []Problem
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 2))
	var caught safe.Catcher // a panic in a folder's walk fails the scan, not the process
	var walk func(rel string)
	walk = func(rel string) {
		defer wg.Done()
		defer caught.Catch()
		sem <- struct{}{}
		fs, ps, dirs := v.scanDir(rel)
		<-sem
		mu.Lock()
		chunks = append(chunks, fs)
		problems = append(problems, ps...)
		mu.Unlock()
		for _, d := range dirs {
			wg.Add(1)
			go walk(d)
		}
	}
	wg.Add(1)
	walk(rel)
	wg.Wait()
	caught.Rethrow()
	files := slices.Concat(chunks...)
	sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
	return files, problems, nil
}

// scanDir reads one folder (rel is "" for the root): its memory files, its
// problems, and its sub-folders to read next.
func (v *Vault) scanDir(rel string) (files []FileStat, problems []Problem, dirs []string) {
	dir := filepath.Join(v.Root, rel)
	f, err := os.Open(dir)
	if err != nil {
		return nil, []Problem{{NormalizePath(rel), err.Error()}}, nil
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		problems = append(problems, Problem{NormalizePath(rel), err.Error()})
	}
	files = make([]FileStat, 0, len(entries))
	for _, d := range entries {
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + string(filepath.Separator) + name
		}
		if d.IsDir() {
			dirs = append(dirs, childRel)
			continue
		}
		if !strings.EqualFold(filepath.Ext(name), ".md") {
			continue
		}
		p := NormalizePath(childRel)
		var size, mod int64
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a note is another name of that note, which the
			// scan reads under its own path: indexed once, seen only by
			// those who see the target (journal/, projects/<name>/). A
			// link to anything else is not read.
			if _, err := v.LinkTarget(childRel); err != nil {
				problems = append(problems, Problem{p, Message(err) + "; not read"})
			}
			continue
		} else if d.Type().IsRegular() {
			var ok bool
			size, mod, ok = statAt(f, name)
			if !ok {
				continue // deleted since the folder was read
			}
		} else {
			continue
		}
		files = append(files, FileStat{Path: p, FSPath: childRel, Size: size, ModNs: mod})
	}
	return files, problems, dirs
}

// StatFile returns the FileStat of one file by its OS-relative path, with ok
// false when it is gone, is not a regular .md file outside dot-folders, or is
// a symlink out of the vault.
func (v *Vault) StatFile(rel string) (FileStat, bool) {
	p := NormalizePath(rel)
	if !IsMemoryPath(p) {
		return FileStat{}, false
	}
	if l, err := v.root.Lstat(rel); err != nil || !l.Mode().IsRegular() {
		return FileStat{}, false // gone, or a link: another name of a note (see scanDir)
	}
	info, err := v.root.Stat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return FileStat{}, false
	}
	return FileStat{Path: p, FSPath: rel, Size: info.Size(), ModNs: info.ModTime().UnixNano()}, true
}

// LinkTarget is the note a symlink in the vault (rel, OS-relative) names,
// as a vault path, when rel is a link to a regular memory file inside the
// vault; "" when rel is no link. A link out of the vault, into a git
// directory or dot-folder, to a folder, or to a file that is not memory is
// an error naming it.
func (v *Vault) LinkTarget(rel string) (string, error) {
	real, err := v.linkedTo(rel)
	if err != nil || real == "" {
		return "", err
	}
	in, _ := filepath.Rel(v.Root, real)
	target := NormalizePath(in)
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() || !IsMemoryPath(target) {
		return "", Errorf(CodeInvalid, "%s is a symlink to %s, which is not a note", NormalizePath(rel), target)
	}
	return target, nil
}

// checkLink refuses a file that is a symlink into a git directory or any
// other dot-folder inside the vault (links out of it os.Root refuses): a
// note linked to .git/config or to the MCP token file would serve a
// credential as memory, and a store would commit it to a Draft branch that
// sync pushes. A file that is no symlink passes at the cost of one lstat.
func (v *Vault) checkLink(rel string) error {
	_, err := v.linkedTo(rel)
	return err
}

// linkedTo is checkLink that also returns where the link leads, resolved
// ("" when rel is no link, or is gone).
func (v *Vault) linkedTo(rel string) (string, error) {
	info, err := v.root.Lstat(rel)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return "", nil // not a link (or gone: the caller's own open says so)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(v.Root, rel))
	if err != nil {
		return "", Errorf(CodeInvalid, "%s is a symlink that leads nowhere", NormalizePath(rel))
	}
	in, ok := within.Rel(v.Root, real)
	if !ok {
		return "", Errorf(CodeInvalid, "%s is a symlink out of the vault", NormalizePath(rel))
	}
	if Within(v.GitDir, real) {
		return "", Errorf(CodeInvalid, "%s is a symlink into the git directory", NormalizePath(rel))
	}
	for _, seg := range strings.Split(in, string(filepath.Separator)) {
		if strings.HasPrefix(seg, ".") {
			return "", Errorf(CodeInvalid, "%s is a symlink into %s, a git directory or dot-folder, which is not memory", NormalizePath(rel), seg)
		}
	}
	return real, nil
}

// MaxAttachmentBytes is the largest attachment (an image a note shows) the
// web UI serves.
const MaxAttachmentBytes = 32 << 20

// OpenAttachment opens a file of the vault that is not memory (an image a
// note embeds) by its slash path, under the same rules as ReadFile: inside
// the vault, through no dot-folder, no symlink out or into a git directory,
// a regular file of at most MaxAttachmentBytes.
func (v *Vault) OpenAttachment(p string) (*os.File, error) {
	clean, err := CleanPath(p)
	if err != nil {
		return nil, err
	}
	for _, seg := range strings.Split(clean, "/") {
		if strings.HasPrefix(seg, ".") {
			return nil, Errorf(CodeInvalid, "%s is inside a dot-folder, which is not the vault's to show", p)
		}
	}
	rel := filepath.FromSlash(clean)
	if err := v.checkLink(rel); err != nil {
		return nil, err
	}
	f, err := v.root.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Errorf(CodeNotFound, "%s does not exist", p)
		}
		return nil, Errorf(CodeInvalid, "%s cannot be read inside the vault: %v", p, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxAttachmentBytes {
		f.Close()
		return nil, Errorf(CodeInvalid, "%s is not a regular file of at most %d MiB", p, MaxAttachmentBytes>>20)
	}
	return f, nil
}

// FindAttachment finds a file of the vault by its base name, as Obsidian
// resolves ![[image.png]]: the one with the shortest path (then the first
// in order), outside dot-folders; "" when there is none.
func (v *Vault) FindAttachment(name string) string {
	best := ""
	filepath.WalkDir(v.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != v.Root {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == name {
			rel, _ := filepath.Rel(v.Root, p)
			rel = filepath.ToSlash(rel)
			if best == "" || len(rel) < len(best) || len(rel) == len(best) && rel < best {
				best = rel
			}
		}
		return nil
	})
	return best
}

// ReadFile reads a file by its file-system relative path through the vault's
// os.Root, so symlinks out of the vault and ".." are refused, and symlinks
// into a git directory or dot-folder too (checkLink). Files over
// MaxFileBytes are refused before they are read.
func (v *Vault) ReadFile(fsPath string) ([]byte, error) {
	if err := v.checkLink(fsPath); err != nil {
		return nil, err
	}
	f, err := v.root.Open(fsPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Errorf(CodeNotFound, "%s does not exist", fsPath)
		}
		return nil, Errorf(CodeInvalid, "%s cannot be read inside the vault: %v", fsPath, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", fsPath, err)
	}
	if !st.Mode().IsRegular() {
		return nil, Errorf(CodeInvalid, "%s is not a regular file", fsPath)
	}
	if st.Size() > MaxFileBytes {
		return nil, Errorf(CodeInvalid, "%s is %.1f MB, over the %d MiB limit for a memory file", fsPath, float64(st.Size())/1e6, MaxFileBytes>>20)
	}
	// Sized from the stat (io.ReadAll would grow its buffer from 512 bytes,
	// allocating twice the file); a file that grew meanwhile still reads whole.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", fsPath, err)
	}
	data := buf.Bytes()
	if len(data) > MaxFileBytes {
		return nil, Errorf(CodeInvalid, "%s grew over the %d MiB limit while being read", fsPath, MaxFileBytes>>20)
	}
	return data, nil
}
