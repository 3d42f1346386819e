package hook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Sessions keeps the activation state of each client session (the
// next_state of its last delivery), so a later prompt of the session gets
// only what is new or changed. One small file a session under Dir, named
// by an HMAC of the session id under a random key kept beside them (a
// client's id is never a path, and a name cannot be derived from an id
// without the key); at most MaxSessions are kept, the least recently
// written dropped first.
//
// The file's name is also the session's handle (HandlePrefix + name), which
// the session-start text hands the model: an activate the agent makes with
// the handle as its state reads and advances the same state the prompt
// hook does (ActivateShared), so the session has one record of what it was
// given, whichever way it was given.
type Sessions struct{ Dir string }

// MaxSessions is how many sessions' states are kept.
const MaxSessions = 256

// HandlePrefix begins a session handle: "hs1." and 24 hex digits.
const HandlePrefix = "hs1."

const nameLen = 24

func (s Sessions) key() ([]byte, error) {
	p := filepath.Join(s.Dir, ".key")
	if k, err := os.ReadFile(p); err == nil && len(k) == 32 {
		return k, nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// another hook made it first: use theirs
		if k, err := os.ReadFile(p); err == nil && len(k) == 32 {
			return k, nil
		}
		return nil, errors.New("hook-sessions/.key is damaged (delete it: sessions then start afresh)")
	}
	if err != nil {
		return nil, err
	}
	_, werr := f.Write(k)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return k, werr
}

// name is the file name of a session id's state.
func (s Sessions) name(id string) (string, error) {
	k, err := s.key()
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))[:nameLen], nil
}

// Handle returns the handle of a session id ("" for no id).
func (s Sessions) Handle(id string) (string, error) {
	if id == "" {
		return "", nil
	}
	n, err := s.name(id)
	if err != nil {
		return "", err
	}
	return HandlePrefix + n, nil
}

// IsHandle reports whether a state is a session handle (well formed; it
// may name no session).
func IsHandle(state string) bool {
	n, ok := strings.CutPrefix(state, HandlePrefix)
	if !ok || len(n) != nameLen {
		return false
	}
	for _, c := range n {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// State returns a session's state ("" for none: a new session, or an
// unknown one).
func (s Sessions) State(id string) string {
	h, err := s.Handle(id)
	if err != nil || h == "" {
		return ""
	}
	return s.StateOf(h)
}

// StateOf returns the state a handle names ("" for none).
func (s Sessions) StateOf(handle string) string {
	if !IsHandle(handle) {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, strings.TrimPrefix(handle, HandlePrefix)))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Save keeps a session's state.
func (s Sessions) Save(id, state string) error {
	h, err := s.Handle(id)
	if err != nil || h == "" {
		return err
	}
	return s.SaveOf(h, state)
}

// SaveOf keeps the state of the session a handle names.
func (s Sessions) SaveOf(handle, state string) error {
	if !IsHandle(handle) {
		return errors.New("not a session handle")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	p := filepath.Join(s.Dir, strings.TrimPrefix(handle, HandlePrefix))
	tmp, err := os.CreateTemp(s.Dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(state + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	s.trim()
	return nil
}

// Forget drops a session's state: its context was cleared or compacted, so
// what earlier prompts delivered is no longer in front of the model.
func (s Sessions) Forget(id string) error {
	h, err := s.Handle(id)
	if err != nil || h == "" {
		return err
	}
	err = os.Remove(filepath.Join(s.Dir, strings.TrimPrefix(h, HandlePrefix)))
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
		if strings.HasPrefix(e.Name(), ".") {
			continue // the key, a file being written
		}
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fs = append(fs, f{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].mod < fs[j].mod })
	for _, x := range fs[:max(0, len(fs)-MaxSessions)] {
		os.Remove(filepath.Join(s.Dir, x.name))
	}
}
