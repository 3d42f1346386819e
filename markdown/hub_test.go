package markdown

import (
	"testing"

	"github.com/lore-memory/lore/internal/shareddata"
)

// TestParse_EveryNoteOfTheObsidianHub parses every note of the Obsidian Hub,
// a real vault of 6,591 notes written by many people (28 of them once
// panicked the parser), with the same property check as FuzzParse: every
// unit within the body, in order, without overlap. It skips with one line
// when the shared data is absent.
func TestParse_EveryNoteOfTheObsidianHub(t *testing.T) {
	notes := shareddata.Hub(t)
	if len(notes) < 6000 {
		t.Fatalf("the Hub archive holds %d notes, want its 6,591", len(notes))
	}
	refused := 0
	for _, n := range notes {
		r, err := Parse(n.Path, n.Data)
		if err != nil {
			refused++
			t.Errorf("%s: %v", n.Path, err)
			continue
		}
		checkUnits(t, n.Path, n.Data, r)
	}
	t.Logf("%d notes parsed, %d refused", len(notes), refused)
}
