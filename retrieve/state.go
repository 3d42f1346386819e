package retrieve

import (
	"bytes"
	"context"
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
	"time"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"
)

// The activation state is the opaque next_state token. What it stands for
// is the identity (unit_key and the first 8 bytes of content_hash) of the
// units the caller has received, most recently delivered first. Those
// entries are kept in the index (table activation_states) and the token is
// a short reference to them: "las2." + base64url(16-byte id + a 12-byte
// HMAC-SHA256 tag of the id under a key that only this vault's data folder
// holds), 43 characters however many units it stands for. A token that was
// edited, cut short, made by another vault, or whose entries are gone (kept
// StateRetention after their last use; deleting the index deletes them) is
// refused with invalid_activation_state and never treated as empty.
//
// The first format carried the entries in the token itself ("las1." +
// payload + tag): 124 to 581 tokens of an agent's context on the demo
// questions, growing about 50 bytes with each unit held. It is still read,
// so a session that began before the upgrade goes on; it is never written.
const (
	// MaxStateUnits bounds how many units a state remembers.
	MaxStateUnits = 256
	// MaxStateBytes bounds the token a caller may send back.
	MaxStateBytes = 32 << 10
	// StateRetention is how long a state is kept after it was last made or
	// used.
	StateRetention = 7 * 24 * time.Hour
	statePrefix    = "las1."
	stateRefPrefix = "las2."
	stateIDBytes   = 16
	stateTagBytes  = 12
)

// stateEntry is one unit the caller holds: its key, the first bytes of its
// hash, and (stored states only) where it was, "path › headings", for the
// text that names it if it is removed.
type stateEntry struct {
	key   string
	hash  [8]byte
	label string
}

// hashPrefix is the first 8 bytes of a "sha256:<hex>" hash.
func hashPrefix(h string) (out [8]byte) {
	if x := strings.TrimPrefix(h, "sha256:"); len(x) >= 16 {
		hex.Decode(out[:], []byte(x[:16]))
	}
	return out
}

// stateKey returns the vault's signing key, creating it on first use, and
// keeps it for the life of the Pipeline.
func (p *Pipeline) stateKey() ([]byte, error) {
	p.keyOnce.Do(func() { p.key, p.keyErr = p.loadStateKey() })
	return p.key, p.keyErr
}

func (p *Pipeline) loadStateKey() ([]byte, error) {
	dir := p.ix.Vault().DataDir()
	path := filepath.Join(dir, "state.key")
	if b, err := os.ReadFile(path); err == nil && len(b) == 32 {
		return b, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written whole to a temporary file, then linked into place: link never
	// replaces an existing file, so a racing process either wins or reads the
	// winner's complete key — never a half-written one.
	//
	// A vault whose git directory cannot be written (read-only, or a full
	// disk, where the file is made but its bytes are not) and has no key
	// yet: this process signs with a key of its own, so its states verify
	// within it (others answer invalid_activation_state, and their agents
	// start over). An activation is a read, and reads go on.
	tmp, err := os.CreateTemp(dir, ".state.key-*")
	if err != nil {
		return key, nil
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(key)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		return key, nil
	}
	if err := os.Link(tmp.Name(), path); err == nil {
		return key, nil
	} else if !errors.Is(err, os.ErrExist) {
		return key, nil
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("activation state key %s is unreadable or damaged; delete it to start over (existing states become invalid)", path)
	}
	return b, nil
}

func vaultTag(key []byte) []byte {
	sum := sha256.Sum256(append([]byte("lore-vault-tag"), key...))
	return sum[:8]
}

// appendEntries appends the entry list: a count, then each key (length
// first) and hash prefix, and with labels each label (length first).
func appendEntries(buf []byte, entries []stateEntry, labels bool) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	for _, e := range entries {
		buf = binary.AppendUvarint(buf, uint64(len(e.key)))
		buf = append(buf, e.key...)
		buf = append(buf, e.hash[:]...)
		if labels {
			buf = binary.AppendUvarint(buf, uint64(len(e.label)))
			buf = append(buf, e.label...)
		}
	}
	return buf
}

// readString reads a length-prefixed string of at most max bytes.
func readString(r *bytes.Reader, max uint64) (string, bool) {
	l, err := binary.ReadUvarint(r)
	if err != nil || l > max || int(l) > r.Len() {
		return "", false
	}
	b := make([]byte, l)
	r.Read(b)
	return string(b), true
}

