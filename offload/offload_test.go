package offload

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/golden"
)

func TestOffloadGolden(t *testing.T) {
	log, err := os.ReadFile("testdata/build.log")
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(t.TempDir())
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
	res, err := NewStore(t.TempDir()).GC(string(tr), GCOptions{HotWindow: 1, ContextWindow: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	golden.Check(t, "gc.json", string(out)+"\n")
}
