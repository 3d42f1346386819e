package markdown

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

// A heading embed shows what Obsidian shows: the heading's section with
// every subsection under it, up to the next heading of the same or a higher
// level. "A#B" names the heading B under A, as Obsidian's nested anchors do.
func TestEmbedPart_AHeadingShowsItsSubsections(t *testing.T) {
	note := []byte("---\ntags: [x]\n---\n# Alpha\n\nLead.\n\n## Setup\n\nInstall the frobnicator.\n\n### Linux\n\nRun apt install frob.\n\n#### Arm\n\nUse the arm64 package.\n\n### Mac\n\nRun brew install frob.\n\n## Other\n\nUnrelated text.\n\n### Setup\n\nThe other setup.\n")
	for _, c := range []struct {
		anchor    string
		want, not []string
	}{
		{"Setup", []string{"## Setup\n\nInstall the frobnicator.", "### Linux\n\nRun apt install frob.", "#### Arm\n\nUse the arm64 package.", "### Mac\n\nRun brew install frob."}, []string{"## Other", "Unrelated", "The other setup", "Lead."}},
		{"setup", []string{"Install the frobnicator.", "Run brew install frob."}, []string{"Unrelated"}},
		{"Linux", []string{"### Linux\n\nRun apt install frob.", "Use the arm64 package."}, []string{"### Mac", "Install the frobnicator."}},
		{"Mac", []string{"Run brew install frob."}, []string{"## Other", "Unrelated"}},
		{"Other#Setup", []string{"The other setup."}, []string{"Install the frobnicator.", "Unrelated text."}},
		{"Setup#Linux#Arm", []string{"Use the arm64 package."}, []string{"Run apt install frob."}},
		{"Alpha", []string{"Lead.", "Install the frobnicator.", "Run brew install frob.", "Unrelated text.", "The other setup."}, []string{"tags:"}},
	} {
		checkPart(t, note, c.anchor, c.want, c.not)
	}
	for _, anchor := range []string{"Nothing", "Mac#Linux", "Other#Arm"} {
		if got, ok := EmbedPart(note, "a.md", anchor); ok {
			t.Errorf("%s: found %q, want nothing", anchor, got)
		}
	}
}

// An anchor names a heading as Obsidian writes a link to it: without the
// punctuation and symbols a link cannot hold or leaves out ("What is the
// Obsidian Hub?" as `#What is the Obsidian Hub`, as the Obsidian Hub's own
// start page embeds it). A heading that is the anchor's text comes first.
func TestEmbedPart_AnAnchorWithoutTheHeadingsPunctuation(t *testing.T) {
	note := []byte("# Hub\n\n## C\n\nThe C section.\n\n## C++\n\nThe C++ section.\n\n## What is the Obsidian Hub?\n\nA community vault.\n\n## Part 1: Basics\n\nInstall Zotero.\n\n## D&D WOTC\n\nA theme.\n\n## Examples of Metadata 💡\n\nPhotographs.\n\n## An Introduction to [[dataview|Dataview]]\n\nQueries.\n")
	for anchor, want := range map[string]string{
		"What is the Obsidian Hub":             "A community vault.",
		"Part 1 Basics":                        "Install Zotero.",
		"D D WOTC":                             "A theme.",
		"Examples of Metadata":                 "Photographs.",
		"An Introduction to dataview Dataview": "Queries.",
		"C":                                    "The C section.",
		"c++":                                  "The C++ section.",
	} {
		got, ok := EmbedPart(note, "hub.md", anchor)
		if !ok || !strings.Contains(got, want) {
			t.Errorf("%q: got %q (found %v), want %q in it", anchor, got, ok, want)
		}
		if anchor == "C" && strings.Contains(got, "C++") {
			t.Errorf("%q: the exact heading C did not come first: %q", anchor, got)
		}
	}
	for _, anchor := range []string{"What is the Hub", "Part 2 Basics", "?"} {
		if got, ok := EmbedPart(note, "hub.md", anchor); ok {
			t.Errorf("%q: found %q, want nothing", anchor, got)
		}
	}
}

// A section that embeds a heading its own section lies under embeds itself.
func TestSelfEmbed_AnEnclosingHeadingIsACycle(t *testing.T) {
	for _, c := range []struct {
		target  string
		heading []string
		want    bool
	}{
		{"a", []string{"Alpha", "Setup"}, true},
		{"a#Setup", []string{"Alpha", "Setup"}, true},
		{"a#Alpha", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Setup", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Alpha#Setup", []string{"Alpha", "Setup", "Linux"}, true},
		{"a#Mac", []string{"Alpha", "Setup", "Linux"}, false},
		{"a#Linux", []string{"Alpha", "Setup"}, false},
		{"a#Part 1 Basics", []string{"Alpha", "Part 1: Basics"}, true},
	} {
		if got := SelfEmbed("a.md", c.target, "a.md", c.heading); got != c.want {
			t.Errorf("SelfEmbed(%q, %v) = %v, want %v", c.target, c.heading, got, c.want)
		}
	}
	if SelfEmbed("b.md", "b#Setup", "a.md", []string{"Alpha", "Setup"}) {
		t.Error("another note's heading of the same name is not a cycle")
	}
}

