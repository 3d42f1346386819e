package fts

import "testing"

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
