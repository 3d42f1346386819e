package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lore-memory/lore/internal/gitcli"
)

// hookMarker identifies the hook lore writes.
const hookMarker = "# lore guard hook"

// chained is where an existing pre-commit hook is moved, to run first.
const chained = "pre-commit.lore-chained"

const hookScript = `#!/bin/sh
# lore guard hook: installed by ` + "`lore guard install`" + `; ` + "`lore guard uninstall`" + ` removes it
# and puts back the hook that was here before (kept as pre-commit.lore-chained,
# which runs first).
hooks=$(dirname "$0")
if [ -x "$hooks/pre-commit.lore-chained" ]; then
  "$hooks/pre-commit.lore-chained" "$@" || exit $?
fi
LORE=${LORE_BIN:-%s}
command -v "$LORE" >/dev/null 2>&1 || LORE=lore
exec "$LORE" guard --staged
`

// HookPath returns the pre-commit hook's path (core.hooksPath respected).
func (r *Repo) HookPath(ctx context.Context) (string, error) {
	out, err := gitcli.Run(ctx, r.Root, nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.Root, dir)
	}
	return filepath.Join(dir, "pre-commit"), nil
}

// Install writes lore's pre-commit hook, which runs `lore guard --staged`
// (loreBin, or lore on PATH). A hook already there is kept and chained: it
// runs first, and its failure stops the commit as before. Installing again
// updates lore's hook only. It returns what it did.
func (r *Repo) Install(ctx context.Context, loreBin string) (string, error) {
	hook, err := r.HookPath(ctx)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		return "", err
	}
	script := fmt.Sprintf(hookScript, shellQuote(loreBin))
	did := "installed " + hook
	old, err := os.ReadFile(hook)
	switch {
	case err == nil && strings.Contains(string(old), hookMarker):
		did = "updated " + hook
	case err == nil:
		prev := filepath.Join(filepath.Dir(hook), chained)
		if _, err := os.Lstat(prev); err == nil {
			return "", fmt.Errorf("%s exists already; move it away, then install again", prev)
		}
		if err := os.Rename(hook, prev); err != nil {
			return "", err
		}
		did = fmt.Sprintf("installed %s; the hook that was there runs first (now %s)", hook, chained)
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	tmp := hook + ".lore-tmp"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, hook); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return did, nil
}

// Uninstall removes lore's hook and puts back the one it chained.
func (r *Repo) Uninstall(ctx context.Context) (string, error) {
	hook, err := r.HookPath(ctx)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(hook)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !strings.Contains(string(data), hookMarker)) {
		return "", fmt.Errorf("no lore hook is installed at %s", hook)
	}
	if err != nil {
		return "", err
	}
	if err := os.Remove(hook); err != nil {
		return "", err
	}
	prev := filepath.Join(filepath.Dir(hook), chained)
	if _, err := os.Lstat(prev); err == nil {
		if err := os.Rename(prev, hook); err != nil {
			return "", err
		}
		return "removed lore's hook and put back the previous " + hook, nil
	}
	return "removed " + hook, nil
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
