package fts

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// The activation state is the opaque next_state token. It holds the identity
// (unit_key and the first 8 bytes of content_hash) of the units the caller has
// received, most recently delivered first, and is signed with a key that only
// this vault's data folder holds, so a state that was edited, cut short or made
// by another vault is refused with invalid_activation_state and never treated
// as empty.
const (
	// MaxStateUnits bounds how many units a state remembers.
	MaxStateUnits = 256
	// MaxStateBytes bounds the token a caller may send back.
	MaxStateBytes = 32 << 10
	statePrefix   = "las1."
)

// stateEntry is one unit the caller holds.
type stateEntry struct {
	key  string
	hash [8]byte
}

// hashPrefix is the first 8 bytes of a "sha256:<hex>" hash.
func hashPrefix(h string) (out [8]byte) {
	if x := strings.TrimPrefix(h, "sha256:"); len(x) >= 16 {
		hex.Decode(out[:], []byte(x[:16]))
	}
	return out
}

// stateKey returns the vault's signing key, creating it on first use, and
// keeps it for the life of the Index.
func (ix *Index) stateKey() ([]byte, error) {
	ix.keyOnce.Do(func() { ix.key, ix.keyErr = ix.loadStateKey() })
	return ix.key, ix.keyErr
}

func (ix *Index) loadStateKey() ([]byte, error) {
	p := filepath.Join(ix.v.DataDir(), "state.key")
	if b, err := os.ReadFile(p); err == nil && len(b) == 32 {
		return b, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written whole to a temporary file, then linked into place: link never
	// replaces an existing file, so a racing process either wins or reads the
	// winner's complete key — never a half-written one.
	tmp, err := os.CreateTemp(ix.v.DataDir(), ".state.key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(key); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), p); err == nil {
		return key, nil
	} else if !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("activation state key %s is unreadable or damaged; delete it to start over (existing states become invalid)", p)
	}
	return b, nil
}

func vaultTag(key []byte) []byte {
	sum := sha256.Sum256(append([]byte("lore-vault-tag"), key...))
	return sum[:8]
}

// encodeState signs entries into a token.
func encodeState(key []byte, entries []stateEntry) string {
	var buf bytes.Buffer
	buf.WriteByte(1)
	buf.Write(vaultTag(key))
	buf.Write(binary.AppendUvarint(nil, uint64(len(entries))))
	for _, e := range entries {
		buf.Write(binary.AppendUvarint(nil, uint64(len(e.key))))
		buf.WriteString(e.key)
		buf.Write(e.hash[:])
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(buf.Bytes())
	return statePrefix + base64.RawURLEncoding.EncodeToString(buf.Bytes()) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func invalidState(format string, args ...any) error {
	return vault.Errorf(vault.CodeInvalidState, "state "+format+"; call activate again without state", args...)
}

// decodeState verifies a token and returns its entries.
func decodeState(key []byte, token string) ([]stateEntry, error) {
	if len(token) > MaxStateBytes {
		return nil, invalidState("is %d bytes, over the %d-byte limit", len(token), MaxStateBytes)
	}
	body, ok := strings.CutPrefix(token, statePrefix)
	if !ok {
		return nil, invalidState("is not a lore activation state")
	}
	payloadB64, macB64, ok := strings.Cut(body, ".")
	if !ok {
		return nil, invalidState("is truncated")
	}
	// Strict: a token's last character must not carry stray bits, so each
	// signed state has exactly one spelling (the fuzzer found a second one).
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(payloadB64)
	sig, err2 := base64.RawURLEncoding.Strict().DecodeString(macB64)
	if err1 != nil || err2 != nil || len(payload) < 10 || len(sig) != 16 {
		return nil, invalidState("is damaged")
	}
	if !bytes.Equal(payload[1:9], vaultTag(key)) {
		return nil, invalidState("belongs to another vault")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	if !hmac.Equal(mac.Sum(nil)[:16], sig) {
		return nil, invalidState("does not verify (edited or damaged)")
	}
	if payload[0] != 1 {
		return nil, invalidState("has unknown version %d", payload[0])
	}
	r := bytes.NewReader(payload[9:])
	n, err := binary.ReadUvarint(r)
	if err != nil || n > MaxStateUnits {
		return nil, invalidState("holds too many units")
	}
	entries := make([]stateEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > 4096 || int(l) > r.Len() {
			return nil, invalidState("is damaged")
		}
		k := make([]byte, l)
		r.Read(k)
		var e stateEntry
		e.key = string(k)
		if _, err := r.Read(e.hash[:]); err != nil {
			return nil, invalidState("is damaged")
		}
		entries = append(entries, e)
	}
	if r.Len() != 0 {
		return nil, invalidState("has trailing bytes")
	}
	return entries, nil
}
