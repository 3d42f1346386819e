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

// TestCommentSpans_EveryNoteOfTheObsidianHub: on every note of the Hub,
// whose every note ends with a %% comment and whose author pages keep HTML
// comments, commentSpans finds what the regular expression finds.
func TestCommentSpans_EveryNoteOfTheObsidianHub(t *testing.T) {
	found := 0
	for _, n := range shareddata.Hub(t) {
		md := string(n.Data)
		want := hiddenCommentRE.FindAllStringIndex(md, -1)
		got := commentSpans(md)
		if len(got) != len(want) {
			t.Fatalf("%s: %d comments, the regexp finds %d", n.Path, len(got), len(want))
		}
		for i := range got {
			if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
				t.Fatalf("%s: comment %d at %v, the regexp finds %v", n.Path, i, got[i], want[i])
			}
		}
		found += len(got)
	}
	t.Logf("%d comments found as the regexp finds them", found)
}

// BenchmarkReadableText_ObsidianHub reads every note of the Hub as the
// index and the ranking read a section (ReadableText).
func BenchmarkReadableText_ObsidianHub(b *testing.B) {
	notes := shareddata.Hub(b)
	var size int64
	for _, n := range notes {
		size += int64(len(n.Data))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		for _, n := range notes {
			ReadableText(string(n.Data))
		}
	}
}

// TestWikilinkIndexes_EveryNoteOfTheObsidianHub: on every note of the Hub,
// a vault of wikilinks and embeds, wikilinkIndexes finds what the regular
// expression finds.
func TestWikilinkIndexes_EveryNoteOfTheObsidianHub(t *testing.T) {
	found := 0
	for _, n := range shareddata.Hub(t) {
		want := wikilink().FindAllSubmatchIndex(n.Data, -1)
		got := wikilinkIndexes(n.Data)
		if len(got) != len(want) {
			t.Fatalf("%s: %d links, the regexp finds %d", n.Path, len(got), len(want))
		}
		for i := range got {
			for k := range got[i] {
				if got[i][k] != want[i][k] {
					t.Fatalf("%s: link %d at %v, the regexp finds %v", n.Path, i, got[i], want[i])
				}
			}
		}
		found += len(got)
	}
	t.Logf("%d links found as the regexp finds them", found)
}

// BenchmarkParse_ObsidianHub parses every note of the Hub, as a cold index
// of it does.
func BenchmarkParse_ObsidianHub(b *testing.B) {
	notes := shareddata.Hub(b)
	var size int64
	for _, n := range notes {
		size += int64(len(n.Data))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		for _, n := range notes {
			if _, err := Parse(n.Path, n.Data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
