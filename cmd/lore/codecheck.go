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
func codeChecker(ctx context.Context, getenv func(string) string, workspace string, v *vault.Vault) vault.CodeChecker {
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
