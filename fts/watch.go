package fts

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/vault"
)

// watcher keeps, for a long-running process, the set of vault paths that
// changed since the last Refresh, so Refresh need not walk the whole vault.
type watcher struct {
	w     *fsnotify.Watcher
	root  string
	mu    sync.Mutex
	dirty map[string]bool // OS-relative paths of files or folders that changed
	full  bool            // something was missed: the next Refresh walks everything
	last  time.Time       // the last full walk
}

// fullEvery is how often a watched index still walks the whole vault, as a
// safety net for events a file system did not deliver.
const fullEvery = 60 * time.Second

// Watch makes the freshness check incremental for a long-running process (the
// MCP server, the web UI): every folder of the vault is watched with fsnotify,
// and each Refresh then reads only the files and folders events named. Any
// doubt — a watcher error or overflow, a folder renamed or removed — makes the
// next Refresh walk the whole vault again, as it does without Watch, and it
// walks anyway once a minute. Events arrive asynchronously (well under a
// millisecond after a write on Linux), so an edit is seen by the first Refresh
// after its event. The watch ends with ctx.
func (ix *Index) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	wt := &watcher{w: w, root: ix.v.Root, dirty: map[string]bool{}, full: true}
	if err := wt.addTree(""); err != nil {
		w.Close()
		return err
	}
	ix.mu.Lock()
	ix.watch = wt
	ix.mu.Unlock()
	go func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				ix.mu.Lock()
				ix.watch = nil
				ix.mu.Unlock()
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if safe.Do(func() { wt.event(ev) }) != nil {
					// A bug in following one event: the next check walks
					// the whole vault instead of trusting the watcher.
					wt.walkAll()
				}
				ix.NotifyChanged()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				wt.walkAll()
			}
		}
	}()
	return nil
}

// addTree watches rel and every folder under it, skipping dot-folders.
func (wt *watcher) addTree(rel string) error {
	return filepath.WalkDir(filepath.Join(wt.root, rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile; its events (or a full scan) cover it
		}
		if !d.IsDir() {
			return nil
		}
		if p != wt.root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return wt.w.Add(p)
	})
}

func (wt *watcher) event(ev fsnotify.Event) {
	rel, err := filepath.Rel(wt.root, ev.Name)
	if err != nil || rel == "." {
		wt.walkAll()
		return
	}
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(seg, ".") {
			return // inside a dot-folder (.git): not memory
		}
	}
	st, statErr := os.Lstat(ev.Name)
	if statErr != nil && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && !strings.EqualFold(filepath.Ext(rel), ".md") {
		wt.forget(ev.Name)
		wt.walkAll() // a folder (or something else) went away: walk again
		return
	}
	if statErr == nil && st.IsDir() && ev.Has(fsnotify.Create) {
		if err := wt.addTree(rel); err != nil {
			wt.walkAll()
			return
		}
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.dirty[rel] = true
}

// walkAll makes the next Refresh walk the whole vault.
func (wt *watcher) walkAll() {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.full = true
}

// forget stops watching name, a folder that went away, and every folder
// under it. fsnotify keeps one watch per folder (per inode, as inotify
// does): a folder renamed inside the vault kept its old name there, since
// watching the new path found the same watch, and the folder's own move
// then removed that watch. So after a rename, edits in the renamed folder
// were not seen at all, and edits in its subfolders came under the old
// path, until the next full walk a minute later. Forgotten first, the
// folder is watched afresh under its new name when its Create event comes
// (event's addTree). A path that was not a watched folder is not in the
// list; one removed with its folder already is gone from it.
func (wt *watcher) forget(name string) {
	under := name + string(filepath.Separator)
	for _, p := range wt.w.WatchList() {
		if p == name || strings.HasPrefix(p, under) {
			_ = wt.w.Remove(p) // gone meanwhile: nothing left to undo
		}
	}
}

// take returns the changed paths and whether a full walk is needed, and
// starts a new set.
func (wt *watcher) take() (map[string]bool, bool) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	d, full := wt.dirty, wt.full || time.Since(wt.last) > fullEvery
	wt.dirty, wt.full = map[string]bool{}, false
	if full {
		wt.last = time.Now()
	}
	return d, full
}

// changedFiles returns the files to compare with the snapshot. Without a
// watcher (or when it asks for one) that is a walk of the whole vault and
// checked is nil; with one, only the paths its events named, and checked
// tells which snapshot paths those cover (a file not among the returned ones
// but covered is gone).
func (ix *Index) changedFiles() ([]vault.FileStat, []vault.Problem, *covered, error) {
	if ix.watch == nil {
		files, problems, err := ix.v.Scan()
		return files, problems, nil, err
	}
	dirty, full := ix.watch.take()
	if full {
		files, problems, err := ix.v.Scan()
		return files, problems, nil, err
	}
	var files []vault.FileStat
	var problems []vault.Problem
	checked := &covered{files: make(map[string]bool, len(dirty))}
	for rel := range dirty {
		// In the index's form (NFC, '/'), as the snapshot keys its paths.
		checked.files[vault.NormalizePath(rel)] = true
		if st, err := os.Stat(filepath.Join(ix.v.Root, rel)); err == nil && st.IsDir() {
			fs, ps, err := ix.v.ScanFrom(rel)
			if err != nil {
				return nil, nil, nil, err
			}
			files, problems = append(files, fs...), append(problems, ps...)
			checked.dirs = append(checked.dirs, vault.NormalizePath(rel)+"/")
			continue
		}
		if f, ok := ix.v.StatFile(rel); ok {
			files = append(files, f)
		}
	}
	return files, problems, checked, nil
}

// covered is what a watcher's events named: files (vault-relative, with
// '/') and folders (ending in '/').
type covered struct {
	files map[string]bool
	dirs  []string
}

// has reports whether path p is among the files or in one of the folders.
func (c *covered) has(p string) bool {
	if c.files[p] {
		return true
	}
	for _, d := range c.dirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// gone returns the snapshot's paths that c covers and present does not
// hold: what was deleted or renamed away. It reads the whole snapshot only
// when a folder was named; for files it looks each one up.
func (c *covered) gone(snap map[string]fileRow, present map[string]bool) []string {
	var out []string
	if len(c.dirs) > 0 {
		for p := range snap {
			if !present[p] && c.has(p) {
				out = append(out, p)
			}
		}
		return out
	}
	for p := range c.files {
		if _, ok := snap[p]; ok && !present[p] {
			out = append(out, p)
		}
	}
	return out
}
