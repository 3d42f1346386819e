package stale

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/lore-memory/lore/vault"
)

// cache keeps each note's findings (by path and content hash) with the
// heads they were found at and what a change must touch to matter to
// them, and answers about commits that never change.
type cache struct {
	file   string // "" in memory only
	loaded bool
	dirty  bool
	c      cacheFile
}

type cacheFile struct {
	Version int               `json:"version"`
	Notes   map[string]*entry `json:"notes"`
	// Facts are answers about a commit (did it have this path, this
	// identifier there): true whatever HEAD is.
	Facts map[string]bool `json:"facts"`
}

// entry is one note's check.
type entry struct {
	CodeHead  string              `json:"code_head"`
	VaultHead string              `json:"vault_head"`
	Findings  []vault.CodeFinding `json:"findings"`
	// What the findings depend on: the paths the note cites (and where
	// its identifiers were looked for), the identifiers, and whether it
	// cites a commit (a commit's reachability is asked again each time).
	Paths   []string `json:"paths,omitempty"`
	Words   []string `json:"words,omitempty"`
	Commits bool     `json:"commits,omitempty"`
}

const cacheVersion = 2

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

func (c *cache) get(key string) (*entry, bool) {
	c.load()
	e, ok := c.c.Notes[key]
	return e, ok && e != nil
}

func (c *cache) put(key string, e *entry) {
	c.load()
	if c.c.Notes == nil || len(c.c.Notes) >= maxCacheNotes {
		c.c.Notes = map[string]*entry{}
	}
	c.c.Version = cacheVersion
	c.c.Notes[key] = e
	c.dirty = true
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
	c.c.Version = cacheVersion
	c.c.Facts[key] = v
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