// readEntries reads an entry list written by appendEntries, all of it.
func readEntries(b []byte, labels bool) ([]stateEntry, error) {
	r := bytes.NewReader(b)
	n, err := binary.ReadUvarint(r)
	if err != nil || n > MaxStateUnits {
		return nil, invalidState("holds too many units")
	}
	entries := make([]stateEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		var e stateEntry
		var ok bool
		if e.key, ok = readString(r, 4096); !ok {
			return nil, invalidState("is damaged")
		}
		if _, err := r.Read(e.hash[:]); err != nil {
			return nil, invalidState("is damaged")
		}
		if labels {
			if e.label, ok = readString(r, 8192); !ok {
				return nil, invalidState("is damaged")
			}
		}
		entries = append(entries, e)
	}
	if r.Len() != 0 {
		return nil, invalidState("has trailing bytes")
	}
	return entries, nil
}

// stateRef is the token of a stored state: its id and the id's tag.
func stateRef(key, id []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(stateRefPrefix))
	mac.Write(id)
	return stateRefPrefix + base64.RawURLEncoding.EncodeToString(append(append([]byte{}, id...), mac.Sum(nil)[:stateTagBytes]...))
}

// saveState keeps entries in the index and returns the token that stands
// for them. The same entries give the same token; saving refreshes their
// time, and states unused for StateRetention are deleted.
func (p *Pipeline) saveState(ctx context.Context, key []byte, entries []stateEntry) (string, error) {
	blob := appendEntries([]byte{2}, entries, true)
	sum := sha256.Sum256(append(vaultTag(key), blob...))
	id := sum[:stateIDBytes]
	if err := p.rec.SaveState(ctx, id, blob, p.clock(), StateRetention); err != nil {
		// The index cannot keep it (a read-only or full disk): the token
		// carries the entries itself, as the first format did, so the
		// activation is still answered and its deltas still work.
		return encodeState(key, entries), nil
	}
	return stateRef(key, id), nil
}

// loadState returns the entries a token stands for: a stored state's
// ("las2."), or those a first-format token carries ("las1.").
func (p *Pipeline) loadState(ctx context.Context, key []byte, token string) ([]stateEntry, error) {
	if len(token) > MaxStateBytes {
		return nil, invalidState("is %d bytes, over the %d-byte limit", len(token), MaxStateBytes)
	}
	if strings.HasPrefix(token, statePrefix) {
		return decodeState(key, token)
	}
	body, ok := strings.CutPrefix(token, stateRefPrefix)
	if !ok {
		return nil, invalidState("is not a lore activation state")
	}
	raw, err := decodeB64(body)
	if err != nil || len(raw) != stateIDBytes+stateTagBytes {
		return nil, invalidState("is damaged or cut short")
	}
	id := raw[:stateIDBytes]
	if !hmac.Equal([]byte(stateRef(key, id)), []byte(token)) {
		return nil, invalidState("does not verify (edited, damaged, or made by another vault)")
	}
	blob, err := p.rec.State(ctx, id)
	if errors.Is(err, fts.ErrNoState) {
		return nil, invalidState("is no longer kept here (states are kept %s after their last use, and go with the index)", StateRetention)
	}
	if err != nil {
		return nil, err
	}
	if len(blob) == 0 || blob[0] != 2 {
		return nil, invalidState("is stored in a form this lore does not read")
	}
	return readEntries(blob[1:], true)
}

// encodeState signs entries into a first-format token (tests and the
// fuzzer make them; lore writes stored states, and this only when the index
// cannot keep one).
func encodeState(key []byte, entries []stateEntry) string {
	var buf bytes.Buffer
	buf.WriteByte(1)
	buf.Write(vaultTag(key))
	buf.Write(appendEntries(nil, entries, false))
	mac := hmac.New(sha256.New, key)
	mac.Write(buf.Bytes())
	return statePrefix + base64.RawURLEncoding.EncodeToString(buf.Bytes()) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// decodeB64 decodes a token's base64url part so that each signed state has
// exactly one spelling: strictly (a last character must not carry stray
// bits; the fuzzer found that second spelling) and with no line breaks,
// which Go's decoder skips even when strict (the fuzzer found that one in
// a later run).
func decodeB64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("line break in a token")
	}
	return base64.RawURLEncoding.Strict().DecodeString(s)
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
	payload, err1 := decodeB64(payloadB64)
	sig, err2 := decodeB64(macB64)
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
	return readEntries(payload[9:], false)
}
