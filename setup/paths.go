package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lore-memory/lore/internal/within"
)

// Where setup may write. A cloned repository can hold symbolic links where
// setup writes (.claude → an outside folder, .mcp.json.lore-tmp → a file
// elsewhere, .codex → the user's ~/.codex), so every path is checked one
// component at a time from the folder setup works in:
//
//   - in a workspace (project scope) no component may be a link: setup
//     writes only real files inside the workspace;
//   - in the home folder (user scope) a link is followed only when it ends
//     at a file or folder the user owns, outside any git repository (a
//     dotfile manager's links), and the file is then edited where it is;
//   - backups and temporary files are created new, never through a link
//     (no-follow, exclusive).
//
// Anything else is refused, naming the file and what to do by hand.

// resolve returns the path setup reads and writes for file under base.
func resolve(base, file string, project bool) (string, error) {
	rel, ok := within.Rel(base, file)
	if !ok {
		return "", fmt.Errorf("%s is outside %s", file, base)
	}
	cur := base
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		next := filepath.Join(cur, part)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{cur}, parts[i:]...)...), nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(next)
			if project {
				return "", fmt.Errorf("%s is a symbolic link (to %s): lore setup writes only real files inside the workspace; replace the link with a real file or folder, or add lore's entries by hand (lore mcp config prints them)", next, target)
			}
			real, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", fmt.Errorf("%s is a symbolic link (to %s) that does not resolve: fix it, or add lore's entries by hand", next, target)
			}
			if err := ownedOutsideRepo(real); err != nil {
				return "", fmt.Errorf("%s is a symbolic link to %s, which %v: lore setup edits a linked file only when it is your own, outside any repository; add lore's entries by hand", next, real, err)
			}
			next = real
		} else if i < len(parts)-1 && !st.IsDir() {
			return "", fmt.Errorf("%s is not a folder", next)
		} else if i == len(parts)-1 && !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file: remove it, or add lore's entries by hand", next)
		}
		cur = next
	}
	return cur, nil
}

// ownedOutsideRepo says why a link's target may not be edited: not the
// user's, or inside a git repository.
func ownedOutsideRepo(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return errors.New("is not yours")
	}
	for d := p; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return fmt.Errorf("is inside the git repository %s", d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

// createNew writes data to a file that must not exist yet, never through a
// link; an old regular file at path (a backup setup made before) is
// removed first, and a link there is refused.
func createNew(path string, data []byte, mode os.FileMode) error {
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (a link?): remove it and run lore setup again (nothing was changed)", path)
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
	}
	return werr
}
