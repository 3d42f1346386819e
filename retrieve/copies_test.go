package retrieve

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// yamlLists is one section's text as a guide has it; the slides of the same
// talk hold it with a separator and an emphasis.
const yamlLists = "A YAML key can hold more than one value: write the values as a list, one per line after a dash, or in square brackets separated by commas. Dataview reads each value of the list as its own."

// A text two notes hold is delivered once, from the note the other is named
// after: the Hub's Dataview guide and its slides delivered the same "YAML
// Lists" twice, the slides' first; a sync client's conflicted copy is named
// after the note it copies. The copy, placed first, gives its place to the
// original and is cut as cut:copy.
func TestActivate_ACopyInTwoNotesIsDeliveredOnceFromTheOriginal(t *testing.T) {
	for _, tc := range []struct {
		name, original, copy string
		copyHeading          string // the copy's own heading, when not the original's
		files                map[string]string
		query                string
	}{{
		name:     "slides of a guide",
		original: "talks/Dataview Talk.md", copy: "talks/Dataview Talk Slides.md",
		files: map[string]string{
			"talks/Dataview Talk.md": "# Dataview Talk\n\nA reformatted version of the talk.\n\n## YAML Lists\n\n" + yamlLists + "\n\n## Queries\n\nA query lists notes from a folder.\n",
			// The description's words rank the slides' copy first.
			"talks/Dataview Talk Slides.md": "---\ndescription: give a yaml key more than one value\n---\n# Dataview Talk (Slides)\n\nThe original slides.\n\n---\n\n## YAML Lists\n\n" +
				strings.Replace(yamlLists, "square brackets", "*square brackets*", 1) + "\n\n---\n",
			"other/Lists.md": "# Lists\n\nA list in Markdown starts each line with a dash.\n",
		},
		query: "give a YAML key more than one value",
	}, {
		name:     "a sync client's conflicted copy",
		original: "notes/Release.md", copy: "notes/Release (conflicted copy 2026-12-01).md",
		files: map[string]string{
			"notes/Release.md": "# Release\n\n## Checklist\n\nBefore the release, tag the commit, build the binaries for every platform, sign them, and write the changelog from the merged pull requests of the milestone.\n",
			// Edited on the other device: one more word the query has.
			"notes/Release (conflicted copy 2026-12-01).md": "# Release\n\n## Checklist\n\nBefore the release, tag the commit, build the binaries for every platform, sign them, and write the changelog from the merged pull requests of the milestone. Then publish.\n",
		},
		query: "what to do before the release: tag, build, sign, changelog, publish",
	}, {
		// One reading finds every shared text, under whatever heading: the
		// heading edited on the other device (copies were once read only
		// under one heading, and both were delivered).
		name:     "a conflicted copy under an edited heading",
		original: "notes/Release.md", copy: "notes/Release (conflicted copy 2026-12-01).md", copyHeading: "Release checklist",
		files: map[string]string{
			"notes/Release.md": "# Release\n\n## Checklist\n\nBefore the release, tag the commit, build the binaries for every platform, sign them, and write the changelog from the merged pull requests of the milestone.\n",
			"notes/Release (conflicted copy 2026-12-01).md": "# Release\n\n## Release checklist\n\nBefore the release, tag the commit, build the binaries for every platform, sign them, and write the changelog from the merged pull requests of the milestone. Then publish.\n",
			"notes/Onboarding.md":                           "# Onboarding\n\nRead the handbook.\n",
		},
		query: "what to do before the release: tag, build, sign, changelog, publish",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tv := newTestVault(t, tc.files)
			act := tv.activate(tc.query, "")
			if len(act.Fragments) == 0 || act.Fragments[0].Path != tc.original {
				t.Fatalf("first fragment is not the original's: %v", keys(act))
			}
			heading := last(act.Fragments[0].HeadingPath)
			if tc.copyHeading != "" {
				heading = tc.copyHeading
			}
			for _, f := range act.Fragments {
				if f.Path == tc.copy && last(f.HeadingPath) == heading {
					t.Errorf("the copy's section was delivered too: %v", keys(act))
				}
			}
			run := tv.run(act.RunID)
			cut := false
			for _, c := range run.Ranked {
				if c.Path == tc.copy && last(c.HeadingPath) == heading {
					cut = c.Outcome == "cut:copy"
					if !cut {
						t.Errorf("the copy's section: outcome %s; want cut:copy", c.Outcome)
					}
				}
			}
			if !cut {
				t.Errorf("the copy's section is not among the candidates: the test no longer shows the cut")
			}
		})
	}
}

