package markdown

import (
	"slices"
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

// TestScanners_AsTheRegexpsOnEveryNoteOfTheObsidianHub: on every note of
// the Hub (every one ends with a %% comment, author pages keep HTML
// comments, and wikilinks and embeds are everywhere), commentSpans and
// wikilinkIndexes find what the regular expressions they replace find.
func TestScanners_AsTheRegexpsOnEveryNoteOfTheObsidianHub(t *testing.T) {
	comments, links := 0, 0
	for _, n := range shareddata.Hub(t) {
		var spans [][]int
		for _, sp := range commentSpans(string(n.Data)) {
			spans = append(spans, sp[:])
		}
		asTheRegexp(t, n.Path, "comments", spans, hiddenCommentRE.FindAllIndex(n.Data, -1))
		asTheRegexp(t, n.Path, "links", wikilinkIndexes(n.Data), wikilink().FindAllSubmatchIndex(n.Data, -1))
		comments, links = comments+len(spans), links+len(wikilinkIndexes(n.Data))
	}
	t.Logf("%d comments and %d links found as the regexps find them", comments, links)
}

// asTheRegexp fails t unless got and want, the matches and parts found in
// the note at path, are the same.
func asTheRegexp(t *testing.T, path, what string, got, want [][]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d %s, the regexp finds %d", path, len(got), what, len(want))
	}
	for i := range got {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%s: %s %d at %v, the regexp finds %v", path, what, i, got[i], want[i])
		}
	}
}

// BenchmarkReadableText_ObsidianHub reads every note of the Hub as the
// index and the ranking read a section (ReadableText).
func BenchmarkReadableText_ObsidianHub(b *testing.B) {
	notes := hubToRead(b)
	for range b.N {
		for _, n := range notes {
			ReadableText(string(n.Data))
		}
	}
}

// BenchmarkParse_ObsidianHub parses every note of the Hub, as a cold index
// of it does.
func BenchmarkParse_ObsidianHub(b *testing.B) {
	notes := hubToRead(b)
	for range b.N {
		for _, n := range notes {
			if _, err := Parse(n.Path, n.Data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// hubToRead returns the Hub's notes for a benchmark that reads each once
// an iteration, its bytes set to theirs and its timer started after them.
func hubToRead(b *testing.B) []shareddata.Note {
	notes := shareddata.Hub(b)
	var size int64
	for _, n := range notes {
		size += int64(len(n.Data))
	}
	b.SetBytes(size)
	b.ResetTimer()
	return notes
}
