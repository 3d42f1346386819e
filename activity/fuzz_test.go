package activity

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzLogLines feeds arbitrary lines to the Codex, Claude Code and DSH
// record readers: never a panic, and every activation they find has a
// status.
func FuzzLogLines(f *testing.F) {
	for _, p := range []string{"testdata/codex/sessions/2026/11/30/rollout-2026-11-30T09-00-00-c1.jsonl", "testdata/claude/projects/-work-code/cl1.jsonl"} {
		data, _ := os.ReadFile(p)
		for _, l := range strings.Split(string(data), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"type":"tool/call","callId":"k","name":"mcp__lore__memory","arguments":{"op":{"activate":{"query":"q"}}}}`))
	f.Add([]byte(`{"type":"tool/result","callId":"k","result":{"Ok":{"content":[{"type":"text","text":"{\"fragments\":[1,{}]}"}]}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var b builder
		b.codex(1, line)
		b.claude(1, line)
		b.dsh(dshRecordOf(line))
		// A call then a result, in every reader.
		b.codex(2, line)
		for _, r := range b.requests {
			for _, a := range r.Activations {
				if a.Status == "" {
					t.Fatalf("activation without a status: %+v", a)
				}
			}
		}
	})
}

// dshRecordOf reads a line as a DSH record (as decodeDSH does per line).
func dshRecordOf(line []byte) dshRecord {
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return dshRecord{}
	}
	t, _ := m["type"].(string)
	return dshRecord{Type: t, m: m}
}

// FuzzDSHFrames: arbitrary bytes as a session file never panic the reader.
func FuzzDSHFrames(f *testing.F) {
	f.Add([]byte("\x28\xb5\x2f\xfd\x00\x00"))
	f.Add([]byte("not zstd"))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeDSH(data, 0)
	})
}
