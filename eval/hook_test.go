package eval

import (
	"context"
	"testing"

	"github.com/lore-memory/lore/internal/testmodel"
	"github.com/lore-memory/lore/internal/testvault"
)

// TestHook_HybridFigures asks the demo vault its questions and the
// everyday off-topic prompts of testdata/eval as the prompt hook does, with
// the built-in model (hybrid, as the hook runs once the model is
// installed), and holds the figures at floors one prompt under today's.
// With the bar's vector path at 0.5 the model let four of five off-topic
// prompts through (silent 0.200 · 0.200 · 0.286; docs/BENCHMARKS.md, the
// prompt hook). It needs `make model`; CI sets LORE_REQUIRE_MODEL.
func TestHook_HybridFigures(t *testing.T) {
	ix := openIndex(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	testmodel.EmbedAll(t, ix.Index, testmodel.Builtin(t))
	ctx := context.Background()
	on, err := LoadQuestions("../testdata/demo-questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var off [][]string
	for _, f := range []string{"off-topic.txt", "off-topic-2.txt", "off-topic-3.txt"} {
		ps, err := LoadPrompts("../testdata/eval/" + f)
		if err != nil {
			t.Fatal(err)
		}
		off = append(off, ps)
	}
	h, err := ScoreHook(ctx, InMode(ix, "hybrid"), on, off)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("demo, hybrid: on-topic answered %.3f, first %.3f; off-topic silent %.3f · %.3f · %.3f",
		h.Answered, h.First, h.Off[0].Silent, h.Off[1].Silent, h.Off[2].Silent)
	if h.Answered < 0.85 {
		t.Errorf("on-topic answered %.3f, under its floor 0.85", h.Answered)
	}
	for i, floor := range []float64{0.74, 0.74, 0.82} {
		if h.Off[i].Silent < floor {
			t.Errorf("off-topic set %d: silent %.3f, under its floor %.2f; sent for %q", i+1, h.Off[i].Silent, floor, h.Off[i].Sent)
		}
	}
}
