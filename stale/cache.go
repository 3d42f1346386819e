package stale

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/lore-memory/lore/vault"
)

// cache keeps each note's findings (by path and content hash) with the
// heads they were found at and what a change must touch to matter to
// them, and answers about commits that never change. On disk it is a
// folder of small files, each holding the keys whose hash starts with its
// byte, read when a key of it is first asked for: an activate that checks
// five notes of a 10,000-note vault reads a few kilobytes, not the whole
// cache.
type cache struct {
	dir    string // "" in memory only
	shards map[string]*shard
}

// shard is one file of the cache: notes ("n-xx.json") or facts ("f-xx.json").
type shard struct {
	dirty bool
	Notes map[string]*entry `json:"notes,omitempty"`
	// Facts are answers about a commit (did it have this path, this
	// identifier there): true whatever HEAD is.
	Facts   map[string]bool `json:"facts,omitempty"`
	Version int             `json:"version"`
}

// entry is one note's check.
type entry struct {
	CodeHead  string              `json:"code_head"`
	VaultHead string              `json:"vault_head"`
	Findings  []vault.CodeFinding `json:"findings"`
	Cites     int                 `json:"cites"` // how many citations the note makes
	// What the findings depend on: the paths the note cites (and where
	// its identifiers were looked for), the identifiers, and whether it
	// cites a commit (a commit's reachability is asked again each time).
	Paths   []string `json:"paths,omitempty"`
	Words   []string `json:"words,omitempty"`
	Commits bool     `json:"commits,omitempty"`
}

const cacheVersion = 4

// maxShardKeys bounds a shard: past it, a put starts it anew.
const maxShardKeys = 4096

// shardOf returns the shard a key of kind ("n" or "f") is kept in, read
// from disk the first time.
func (c *cache) shardOf(kind, key string) *shard {
	sum := sha256.Sum256([]byte(key))
	name := kind + "-" + hex.EncodeToString(sum[:1]) + ".json"
	if s, ok := c.shards[name]; ok {
		return s
	}
	s := &shard{}
	if c.dir != "" {
		if data, err := os.ReadFile(filepath.Join(c.dir, name)); err == nil {
			var got shard
			if json.Unmarshal(data, &got) == nil && got.Version == cacheVersion {
				s = &got
			}
		}
	}
	if c.shards == nil {
		c.shards = map[string]*shard{}
	}
	c.shards[name] = s
	return s
}

func (c *cache) get(key string) (*entry, bool) {
	e, ok := c.shardOf("n", key).Notes[key]
	return e, ok && e != nil
}

func (c *cache) put(key string, e *entry) {
	s := c.shardOf("n", key)
	if s.Notes == nil || len(s.Notes) >= maxShardKeys {
		s.Notes = map[string]*entry{}
	}
	s.Notes[key] = e
	s.dirty = true
}

func (c *cache) fact(key string) (bool, bool) {
	v, ok := c.shardOf("f", key).Facts[key]
	return v, ok
}

func (c *cache) setFact(key string, v bool) {
	s := c.shardOf("f", key)
	if s.Facts == nil || len(s.Facts) >= maxShardKeys {
		s.Facts = map[string]bool{}
	}
	s.Facts[key] = v
	s.dirty = true
}

// flush writes each changed shard whole, through a temporary file and a
// rename: a reader sees the old shard or the new one. A cache that cannot
// be written is no failure (the next check asks git again).
func (c *cache) flush() error {
	if c.dir == "" {
		return nil
	}
	for name, s := range c.shards {
		if !s.dirty {
			continue
		}
		s.Version = cacheVersion
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if os.MkdirAll(c.dir, 0o700) != nil {
			return nil
		}
		tmp, err := os.CreateTemp(c.dir, ".shard-*.tmp")
		if err != nil {
			return nil
		}
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(c.dir, name))
		}
		if err != nil {
			os.Remove(tmp.Name())
			return nil
		}
		s.dirty = false
	}
	return nil
}