// A block reference to a list item shows the item with the items nested
// under it, as Obsidian does, whether the list is bulleted, numbered or of
// tasks; never the items beside it.
func TestEmbedPart_AListItemsBlockHoldsItsNestedItems(t *testing.T) {
	note := []byte("# Steps\n\n1. Clone the repo\n2. Build it ^build\n   - with make\n   - or with go build\n3. Ship it\n\n- [ ] review the diff ^review\n- [ ] merge\n\n- parent ^parent\n  - child one\n    - grandchild\n  - child two\n- sibling\n\nA paragraph\nof two lines. ^para\n")
	for _, c := range []struct {
		id        string
		want, not []string
	}{
		{"build", []string{"2. Build it\n   - with make\n   - or with go build"}, []string{"Clone", "Ship", "^build"}},
		{"review", []string{"- [ ] review the diff"}, []string{"merge", "^review"}},
		{"parent", []string{"- parent\n  - child one\n    - grandchild\n  - child two"}, []string{"sibling"}},
		{"para", []string{"A paragraph\nof two lines."}, []string{"sibling", "^para"}},
	} {
		checkPart(t, note, "^"+c.id, c.want, c.not)
	}
}

// checkPart fails t unless EmbedPart finds anchor in note, with every text
// of want in it and none of not.
func checkPart(t *testing.T, note []byte, anchor string, want, not []string) {
	t.Helper()
	got, ok := EmbedPart(note, "note.md", anchor)
	if !ok {
		t.Errorf("%s: not found", anchor)
		return
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: lacks %q:\n%s", anchor, w, got)
		}
	}
	for _, n := range not {
		if strings.Contains(got, n) {
			t.Errorf("%s: has %q:\n%s", anchor, n, got)
		}
	}
}

// Whatever a note holds and whatever an anchor says, EmbedPart returns lines
// of the note, and finds each heading of the note's first 20 sections that
// a link can spell (no '#', '|' or '^') by its own text. Notes over 64 KiB
// are skipped: each heading's lookup parses the note again.
func FuzzEmbedPart(f *testing.F) {
	f.Add([]byte("# A\n\n## B\n\ntext ^x\n\n### C\n\n- item ^y\n  - child\n"), "B")
	f.Add([]byte("---\naliases: [a]\n---\n# T?\n\n1. one ^n\n"), "T")
	f.Add([]byte("## x#y\n\n#\n\n## \n"), "x#y#")
	f.Add([]byte("# 💡\n\nemoji\n"), "^")
	f.Fuzz(func(t *testing.T, data []byte, anchor string) {
		if len(data) > 1<<16 {
			return
		}
		r, err := Parse("fuzz/note.md", data)
		if err != nil {
			return
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(string(data), "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		check := func(a string) (string, bool) {
			got, ok := EmbedPart(data, "fuzz/note.md", a)
			for _, l := range strings.Split(got, "\n") {
				if l = strings.TrimSpace(l); ok && l != "" && !lines[l] && !bytes.Contains(data, []byte(l)) {
					t.Fatalf("anchor %q: line %q is not the note's", a, l)
				}
			}
			return got, ok
		}
		check(anchor)
		check("^" + anchor)
		for i, u := range r.Units {
			if i == 20 {
				break
			}
			n := len(u.HeadingPath)
			if n == 0 {
				continue
			}
			h := u.HeadingPath[n-1]
			if strings.ContainsAny(h, "#|^") || strings.TrimSpace(h) == "" {
				continue // a link cannot name it so
			}
			if _, ok := check(h); !ok {
				t.Fatalf("the note's heading %q is not found", h)
			}
		}
	})
}

// `![[#Heading]]` and `![[#^id]]` name a part of the note that holds them.
func TestEmbedTarget_AnAnchorAloneIsTheNotesOwn(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"#Local", "notes/b.md#Local"},
		{"#^block", "notes/b.md#^block"},
		{"#Local|shown", "notes/b.md#Local|shown"},
		{"Other#Local", "Other#Local"},
		{"Other", "Other"},
		{"#", "#"},
		{" # ", " # "},
	} {
		if got := EmbedTarget(c.target, "notes/b.md"); got != c.want {
			t.Errorf("EmbedTarget(%q) = %q, want %q", c.target, got, c.want)
		}
	}
	// A path a link cannot spell would name another note: "C# notes/tips"
	// reads as the note C.
	if got := EmbedTarget("#Local", "C# notes/tips.md"); got != "#Local" {
		t.Errorf("EmbedTarget in C# notes/tips.md = %q, want it left as written", got)
	}
}

