package vault

import (
	"reflect"
	"strings"
	"testing"
)

// Text and ParseActivationText agree: every field the text carries comes
// back (headings the header left to the text included), whatever the
// fragments hold — a chunk without its heading, a reuse, a Draft, a status,
// a line in a note that looks like a header, removed units.
func TestActivationText_RoundTrip(t *testing.T) {
	a := &Activation{
		NextState: "las2.abc", RunID: "run_01", Removed: []string{"mem_x/old/0/0", "mem_y/gone/0/1"},
		RemovedLabels: []string{"old.md › Old", ""},
		Fragments: []Fragment{
			{Action: "add", UnitKey: "mem_r/before-the-release/0/0", ResourceID: "mem_r", Kind: "memory", Path: "howto/release.md",
				HeadingPath: []string{"How to release", "Before the release"}, Content: "## Before the release\n\n1. test\n\n2. bench\n"},
			{Action: "reuse", UnitKey: "mem_r/after/0/0", ResourceID: "mem_r", Kind: "memory", Path: "howto/release.md",
				HeadingPath: []string{"How to release", "After"}},
			{Action: "replace", UnitKey: "mem_s/steps/0/1", ResourceID: "mem_s", Kind: "memory", Path: "a b/steps.md", DraftID: "drf_1",
				HeadingPath: []string{"Deploy", "Steps"}, Content: "continued text\n[add] x.md › A\nmore"},
			{Action: "add", UnitKey: "path_0123/_/0/0", ResourceID: "path_0123", Kind: "memory", Path: "notes/并发.md", Status: "superseded",
				HeadingPath: []string{}, Content: "no heading at all"},
		},
	}
	text := a.Text()
	if !strings.Contains(text, "[add] howto/release.md › How to release\n## Before the release") {
		t.Errorf("the header repeats the heading the text starts with:\n%s", text)
	}
	got, ok := ParseActivationText(text)
	if !ok {
		t.Fatalf("not read back:\n%s", text)
	}
	// What the text leaves to the structured form does not come back; the
	// removed units come back as the text names them.
	want := *a
	want.RunID, want.RemovedLabels = "", nil
	want.Removed = []string{"old.md › Old", "mem_y/gone/0/1"}
	want.Fragments = append([]Fragment(nil), a.Fragments...)
	for i := range want.Fragments {
		want.Fragments[i].UnitKey, want.Fragments[i].ResourceID = "", ""
	}
	want.Fragments[0].Content = strings.TrimRight(want.Fragments[0].Content, "\n")
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("read back\n%#v\nwant\n%#v\ntext:\n%s", *got, want, text)
	}
	empty := &Activation{NextState: "las2.x", Fragments: []Fragment{}, Removed: []string{}}
	if got, ok := ParseActivationText(empty.Text()); !ok || len(got.Fragments) != 0 || got.NextState != "las2.x" {
		t.Errorf("an empty activation: %#v, %v", got, ok)
	}
	for _, s := range []string{"", "{\"fragments\":[]}", "hello\nnext_state: x", "[edit] a.md\n\nnext_state: x"} {
		if _, ok := ParseActivationText(s); ok {
			t.Errorf("%q was read as an activation", s)
		}
	}
}

// ParseActivationText reads agents' logs, which anyone can write: no input
// makes it panic, and what it accepts renders and reads back again.
func FuzzParseActivationText(f *testing.F) {
	a := &Activation{NextState: "las2.abc", Removed: []string{"mem_x/a/0/0"}, RemovedLabels: []string{"x.md › A"}, Fragments: []Fragment{
		{Action: "add", Path: "a.md", HeadingPath: []string{"A", "B"}, Content: "## B\n\ntext\n\n[add] b.md › C\nmore"},
		{Action: "reuse", Path: "c.md", HeadingPath: []string{"C"}},
	}}
	for _, s := range []string{a.Text(), "", "next_state: ", "\n\nnext_state: x", "[add] a\nnext_state: x", "[reuse] a › b\n\nremoved (no longer current; stop relying on them): \n\nnext_state: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseActivationText(s)
		if !ok {
			return
		}
		if _, ok := ParseActivationText(got.Text()); !ok {
			t.Fatalf("read %q, but its rendering %q does not read back", s, got.Text())
		}
	})
}

// A fragment whose citations of code broke carries a marker line under its
// header, with the evidence; reading the text back gives the note's text
// without it, and a note's own line that looks like a marker stays text.
func TestActivationText_StaleMarker(t *testing.T) {
	a := &Activation{NextState: "las2.s", Fragments: []Fragment{
		{Action: "add", Path: "notes/retry.md", HeadingPath: []string{"Retries", "Backoff"}, Content: "## Backoff\n\n`backoffFor` caps at 5 minutes.",
			Stale: []CodeFinding{{Cites: "backoffFor", Kind: "identifier", Problem: ProblemIdentifier, Path: "sync/retry.go", Commit: "3f2a1c9d00", Date: "2026-11-02", Author: "Ada"}}},
		{Action: "add", Path: "notes/other.md", HeadingPath: []string{"Other"}, Content: StaleLead + "written by hand"},
	}}
	text := a.Text()
	want := "[add] notes/retry.md › Retries\n" + StaleLead + "cites `backoffFor` in sync/retry.go, removed in 3f2a1c9 on 2026-11-02 by Ada\n## Backoff"
	if !strings.Contains(text, want) {
		t.Fatalf("no marker under the header:\n%s", text)
	}
	got, ok := ParseActivationText(text)
	if !ok || len(got.Fragments) != 2 {
		t.Fatalf("not read back: %v\n%s", ok, text)
	}
	if got.Fragments[0].Content != a.Fragments[0].Content || got.Fragments[1].Content != a.Fragments[1].Content {
		t.Fatalf("read back %q and %q", got.Fragments[0].Content, got.Fragments[1].Content)
	}
}
