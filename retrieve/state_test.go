package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lore-memory/lore/vault"
)

// FuzzDecodeState: no token crashes the decoder, and only tokens this key
// signed decode.
func FuzzDecodeState(f *testing.F) {
	key := []byte("0123456789abcdef0123456789abcdef")
	good := encodeState(key, []stateEntry{{key: "mem_a/sync/0/0"}, {key: "path_x/_/0/0"}})
	for _, s := range []string{good, "", "las1.", "las1.x.y", good[:len(good)-3], good + "A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		entries, err := decodeState(key, token)
		if err == nil && encodeState(key, entries) != token {
			t.Fatalf("accepted a token the key did not sign: %q", token)
		}
	})
}

// next_state is a short reference to entries kept in the index: the same
// 43 characters for 1, 10, 100 or 256 units, read back whole; the first
// format is still read.
func TestState_StoredStateIsShortAndReadsBack(t *testing.T) {
	tv := newTestVault(t, nil)
	ctx := context.Background()
	key := mustKey(t, tv.Ix)
	for _, n := range []int{0, 1, 10, 100, MaxStateUnits} {
		var entries []stateEntry
		for i := 0; i < n; i++ {
			entries = append(entries, stateEntry{key: fmt.Sprintf("mem_01JDEMO%019d/section-%d/0/0", i, i), hash: [8]byte{byte(i), 1, 2, 3, 4, 5, 6, 7}})
		}
		token, err := tv.Ix.Pipeline.saveState(ctx, key, entries)
		if err != nil {
			t.Fatal(err)
		}
		if len(token) != 43 || !strings.HasPrefix(token, "las2.") {
			t.Errorf("%d units: token %q (%d bytes); want las2. and 43 bytes", n, token, len(token))
		}
		got, err := tv.Ix.Pipeline.loadState(ctx, key, token)
		if err != nil || len(got) != n || (n > 0 && got[n-1] != entries[n-1]) {
			t.Errorf("%d units read back as %d, %v", n, len(got), err)
		}
	}
	old := encodeState(key, []stateEntry{{key: "mem_a/sync/0/0"}})
	if got, err := tv.Ix.Pipeline.loadState(ctx, key, old); err != nil || len(got) != 1 || got[0].key != "mem_a/sync/0/0" {
		t.Errorf("a first-format state: %v, %v", got, err)
	}
}

// A stored state's token is refused when it was edited or cut short, made
// by another vault, or its entries are gone (expired or deleted) — never
// read as an empty state.
func TestState_BadReferencesAreRefused(t *testing.T) {
	tv := newTestVault(t, nil)
	other := newTestVault(t, nil)
	ctx := context.Background()
	key := mustKey(t, tv.Ix)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tv.Ix.Pipeline.clock = func() time.Time { return now }
	token, err := tv.Ix.Pipeline.saveState(ctx, key, []stateEntry{{key: "mem_a/sync/0/0"}})
	if err != nil {
		t.Fatal(err)
	}
	flip := []byte(token)
	flip[10] ^= 1
	for name, bad := range map[string]string{
		"edited":    string(flip),
		"cut short": token[:len(token)-2],
		"padded":    token + "A",
		"huge":      "las2." + strings.Repeat("A", MaxStateBytes),
		"unknown":   "las9.abc",
	} {
		if _, err := tv.Ix.Pipeline.loadState(ctx, key, bad); vault.ErrorCode(err) != vault.CodeInvalidState {
			t.Errorf("%s token: %v; want invalid_activation_state", name, err)
		}
	}
	if _, err := other.Ix.Pipeline.loadState(ctx, mustKey(t, other.Ix), token); vault.ErrorCode(err) != vault.CodeInvalidState {
		t.Errorf("another vault's token: %v; want invalid_activation_state", err)
	}
	// Kept StateRetention after its last use: a save after that long
	// deletes it, and the token then says so.
	now = now.Add(StateRetention + 2*time.Minute)
	if _, err := tv.Ix.Pipeline.saveState(ctx, key, nil); err != nil {
		t.Fatal(err)
	}
	_, err = tv.Ix.Pipeline.loadState(ctx, key, token)
	if vault.ErrorCode(err) != vault.CodeInvalidState || !strings.Contains(err.Error(), "no longer kept") {
		t.Errorf("an expired state: %v; want invalid_activation_state saying it is no longer kept", err)
	}
}

// Go's base64 decoder skips line breaks even in strict mode, so a token with
// one inserted decoded to the state it was cut from: a second spelling of a
// signed state (found by FuzzDecodeState in `make reliability`). Both
// formats refuse it as invalid_activation_state.
func TestState_LineBreaksAreNotASecondSpelling(t *testing.T) {
	tv := newTestVault(t, nil)
	ctx := context.Background()
	key := mustKey(t, tv.Ix)
	entries := []stateEntry{{key: "mem_a/sync/0/0"}, {key: "path_x/_/0/0"}}
	stored, err := tv.Ix.Pipeline.saveState(ctx, key, entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{encodeState(key, entries), stored} {
		if _, err := tv.Ix.Pipeline.loadState(ctx, key, token); err != nil {
			t.Fatalf("the token as signed: %v", err)
		}
		for _, at := range []int{8, len(token) / 2, len(token) - 2} {
			for _, br := range []string{"\n", "\r", "\r\n"} {
				bent := token[:at] + br + token[at:]
				_, err := tv.Ix.Pipeline.loadState(ctx, key, bent)
				if vault.ErrorCode(err) != vault.CodeInvalidState {
					t.Errorf("%q accepted or refused wrongly: %v", bent, err)
				}
			}
		}
	}
}
