package stale

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/lore-memory/lore/vault"
)

// cache keeps findings by note (path and content hash) for one pair of
// heads: when the code's or the vault's HEAD moves, every entry goes.
type cache struct {
	file   string // "" in memory only
	loaded bool
	dirty  bool
	c      cacheFile
}

type cacheFile struct {
	Version   int                            `json:"version"`
	CodeHead  string                         `json:"code_head"`
	VaultHead string                         `json:"vault_head"`
	Notes     map[string][]vault.CodeFinding `json:"notes"`
	// Facts are answers about a commit (did it have this path, this
	// identifier there): true whatever HEAD is, so kept when it moves.
	Facts map[string]bool `json:"facts"`
}

const cacheVersion = 1

// maxCacheNotes bounds the cache: past it, a put starts it anew.
const maxCacheNotes = 200_000

func (c *cache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	if c.file == "" {
		return
	}
	data, err := os.ReadFile(c.file)
	if err != nil {
		return
	}
	var f cacheFile
	if json.Unmarshal(data, &f) == nil && f.Version == cacheVersion {
		c.c = f
	}
}

func (c *cache) get(codeHead, vaultHead, key string) ([]vault.CodeFinding, bool) {
	c.load()
	if c.c.CodeHead != codeHead || c.c.VaultHead != vaultHead {
		return nil, false
	}
	fs, ok := c.c.Notes[key]
	return fs, ok
}

func (c *cache) put(codeHead, vaultHead, key string, fs []vault.CodeFinding) {
	c.load()
	if c.c.CodeHead != codeHead || c.c.VaultHead != vaultHead || c.c.Notes == nil || len(c.c.Notes) >= maxCacheNotes {
		c.c = cacheFile{Version: cacheVersion, CodeHead: codeHead, VaultHead: vaultHead, Notes: map[string][]vault.CodeFinding{}, Facts: c.c.Facts}
	}
	c.c.Notes[key] = fs
	c.dirty = true
}

// flush writes the file whole, through a temporary file and a rename: a
// reader sees the old cache or the new one. A cache that cannot be
// written is no failure (the next check asks git again).
func (c *cache) flush() error {
	if c.file == "" || !c.dirty {
		return nil
	}
	data, err := json.Marshal(c.c)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".stale-*.tmp")
	if err != nil {
		return nil
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil
	}
	c.dirty = false
	return nil
}

func (c *cache) fact(key string) (bool, bool) {
	c.load()
	v, ok := c.c.Facts[key]
	return v, ok
}

func (c *cache) setFact(key string, v bool) {
	c.load()
	if c.c.Facts == nil || len(c.c.Facts) >= maxCacheNotes {
		c.c.Facts = map[string]bool{}
	}
	c.c.Facts[key] = v
	c.dirty = true
}
