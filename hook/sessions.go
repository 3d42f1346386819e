package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Sessions keeps the activation state of each client session (the
// next_state of its last prompt's activation), so a later prompt of the
// session gets only what is new or changed. One small file a session under
// Dir, named by a hash of the session id (a client's id is never a path);
// at most MaxSessions are kept, the least recently written dropped first.
type Sessions struct{ Dir string }

// MaxSessions is how many sessions' states are kept.
const MaxSessions = 256

func (s Sessions) file(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:12]))
}

// State returns a session's state ("" for none: a new session, or an
// unknown one).
func (s Sessions) State(id string) string {
	if id == "" {
		return ""
	}
	data, err := os.ReadFile(s.file(id))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Save keeps a session's state.
func (s Sessions) Save(id, state string) error {
	if id == "" {
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	tmp := s.file(id) + ".tmp"
	if err := os.WriteFile(tmp, []byte(state+"\n"), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.file(id)); err != nil {
		return err
	}
	s.trim()
	return nil
}

// Forget drops a session's state: its context was cleared or compacted, so
// what earlier prompts delivered is no longer in front of the model.
func (s Sessions) Forget(id string) error {
	if id == "" {
		return nil
	}
	err := os.Remove(s.file(id))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

func (s Sessions) trim() {
	ents, err := os.ReadDir(s.Dir)
	if err != nil || len(ents) <= MaxSessions {
		return
	}
	type f struct {
		name string
		mod  int64
	}
	var fs []f
	for _, e := range ents {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fs = append(fs, f{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].mod < fs[j].mod })
	for _, x := range fs[:max(0, len(fs)-MaxSessions)] {
		os.Remove(filepath.Join(s.Dir, x.name))
	}
}
