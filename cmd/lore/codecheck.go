package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sync"

	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/vault"
)

// checkers are the code checkers this process made, one per workspace and
// vault: a warm server answers for many workspaces, and each keeps its
// cache.
var checkers struct {
	sync.Mutex
	m map[string]*stale.Checker
}

// maxCheckers bounds the warm server's checkers (one per workspace asked).
const maxCheckers = 64

// codeChecker returns the checker of the code repository of workspace for
// the vault v, or nil when there is none to check against: no workspace,
// a workspace in the vault (the notes are no code), no git repository
// there, or LORE_NO_STALE set. Its cache is a folder in the vault's data
// folder, one per code repository. A vault kept inside the code repository
// (docs/ as the vault) is checked against that repository.
func codeChecker(ctx context.Context, getenv func(string) string, workspace string, v *vault.Vault) *stale.Checker {
	if workspace == "" || getenv("LORE_NO_STALE") != "" || v == nil {
		return nil
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if vault.Within(v.Root, ws) {
		return nil // lore runs in the vault
	}
	key := ws + "\x00" + v.Root
	checkers.Lock()
	defer checkers.Unlock()
	if c, ok := checkers.m[key]; ok {
		return c
	}
	sum := sha256.Sum256([]byte(ws))
	c, err := stale.New(ctx, ws, v.Root, filepath.Join(v.DataDir(), "stale-"+hex.EncodeToString(sum[:6])))
	if err != nil {
		return nil
	}
	if vault.Within(v.Root, c.Code()) {
		return nil // the vault's own repository
	}
	if checkers.m == nil || len(checkers.m) >= maxCheckers {
		checkers.m = map[string]*stale.Checker{}
	}
	checkers.m[key] = c
	return c
}

// codeCheck is codeChecker as activate's port: a nil interface, not a nil
// *stale.Checker in one, when there is nothing to check against.
func codeCheck(ctx context.Context, getenv func(string) string, workspace string, v *vault.Vault) vault.CodeChecker {
	if c := codeChecker(ctx, getenv, workspace, v); c != nil {
		return c
	}
	return nil
}

// flushCheckers writes the checkers' caches (a one-shot command's last
// step; the warm server's after each answer).
func flushCheckers() {
	checkers.Lock()
	defer checkers.Unlock()
	for _, c := range checkers.m {
		c.Flush()
	}
}

// orElse is s, or else when s is "".
func orElse(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// lazyCheck is a code checker made at its first use: lore mcp starts
// without opening the code repository, and a session that never activates
// never opens it.
type lazyCheck struct {
	once sync.Once
	make func() *stale.Checker
	c    *stale.Checker
}

func (l *lazyCheck) get() *stale.Checker {
	l.once.Do(func() { l.c = l.make() })
	return l.c
}

// CheckNote implements vault.CodeChecker; with nothing to check against,
// a note has no findings.
func (l *lazyCheck) CheckNote(ctx context.Context, path string, raw []byte) ([]vault.CodeFinding, error) {
	if c := l.get(); c != nil {
		return c.CheckNote(ctx, path, raw)
	}
	return nil, nil
}

// Flush writes the checker's cache (the MCP server calls it after each
// activate).
func (l *lazyCheck) Flush() error {
	if c := l.get(); c != nil {
		return c.Flush()
	}
	return nil
}
