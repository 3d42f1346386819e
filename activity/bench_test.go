package activity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkList1000 answers the first page of `lore activity list` over
// 1,000 sessions (800 Codex rollouts of ~40 KB, 200 Claude transcripts):
// discovery reads only each log's bounded header.
func BenchmarkList1000(b *testing.B) {
	tmp := b.TempDir()
	h := Homes{"codex": filepath.Join(tmp, "codex"), "claude": filepath.Join(tmp, "claude"), "dsh": filepath.Join(tmp, "dsh")}
	body := strings.Repeat(`{"timestamp":"2026-11-30T09:00:05Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"working on it, reading files and running the tests again"}]}}`+"\n", 250)
	for i := 0; i < 800; i++ {
		dir := filepath.Join(h["codex"], "sessions", "2026", "11", fmt.Sprintf("%02d", i%30+1))
		os.MkdirAll(dir, 0o755)
		head := fmt.Sprintf(`{"timestamp":"2026-11-30T09:00:00Z","type":"session_meta","payload":{"id":"s%d","cwd":"/work/code","timestamp":"2026-11-30T09:00:00Z"}}`+"\n"+
			`{"timestamp":"2026-11-30T09:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"task number %d"}]}}`+"\n", i, i)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("rollout-%d.jsonl", i)), []byte(head+body), 0o644)
	}
	cdir := filepath.Join(h["claude"], "projects", "-work-code")
	os.MkdirAll(cdir, 0o755)
	for i := 0; i < 200; i++ {
		rec := fmt.Sprintf(`{"type":"user","sessionId":"cl%d","cwd":"/work/code","timestamp":"2026-11-29T10:00:02Z","message":{"role":"user","content":"question %d"}}`+"\n", i, i)
		os.WriteFile(filepath.Join(cdir, fmt.Sprintf("cl%d.jsonl", i)), []byte(strings.Repeat(rec, 20)), 0o644)
	}
	a := New(h, []Workspace{{Root: "/work/code", Vault: "/v", Project: "api"}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := a.List(Filter{}, "", DefaultPage)
		if err != nil || p.Total != 1000 || len(p.Sessions) != DefaultPage {
			b.Fatalf("%v %d", err, p.Total)
		}
	}
}
