package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/internal/within"
)

// chained is where an existing pre-commit hook is moved, to run first.
const chained = "pre-commit.lore-chained"

// hookHead is the part of lore's hook before the command it runs.
const hookHead = `#!/bin/sh
# lore guard hook: installed by ` + "`lore guard install`" + `; ` + "`lore guard uninstall`" + ` removes it
# and puts back the hook that was here before (kept as pre-commit.lore-chained,
# which runs first).
hooks=$(dirname "$0")
if [ -x "$hooks/pre-commit.lore-chained" ]; then
  "$hooks/pre-commit.lore-chained" "$@" || exit $?
fi
LORE=${LORE_BIN:-%s}
command -v "$LORE" >/dev/null 2>&1 || LORE=lore
`

// hookScript is lore's hook: it checks the staged changes against the
// vault and project the workspace was bound to when the hook was installed
// (Pin), so a binding that changed since is reported instead of passing.
const hookScript = hookHead + `exec "$LORE" guard --staged --hook-vault %s --hook-project %s --hook-rules %d
`

// olderHook is the hook lore wrote before it pinned the binding; it is
// still recognized, so install updates it and uninstall removes it.
const olderHook = hookHead + `exec "$LORE" guard --staged
`

// Pin is what the hook holds of the binding it was installed for: the
// vault, the project, and how many rules applied then.
type Pin struct {
	Vault, Project string
	Rules          int
}

// quoted matches one shellQuote'd word.
const quoted = `'(?:[^']|'\\'')*'`

// loreHooks match, exactly, the hooks lore writes: a hook that merely
// mentions lore is a person's own, and lore neither overwrites nor
// deletes it.
// (compiled on first use: lore's start-up stays cheap).
var loreHooks = []func() *regexp.Regexp{
	lazyre.New(`\A` + templateRegexp(hookScript) + `\z`),
	lazyre.New(`\A` + templateRegexp(olderHook) + `\z`),
}

// templateRegexp turns a hook template into a regexp: %s is a quoted
// word, %d a number, everything else itself.
func templateRegexp(tmpl string) string {
	var sb strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '%' && i+1 < len(tmpl) {
			switch tmpl[i+1] {
			case 's':
				sb.WriteString(quoted)
				i++
				continue
			case 'd':
				sb.WriteString(`[0-9]+`)
				i++
				continue
			}
		}
		sb.WriteString(regexp.QuoteMeta(tmpl[i : i+1]))
	}
	return sb.String()
}

// IsLoreHook reports whether data is a hook lore wrote.
func IsLoreHook(data []byte) bool {
	for _, re := range loreHooks {
		if re().Match(data) {
			return true
		}
	}
	return false
}

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

// trackedHooks reports whether the hooks folder is one the repository
// tracks (core.hooksPath=.husky, say): lore does not edit such files, which
// every clone shares.
func (r *Repo) trackedHooks(ctx context.Context, hook string) bool {
	rel, ok := within.Rel(r.Root, filepath.Dir(hook))
	if !ok || within.Dir(".git", rel) {
		return false
	}
	out, err := gitcli.Run(ctx, r.Root, nil, "ls-files", "--", filepath.ToSlash(rel))
	return err == nil && strings.TrimSpace(string(out)) != ""
}

// Install writes lore's pre-commit hook, which runs `lore guard --staged`
// (loreBin, or lore on PATH) against the binding pin names. A hook already
// there is kept and chained: it runs first, and its failure stops the
// commit as before. Installing again updates lore's hook only. A hooks
// folder the repository tracks is not edited: the error says what to add.
// It returns what it did.
func (r *Repo) Install(ctx context.Context, loreBin string, pin Pin) (string, error) {
	hook, err := r.HookPath(ctx)
	if err != nil {
		return "", err
	}
	if r.trackedHooks(ctx, hook) {
		return "", fmt.Errorf("the hooks folder %s is tracked by the repository, so lore does not edit it; add this line to %s yourself:\n  lore guard --staged", filepath.Dir(hook), hook)
	}
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		return "", err
	}
	script := fmt.Sprintf(hookScript, shellQuote(loreBin), shellQuote(pin.Vault), shellQuote(pin.Project), pin.Rules)
	did := "installed " + hook
	old, err := os.ReadFile(hook)
	switch {
	case err == nil && IsLoreHook(old):
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
	return did + " (checks against vault " + pin.Vault + ", project " + strconv.Quote(pin.Project) + ")", nil
}

// Uninstall removes lore's hook and puts back the one it chained. A hook
// that is not exactly one lore wrote is left as it is.
func (r *Repo) Uninstall(ctx context.Context) (string, error) {
	hook, err := r.HookPath(ctx)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(hook)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !IsLoreHook(data)) {
		return "", fmt.Errorf("no lore hook is installed at %s (a hook lore did not write is left as it is)", hook)
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