// A vault written with Markdown links embeds a note as a Markdown image of
// it (Obsidian does so with "Use [[Wikilinks]]" off): ![](Note.md),
// ![](<Note name.md>), ![](Note%20name.md#Heading "title"). Its
// destination resolves as MarkdownTargets says: a bare file name as a link
// name, ./ and ../ relative to the note's folder, another path as a vault
// path, then relative; images, URLs, absolute paths and paths out of the
// vault stay references, as does an embed in code.
func TestEmbeds_TheMarkdownForm(t *testing.T) {
	md := "![[Wiki note#Part]]\n" +
		"![](Refund%20policy.md#Deadlines \"the deadlines\")\n" +
		"![shown](<../shared/Glossary.md>) ![](sub/Note.md)\n" +
		"![](chart.png) ![](https://example.com/x.md) ![](/abs/x.md) ![](#Local)\n" +
		"`![](Code.md)`\n" +
		"![](../../../out.md)\n" +
		"![](Policy.MD#^block)\n"
	got := Embeds(md)
	type want struct {
		target   string
		links    []string
		markdown bool
	}
	wants := []want{
		{"Wiki note#Part", []string{"Wiki note#Part"}, false},
		{"Refund policy.md#Deadlines", []string{"Refund policy.md#Deadlines"}, true},
		{"../shared/Glossary.md", []string{"shared/Glossary.md"}, true},
		{"sub/Note.md", []string{"sub/Note.md", "billing/sub/Note.md"}, true},
		{"../../../out.md", nil, true},
		{"Policy.MD#^block", []string{"Policy.MD#^block"}, true},
	}
	if len(got) != len(wants) {
		t.Fatalf("Embeds found %+v, want %d embeds", got, len(wants))
	}
	for i, w := range wants {
		e := got[i]
		if e.Target != w.target || e.Markdown != w.markdown || md[e.Start] != '!' || (md[e.End-1] != ')' && md[e.End-1] != ']') {
			t.Errorf("embed %d = %+v (%q), want target %q, markdown %v", i, e, md[e.Start:e.End], w.target, w.markdown)
		}
		if l := e.Links("billing/FAQ.md"); !slices.Equal(l, w.links) {
			t.Errorf("embed %q links %q, want %q", e.Target, l, w.links)
		}
	}
	// A link is "path#heading": a path read relative to a folder named
	// "C#" cannot be one ("notes/C" with the heading "/sub/y.md"), so it is
	// no way to resolve; a vault path written in full still is.
	for dest, want := range map[string][]string{"./y.md": nil, "sub/y.md": {"sub/y.md"}, "y.md": {"y.md"}} {
		es := Embeds("![](" + dest + ")")
		if len(es) != 1 {
			t.Errorf("![](%s): %d embeds, want 1", dest, len(es))
			continue
		}
		if l := es[0].Links("notes/C#/basics.md"); !slices.Equal(l, want) {
			t.Errorf("embed %q from notes/C#/basics.md links %q, want %q", dest, l, want)
		}
	}
	// A section of a Markdown embed of a note says something (the note's
	// text); one of an image says nothing.
	if SaysNothing("## Timing\n\n![](Refund%20policy.md#Deadlines)\n") {
		t.Error("a section of a Markdown embed of a note says nothing")
	}
	if !SaysNothing("## Chart\n\n![](chart.png)\n") {
		t.Error("a section of an image says something")
	}
}

// Whatever a section holds, its embeds are found in order, each its own
// bytes ("![[…]]" or "![…](…)"), none overlapping, and every way a Markdown
// embed may resolve is a note's path inside the vault; a title's link text
// is never longer than what it reads.
func FuzzEmbeds(f *testing.F) {
	for _, s := range []string{"![[a#b|c]] ![](A%20b.md#^x) ![x](<c d.md> \"t\")", "![](../../x.md) ![](./y.md) ![](/z.md)",
		"`![](code.md)` %% ![](c.md) %% <!-- ![[h]] -->", "![](", "![[", "![]()", "![](.md)", "![](%zz.md)", "![](a/.hidden/b.md)",
		"# [[a|b]] [[c#d]] ![[e]]", "![](\x00.md)", "![](\xff.md)"} {
		f.Add(s, "notes/sub/n.md")
	}
	f.Fuzz(func(t *testing.T, md, from string) {
		last := 0
		for _, e := range Embeds(md) {
			if e.Start < last || e.End <= e.Start || e.End > len(md) || md[e.Start] != '!' || (md[e.End-1] != ']' && md[e.End-1] != ')') {
				t.Fatalf("embed %+v of %q: not its own bytes in order", e, md)
			}
			last = e.End
			if !e.Markdown {
				continue
			}
			for _, l := range e.Links(from) {
				file, _, _ := strings.Cut(l, "#")
				if clean, err := vault.CleanPath(file); err != nil || clean != file || !vault.IsMemoryPath(file) {
					t.Fatalf("embed %q from %q links %q: not a note's path in the vault (%v)", md[e.Start:e.End], from, l, err)
				}
			}
		}
		if got := LinkText(md); len(got) > len(md) {
			t.Fatalf("LinkText(%q) = %q: longer than the text", md, got)
		}
	})
}