// An agent's Draft that copies a published section cannot take its place:
// the Draft's copy ranks first (one more word the query has), carries the
// name the published note's extends, and is linked from two more of the
// Draft's notes, yet the published text is what the project gets and the
// copy is cut. Nothing an agent sends may stop others from reading:
// another project still reads the checklist and never the Draft.
func TestActivate_ADraftsCopyNeverDisplacesThePublishedText(t *testing.T) {
	checklist := "Before the release, tag the commit, build the binaries for every platform, sign them, and write the changelog from the merged pull requests of the milestone."
	tv := newTestVault(t, map[string]string{
		"notes/Release Checklist.md": "# Release Checklist\n\n## Steps\n\n" + checklist + "\n",
		"notes/Onboarding.md":        "# Onboarding\n\nRead the handbook.\n",
	})
	tv.Ix.Index.UseOverlay(testvault.Drafts{{ID: "d1", Project: "alpha", Head: "h1", Files: []vault.OverlayFile{
		{Path: "notes/Release.md", Data: []byte("# Release\n\n## Steps\n\n" + checklist + " Then publish.\n")},
		{Path: "notes/a.md", Data: []byte("# A\n\nSee [[Release]].\n")},
		{Path: "notes/b.md", Data: []byte("# B\n\nSee [[Release]].\n")},
	}}})
	act, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "what to do before the release: tag, build, sign, changelog, publish", Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if len(act.Fragments) == 0 || act.Fragments[0].Path != "notes/Release Checklist.md" || act.Fragments[0].DraftID != "" {
		t.Fatalf("first fragment is not the published checklist: %v", keys(act))
	}
	for _, f := range act.Fragments {
		if f.Path == "notes/Release.md" && last(f.HeadingPath) == "Steps" {
			t.Errorf("the Draft's copy was delivered too: %v", keys(act))
		}
	}
	cut := false
	for _, c := range tv.run(act.RunID).Ranked {
		if c.Path == "notes/Release.md" && last(c.HeadingPath) == "Steps" {
			cut = c.Outcome == "cut:copy"
			if !cut {
				t.Errorf("the Draft's copy: outcome %s; want cut:copy", c.Outcome)
			}
		}
	}
	if !cut {
		t.Errorf("the Draft's copy is not among the candidates: the test no longer shows the cut")
	}
	// Another project does not see the Draft at all, and reads the checklist.
	other, err := tv.Ix.Activate(t.Context(), vault.ActivateRequest{Query: "what to do before the release: tag, build, sign, changelog, publish", Project: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Fragments) == 0 || other.Fragments[0].Path != "notes/Release Checklist.md" {
		t.Errorf("another project's first fragment is not the published checklist: %v", keys(other))
	}
	for _, f := range other.Fragments {
		if f.DraftID != "" {
			t.Errorf("another project was given the Draft's %s", f.Path)
		}
	}
}

// zh is a section in Chinese: each Han character is a word of its own.
const zh = "退款接口必须是幂等的：同一个退款请求重复到达时，只处理一次，并返回第一次处理的结果。"

// Texts are copies when their readable words share most windows of five:
// a separator, an emphasis or a link's destination do not tell them apart;
// a paragraph of their own does. A text shorter than a window is compared
// whole.
func TestNearCopies(t *testing.T) {
	edited := strings.Replace(yamlLists, "square brackets", "*square brackets*", 1) + "\n\n---\n"
	linked := strings.Replace(yamlLists, "Dataview", "[Dataview](https://example.com/dataview)", 1)
	other := yamlLists + " A list of links is read as links, and a list of dates as dates; a list nested in a list is flattened when the page is read."
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"the same text", yamlLists, yamlLists, true},
		{"a separator and an emphasis", yamlLists, edited, true},
		{"a link's destination", yamlLists, linked, true},
		{"a paragraph of its own", yamlLists, other, false},
		{"a different text", yamlLists, "A query lists notes from a folder, sorted by their date, newest first, and groups them by their tags.", false},
		{"shorter than a window, the same", "Tag the commit.", "Tag *the* commit.", true},
		{"shorter than a window, one word apart", "Tag the commit.", "Tag the release.", false},
		{"two empty texts", "", "<!-- nothing yet -->", true},
		{"Chinese, one mark apart", zh, strings.Replace(zh, "，", "、", 1), true},
		{"Chinese, another text", zh, "分布式锁的超时时间要大于业务处理的最长时间，否则锁会在处理完成之前被释放，另一个实例就会重复处理。", false},
	} {
		if got := nearCopies(sh(tc.a), sh(tc.b)); got != tc.want {
			t.Errorf("%s: nearCopies = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// sh is the sorted set of s's window hashes, as sharedGroups compares them.
func sh(s string) []uint64 {
	t := copyText{}
	t.windows, _ = windows(markdown.ReadableText(s), nil)
	return t.set()
}

// A bottom-k sketch is the k smallest values of the set, and two texts'
// sketches tell what their whole sets would: the pairs that near copies
// are found among.
func TestBottom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		hs := make([]uint64, r.IntN(60))
		for i := range hs {
			hs[i] = r.Uint64N(40) // duplicates too
		}
		want := slices.Compact(slices.Sorted(slices.Values(hs)))
		want = want[:min(len(want), copySketch)]
		if got := bottom(hs, copySketch); !slices.Equal(got, want) {
			t.Fatalf("bottom(%v) = %v; want %v", hs, got, want)
		}
	}
	a, b := sh(yamlLists), sh(strings.Replace(yamlLists, "square brackets", "*square brackets*", 1))
	if !sketchesMeet(bottom(a, copySketch), bottom(b, copySketch)) {
		t.Errorf("the sketches of two copies do not meet")
	}
	if c := sh(zh); sketchesMeet(bottom(a, copySketch), bottom(c, copySketch)) {
		t.Errorf("the sketches of two different texts meet")
	}
}

// A copy is named after what it copies: its file name extends the other's.
func TestNamedAfter(t *testing.T) {
	for _, tc := range []struct {
		copy, original string
		want           bool
	}{
		{"g/An Introduction to Dataview Slides.md", "g/An Introduction to Dataview.md", true},
		{"notes/Note 1.md", "other/note.md", true},
		{"notes/Note (conflicted copy).md", "notes/Note.md", true},
		{"notes/Note.md", "notes/Note 1.md", false},
		{"notes/Note.md", "notes/Note.md", false},
		{"notes/Notebook.md", "notes/Release.md", false},
	} {
		if got := namedAfter(tc.copy, tc.original); got != tc.want {
			t.Errorf("namedAfter(%q, %q) = %v; want %v", tc.copy, tc.original, got, tc.want)
		}
	}
}

// last is a heading path's own heading ("" for none).
func last(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1]
}

