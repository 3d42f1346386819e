package offload

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/golden"
	"github.com/lore-memory/lore/vault"
)

func TestOffloadGolden(t *testing.T) {
	log, err := os.ReadFile("testdata/build.log")
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir(), 0, 0)
	o, err := s.Offload(string(log), "build-7")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Offloaded || o.Lines != strings.Count(string(log), "\n") || len(strings.Split(strings.TrimSpace(o.Diagram), "\n")) > 15 {
		t.Fatalf("%+v", o)
	}
	golden.Check(t, "build.offload.md", o.Text)
	back, err := s.Inspect(o.NodeID, 0, 0)
	if err != nil || back.Text != string(log) {
		t.Fatalf("inspect: %v", err)
	}
	part, _ := s.Inspect(o.NodeID, 10, 11)
	if !strings.HasPrefix(part.Text, "--- FAIL: TestStore") {
		t.Fatalf("lines 9-10: %q", part.Text)
	}
	if _, err := s.Inspect(o.NodeID, 90, 91); err == nil {
		t.Fatal("a range past the end is an error")
	}
}

func TestDistillGolden(t *testing.T) {
	log, _ := os.ReadFile("testdata/build.log")
	sk, err := Distill(string(log), "", "The store package stopped compiling after the sqlx removal.", "skill", []string{"go"}, []string{"decisions/0001-sqlite-for-the-index.md"})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "build.skill.md", sk.Note())
	golden.Check(t, "build.hermes.SKILL.md", sk.SkillFile("hermes"))
	golden.Check(t, "build.omp.SKILL.md", sk.SkillFile("omp"))
	p, _ := sk.SkillPath("omp", func(k string) string { return map[string]string{"PI_CODING_AGENT_DIR": "/agent"}[k] })
	if p != "/agent/skills/"+sk.Name+"/SKILL.md" {
		t.Fatal(p)
	}
}

func TestGCGolden(t *testing.T) {
	dump := strings.Repeat("error: connection refused\n", 30)
	tr, _ := json.Marshal(map[string]any{"session_id": "s1", "turns": []map[string]any{
		{"role": "user", "content": "deploy"},
		{"role": "tool", "tool_output": dump, "tool": "bash"},
		{"role": "tool", "tool_output": dump, "tool": "bash"},
		{"role": "assistant", "content": "the server is down"},
	}})
	res, err := NewStore(t.TempDir(), 0, 0).GC(string(tr), GCOptions{HotWindow: 1, ContextWindow: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	golden.Check(t, "gc.json", string(out)+"\n")
}

// TestAttack_OffloadIsBounded: an agent calling offload_context again and
// again filled a 48 MiB file system (7 logs of ~8 MiB and 6 smaller ones),
// and other agents' reads then failed. The store keeps at most its bytes
// and its count of logs, collecting the oldest first; a log larger than
// the whole bound is refused.
func TestAttack_OffloadIsBounded(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, 1<<20, 4)
	log := func(i, kb int) string {
		var b strings.Builder
		for b.Len() < kb<<10 {
			fmt.Fprintf(&b, "log %d line %d: error building package\n", i, b.Len())
		}
		return b.String()
	}
	var ids []string
	for i := 0; i < 8; i++ {
		res, err := s.Offload(log(i, 300), "")
		if err != nil {
			t.Fatalf("offload %d: %v", i, err)
		}
		ids = append(ids, res.NodeID)
		var total int64
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			info, _ := e.Info()
			total += info.Size()
		}
		if total > 1<<20 || len(ents) > 4 {
			t.Fatalf("after %d logs the store holds %d bytes in %d files; bounds 1 MiB, 4 logs", i+1, total, len(ents))
		}
	}
	if _, err := s.Get(ids[len(ids)-1]); err != nil {
		t.Errorf("the newest log was collected: %v", err)
	}
	if _, err := s.Get(ids[0]); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("the oldest log is still kept: %v", err)
	}
	if _, err := s.Offload(log(99, 1100), ""); vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "offload.max_mb") {
		t.Errorf("a log larger than the bound: %v; want invalid_input naming offload.max_mb", err)
	}
	few := NewStore(t.TempDir(), 0, 2)
	for i := 0; i < 5; i++ {
		if _, err := few.Offload(log(i, 8), ""); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(few.dir); len(ents) != 2 {
		t.Errorf("max_nodes 2: %d logs kept", len(ents))
	}
}
