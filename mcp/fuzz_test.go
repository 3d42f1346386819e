package mcp

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/strictjson"
	"github.com/lore-memory/lore/journal"
	"github.com/lore-memory/lore/vault"
)

// FuzzDecodeTools feeds arbitrary bytes to the strict decoder of every
// tool's arguments: it must never panic, and every refusal must be an
// invalid_input error that says what was wrong.
func FuzzDecodeTools(f *testing.F) {
	for _, s := range []string{
		`{"op":{"activate":{"query":"x","state":"las1.x"}}}`,
		`{"op":{"load":{"ids":["a","b.md"],"knownHashes":{"a":"sha256:0"}}}}`,
		`{"op":{"store":{"update":{"id":"mem_1","expected_hash":"sha256:1","replacements":[{"old_text":"a","new_text":""}]}}}}`,
		`{"op":{"store":{"resource":"memory","create":{"path":"a.md","body":"# A","description":"d"}}}}`,
		`{"query":"x","limit":5,"full":true,"mode":"bm25"}`,
		`{"title":"t","content":"c","supersedes":["a",null]}`,
		`{"namespace":"u/p","keywords":["k"],"slice":"s","diary":"d","importance":3}`,
		`{"trajectory_json":"{}","threshold":1}`,
		`{"op":null}`, `[]`, `{"op":{"activate":{"query":1}}}`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	check := func(t *testing.T, err error) {
		if err != nil && vault.ErrorCode(err) != vault.CodeInvalid {
			t.Fatalf("a decode error must be invalid_input: %v", err)
		}
	}
	s := &Server{}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m memoryInput
		check(t, strictjson.Decode(data, &m))
		_, err := decode[recallInput](data)
		check(t, err)
		_, err = decode[guardInput](data)
		check(t, err)
		_, err = decode[flushInput](data)
		check(t, err)
		_, err = decode[distillInput](data)
		check(t, err)
		_, err = decode[offloadInput](data)
		check(t, err)
		_, err = decode[inspectInput](data)
		check(t, err)
		_, err = decode[gcInput](data)
		check(t, err)
		_, err = decode[loadoutInput](data)
		check(t, err)
		_, err = decode[journal.RememberInput](data)
		check(t, err)
		_, err = decode[journal.RecallInput](data)
		check(t, err)
		_, err = decode[nsInput](data)
		check(t, err)
		// The memory tool's checks past decoding need no index for bad input.
		if m.Op == nil {
			if _, err := s.memory(context.Background(), data); err != nil && vault.ErrorCode(err) == vault.CodeInternal {
				t.Fatalf("internal error on bad input: %v", err)
			}
		}
	})
}