// A short text is a template only when notes hold it word for word,
// punctuation kept: the Hub's Dataview guide and its slides hold the same
// short example, escaped differently, and it is a copy, delivered once from
// the guide; a short line that two notes hold as written is a template,
// and neither is delivered.
func TestActivate_AShortTextIsATemplateOnlyWordForWord(t *testing.T) {
	tv := newTestVault(t, map[string]string{
		"guides/Dataview.md":        "# Dataview\n\n## From tag\n\nList the notes of a tag: LIST FROM #project\n\n## Sorting\n\nSort a list by a field, newest first.\n",
		"guides/Dataview Slides.md": "# Dataview (Slides)\n\n## From tag\n\nList the notes of a tag: `LIST FROM \\#project`\n\n---\n\n## Sorting\n\nSort the rows.\n",
		"plugins/Tags.md":           "# Tags\n\nA plugin that lists the notes of a tag.\n\n## Status\n\nNo notes of a tag yet, to do.\n",
		"plugins/Tag Wrangler.md":   "# Tag Wrangler\n\nRename, merge and search tags.\n\n## Status\n\nNo notes of a tag yet, to do.\n",
	})
	act := tv.activate("list the notes of a tag", "")
	delivered := map[string]int{}
	for _, f := range act.Fragments {
		delivered[last(f.HeadingPath)]++
	}
	if delivered["From tag"] != 1 {
		t.Errorf("the example the guide and its slides hold was delivered %d times; want once: %v", delivered["From tag"], keys(act))
	}
	if delivered["Status"] != 0 {
		t.Errorf("the line two plugins hold word for word was delivered %d times; want never: %v", delivered["Status"], keys(act))
	}
	for _, c := range tv.run(act.RunID).Ranked {
		switch last(c.HeadingPath) {
		case "From tag":
			if c.Path == "guides/Dataview Slides.md" && c.Outcome != "cut:copy" {
				t.Errorf("the slides' example: outcome %s; want cut:copy", c.Outcome)
			}
		case "Status":
			if c.Outcome != "cut:template" {
				t.Errorf("%s's status line: outcome %s; want cut:template", c.Path, c.Outcome)
			}
		}
	}
}

// The pairs read for copies are found through the sketches' hashes, not by
// reading every pair: they are exactly the pairs whose sketches hold a hash
// in common, which every pair whose sketches meet is.
func TestSketchPairs_AreThePairsWhoseSketchesShareAHash(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		texts := make([]copyText, r.IntN(30))
		for i := range texts {
			if r.IntN(8) == 0 {
				continue // not read: too long
			}
			hs := make([]uint64, 1+r.IntN(40))
			for k := range hs {
				hs[k] = r.Uint64N(120)
			}
			texts[i] = copyText{read: true, windows: hs, sketch: bottom(hs, copySketch)}
		}
		var want [][2]int
		for i := range texts {
			for j := i + 1; j < len(texts); j++ {
				x, y := texts[i], texts[j]
				if !x.read || !y.read {
					continue
				}
				shared := slices.ContainsFunc(x.sketch, func(h uint64) bool { return slices.Contains(y.sketch, h) })
				if shared {
					want = append(want, [2]int{i, j})
				}
				if sketchesMeet(x.sketch, y.sketch) && !shared {
					t.Fatalf("texts %d and %d: sketches meet with no hash in common", i, j)
				}
			}
		}
		if got := sketchPairs(texts); !slices.Equal(got, want) {
			t.Fatalf("sketchPairs = %v; want %v", got, want)
		}
	}
}
