package markdown

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/lore-memory/lore/vault"
)

func mustParse(t *testing.T, p, text string) *vault.Resource {
	t.Helper()
	r, err := Parse(p, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", p, err)
	}
	return r
}

func unitKeys(r *vault.Resource) []string {
	var out []string
	for _, u := range r.Units {
		out = append(out, u.Key)
	}
	return out
}

func TestParse_FrontmatterTitleAndHash(t *testing.T) {
	text := "---\nid: mem_123\ntitle: Retrieval\ndescription: How we search\ntags: a, b\nstatus: superseded\nsupersedes: [mem_1]\nunknown_key: kept\n---\n# Heading\n\nBody.\n"
	r := mustParse(t, "arch/retrieval.md", text)
	if r.ID != "mem_123" || r.IDDerived {
		t.Errorf("id = %q derived=%v, want mem_123", r.ID, r.IDDerived)
	}
	if r.Title != "Retrieval" || r.Description != "How we search" {
		t.Errorf("title, description = %q, %q", r.Title, r.Description)
	}
	if !reflect.DeepEqual([]string(r.Front.Tags), []string{"a", "b"}) {
		t.Errorf("tags = %q", r.Front.Tags)
	}
	if r.Status() != "superseded" || r.Problem != "" {
		t.Errorf("status = %q, problem = %q", r.Status(), r.Problem)
	}
	if got, want := r.ContentHash, vault.HashBytes([]byte(text)); got != want {
		t.Errorf("content hash = %s, want %s", got, want)
	}
	if len(r.Links) != 1 || r.Links[0].Kind != "supersedes" || r.Links[0].Target != "mem_1" {
		t.Errorf("links = %+v", r.Links)
	}
}

// A heading path reads as its headings show, each as LinkText reads it; a
// path with no link is returned as it is (no copy), and a heading that is
// only an embed keeps its markup.
func TestShownHeadings(t *testing.T) {
	plain := []string{"Setup", "Install"}
	if got := ShownHeadings(plain); &got[0] != &plain[0] {
		t.Errorf("a path with no link was copied")
	}
	hp := []string{"Guide", "Lists in [[YAML]]", "![[diagram.png]]", "[[Sync#Retry|retries]] and [[Setup#Install]]"}
	want := []string{"Guide", "Lists in YAML", "![[diagram.png]]", "retries and Setup > Install"}
	if got := ShownHeadings(hp); !slices.Equal(got, want) {
		t.Errorf("ShownHeadings(%q) = %q, want %q", hp, got, want)
	}
	if hp[1] != "Lists in [[YAML]]" {
		t.Errorf("ShownHeadings changed its argument: %q", hp)
	}
}

// A title taken from an H1 reads its links as Obsidian shows them, not
// their markup: the Obsidian Hub titled nine notes so ("An Introduction to
// [[dataview|Dataview]]"). The heading itself is kept as written.
func TestParse_ATitleFromAnH1ReadsItsLinksAsShown(t *testing.T) {
	for h1, want := range map[string]string{
		"An Introduction to [[dataview|Dataview]]":        "An Introduction to Dataview",
		"[[Breadcrumbs]] Quickstart Guide":                "Breadcrumbs Quickstart Guide",
		"See [[Setup#Install]] first":                     "See Setup > Install first",
		"Back to [[#Top]]":                                "Back to Top",
		"![[logo.png]] Home":                              "Home",
		"[[a|]] empty alias":                              "a empty alias",
		"Plain *emphasis* and `code`":                     "Plain emphasis and code",
		"[[Obsidian Publish|Publish]] sites, [[x]] [[y]]": "Publish sites, x y",
	} {
		r := mustParse(t, "notes/file-name.md", "# "+h1+"\n\ntext\n")
		if r.Title != want {
			t.Errorf("title of # %s = %q, want %q", h1, r.Title, want)
		}
		if hp := r.Units[0].HeadingPath; len(hp) != 1 || hp[0] != strings.TrimSpace(strings.NewReplacer("*", "", "`", "").Replace(h1)) {
			t.Errorf("heading of # %s = %q, want it as written", h1, hp)
		}
	}
	// An H1 that is only an embed shows no text: the next H1, else the file
	// name, titles the note.
	if r := mustParse(t, "notes/file-name.md", "# ![[banner.png]]\n\ntext\n"); r.Title != "file-name" {
		t.Errorf("title of an embed-only H1 = %q, want the file name", r.Title)
	}
}

func TestParse_TitleFallsBackToH1ThenFileName(t *testing.T) {
	if r := mustParse(t, "a/note.md", "intro\n\n# The Title\n\ntext\n"); r.Title != "The Title" {
		t.Errorf("title = %q, want the H1", r.Title)
	}
	if r := mustParse(t, "a/note.md", "just text\n"); r.Title != "note" {
		t.Errorf("title = %q, want the file name", r.Title)
	}
	// Only the note's first heading titles it, when it is of level 1: an
	// H1 below sections of level 2 (the Obsidian Hub's footer, "# This note
	// in GitHub", in a note that starts with "## Good first issue") is a
	// part of the note, not its title. An empty H1 shows nothing and is no
	// heading.
	for _, md := range []string{
		"intro\n\n## Good first issue\n\ntext\n\n# This note in GitHub\n\nfooter\n",
		"# \n\n## Author of\n\n- a plugin\n\n# This note in GitHub\n\nfooter\n",
		"#### Setting your index\n\ntext\n\n# This note in GitHub\n",
	} {
		if r := mustParse(t, "a/note.md", md); r.Title != "note" {
			t.Errorf("title of %q = %q, want the file name", md, r.Title)
		}
	}
	if r := mustParse(t, "a/note.md", "# ![[banner.png]]\n\n# The Title\n\n## Part\n"); r.Title != "The Title" {
		t.Errorf("title = %q, want the first H1 that shows text", r.Title)
	}
}

func TestParse_FileWithoutIDGetsStableDerivedID(t *testing.T) {
	a := mustParse(t, "notes/x.md", "# X\n\ntext\n")
	b := mustParse(t, "notes/x.md", "# X\n\nother text\n")
	if !a.IDDerived || a.ID != b.ID || !strings.HasPrefix(a.ID, "path_") {
		t.Errorf("derived ids %q, %q: want equal path_ ids", a.ID, b.ID)
	}
	if c := mustParse(t, "notes/y.md", "# X\n\ntext\n"); c.ID == a.ID {
		t.Errorf("different paths got the same id %q", c.ID)
	}
}

func TestParse_HeadingPathsAndUnitKeys(t *testing.T) {
	text := "---\nid: mem_123\n---\nPreamble text.\n\n# MCP\n\nIntro.\n\n## 并发控制\n\n多个 Agent 同时写入。\n\n## Usage\n\nOne.\n\n# Other\n\n## Usage\n\nTwo.\n"
	r := mustParse(t, "a.md", text)
	want := []string{"mem_123/_/0/0", "mem_123/mcp/0/0", "mem_123/并发控制/0/0", "mem_123/usage/0/0", "mem_123/usage/1/0"}
	if got := unitKeys(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("unit keys = %q\nwant %q", got, want)
	}
	if got := r.Units[2].HeadingPath; !reflect.DeepEqual(got, []string{"MCP", "并发控制"}) {
		t.Errorf("heading path = %q", got)
	}
	if got := r.Units[4].HeadingPath; !reflect.DeepEqual(got, []string{"Other", "Usage"}) {
		t.Errorf("heading path = %q", got)
	}
	for _, u := range r.Units {
		if text[u.Start:u.End] != u.Content || vault.HashBytes([]byte(u.Content)) != u.ContentHash {
			t.Errorf("unit %s: content is not the byte range it claims", u.Key)
		}
	}
	if !strings.HasPrefix(r.Units[2].Content, "## 并发控制") {
		t.Errorf("unit content should start with its heading line: %q", r.Units[2].Content)
	}
}

func TestParse_EditOneSectionKeepsOtherKeysAndHashes(t *testing.T) {
	before := mustParse(t, "a.md", "# A\n\none\n\n## B\n\ntwo\n\n## C\n\nthree\n")
	after := mustParse(t, "a.md", "# A\n\none\n\n## B\n\ntwo, edited at length\n\n## New\n\nadded\n\n## C\n\nthree\n")
	hashes := map[string]string{}
	for _, u := range after.Units {
		hashes[u.Key] = u.ContentHash
	}
	for _, u := range before.Units {
		got, ok := hashes[u.Key]
		switch {
		case !ok:
			t.Errorf("unit %s disappeared after editing another section", u.Key)
		case strings.Contains(u.Key, "/b/"):
			if got == u.ContentHash {
				t.Errorf("edited unit %s kept its hash", u.Key)
			}
		case got != u.ContentHash:
			t.Errorf("unit %s changed hash although its section did not change", u.Key)
		}
	}
}

func TestParse_HeadingsInCodeAndSetext(t *testing.T) {
	text := "Title\n=====\n\n```\n# not a heading\n```\n\nSub\n---\n\ntext\n"
	r := mustParse(t, "a.md", text)
	var paths [][]string
	for _, u := range r.Units {
		paths = append(paths, u.HeadingPath)
	}
	want := [][]string{{"Title"}, {"Title", "Sub"}}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("heading paths = %q, want %q", paths, want)
	}
	if r.Title != "Title" {
		t.Errorf("title = %q", r.Title)
	}
}

func TestParse_Links(t *testing.T) {
	text := "# L\n\nSee [[Plain]], [[Target|alias]], [[Page#Section]] and [[Both#H|a]].\n" +
		"A [relative](../other/note.md#part) link, a [url](https://x.org/a.md), an [anchor](#top).\n" +
		"A [bare name](Terms%20of%20use.md) anywhere, a [vault path](docs/guide.md), an ![embed](<Refund policy.md#Deadlines>), an ![image](chart.png).\n" +
		"`[[in code]]`\n\n```\n[[in fence]]\n```\n"
	r := mustParse(t, "dir/a.md", text)
	var got []string
	for _, l := range r.Links {
		got = append(got, l.Kind+":"+l.Target+"#"+l.Heading)
	}
	// A Markdown destination is every link it may name (vault.MarkdownTargets):
	// a bare file name as written, a path as a vault path, then relative.
	want := []string{"wikilink:Plain#", "wikilink:Target#", "wikilink:Page#Section", "wikilink:Both#H",
		"markdown:other/note.md#part", "markdown:Terms of use.md#", "markdown:docs/guide.md#", "markdown_alt:dir/docs/guide.md#", "markdown:Refund policy.md#Deadlines"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links = %q\nwant %q", got, want)
	}
}

func TestParse_InvalidFrontmatterIsStillText(t *testing.T) {
	for name, text := range map[string]string{
		"bad yaml":     "---\ntitle: [unclosed\n---\n# Heading\n\nsearchable words\n",
		"unclosed":     "---\ntitle: x\n\nsearchable words\n",
		"not a map":    "---\n- a\n- b\n---\nsearchable words\n",
		"wrong type":   "---\ntitle: {a: 1}\nid: mem_ok\n---\nsearchable words\n",
		"nulls":        "---\nid: null\ntitle: ~\ntags: [null]\n---\nsearchable words\n",
		"bad id chars": "---\nid: a/b\n---\nsearchable words\n",
	} {
		t.Run(name, func(t *testing.T) {
			r := mustParse(t, "n.md", text)
			if len(r.Units) == 0 || !strings.Contains(r.Units[len(r.Units)-1].Content, "searchable words") {
				t.Errorf("units %+v do not hold the text", r.Units)
			}
			if name != "nulls" && r.Problem == "" {
				t.Errorf("no problem recorded")
			}
		})
	}
	if r := mustParse(t, "n.md", "---\ntitle: {a: 1}\nid: mem_ok\n---\nx\n"); r.ID != "mem_ok" {
		t.Errorf("a type error in one key lost the other keys: id = %q", r.ID)
	}
}

func TestParse_RefusesWhatIsNotText(t *testing.T) {
	for name, data := range map[string][]byte{
		"nul byte":     []byte("# a\x00b\n"),
		"invalid utf8": []byte("# caf\xe9\n"),
		"too large":    []byte(strings.Repeat("a", vault.MaxFileBytes+1)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("bad.md", data)
			if vault.ErrorCode(err) != vault.CodeInvalid || !strings.Contains(err.Error(), "bad.md") {
				t.Errorf("err = %v, want invalid_input naming the file", err)
			}
		})
	}
}

func TestParse_EmptyAndHugeStructures(t *testing.T) {
	if r := mustParse(t, "e.md", ""); len(r.Units) != 0 || r.Title != "e" {
		t.Errorf("empty file: units %d title %q", len(r.Units), r.Title)
	}
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		sb.WriteString("## H\n\nx\n\n")
	}
	r := mustParse(t, "h.md", sb.String())
	if len(r.Units) != 10000 || r.Units[9999].Key != r.ID+"/h/9999/0" {
		t.Errorf("10,000 headings: %d units, last %q", len(r.Units), r.Units[len(r.Units)-1].Key)
	}
}

func TestParse_LongSectionIsChunkedWithinLimit(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# Long\n\n")
	for i := 0; i < 200; i++ {
		sb.WriteString("This paragraph talks about retrieval budgets and chunking of sections. ")
		if i%5 == 4 {
			sb.WriteString("\n\n")
		}
	}
	sb.WriteString(strings.Repeat("检索", 2000)) // one long run with no break at all
	text := sb.String()
	r := mustParse(t, "l.md", text)
	if len(r.Units) < 3 {
		t.Fatalf("got %d units, want a long section split into chunks", len(r.Units))
	}
	for i, u := range r.Units {
		if u.Tokens > vault.MaxUnitTokens {
			t.Errorf("chunk %s has %d tokens, over %d", u.Key, u.Tokens, vault.MaxUnitTokens)
		}
		if u.Chunk != i || text[u.Start:u.End] != u.Content {
			t.Errorf("chunk %d: key %s, content not its byte range", i, u.Key)
		}
		if i > 0 && u.Start < r.Units[i-1].End {
			t.Errorf("chunks %d and %d overlap", i-1, i)
		}
	}
}

func TestParse_PathologicalSectionsFinish(t *testing.T) {
	for name, body := range map[string]string{
		"one run of Han":   strings.Repeat("检", 1<<19),
		"one long word":    strings.Repeat("a", 1<<20),
		"many tiny words":  strings.Repeat("a ", 1<<19),
		"many blank lines": strings.Repeat("x\n\n", 1<<18),
		"many short lines": strings.Repeat("x\n", 1<<19),
	} {
		t.Run(name, func(t *testing.T) {
			r := mustParse(t, "p.md", "# P\n\n"+body)
			if len(r.Units) < 2 {
				t.Errorf("got %d units, want chunks", len(r.Units))
			}
		})
	}
}

// TestParse_RealVaultShapesKeepTheirHeadings pins down the parser panic that
// 28 notes of the Obsidian Hub and an agent's Draft (a heading, ~180 list
// lines, then a paragraph) hit: the bounded copy the parser reads split
// every line past a long run one byte in, "- item" became a setext
// underline, and sections came out of order. Each shape must parse with its
// units in bounds and in order, and with the headings the note has: the
// headings goldmark finds in the note itself, unbounded.
func TestParse_RealVaultShapesKeepTheirHeadings(t *testing.T) {
	for name, s := range realVaultShapes {
		t.Run(name, func(t *testing.T) {
			data := []byte(s)
			r, err := Parse("notes/shape.md", data)
			if err != nil {
				t.Fatal(err)
			}
			checkUnits(t, name, data, r)
			bodyStart := 0
			if _, start, found, _ := splitFrontmatter(data); found {
				bodyStart = start
			}
			doc := markdown.Parser().Parse(text.NewReader(data[bodyStart:]))
			var want []string
			for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
				if h, ok := n.(*ast.Heading); ok {
					want = append(want, strings.TrimSpace(inlineText(h, data[bodyStart:])))
				}
			}
			var got []string
			for _, sec := range parseBody(data, bodyStart).sections[1:] {
				got = append(got, sec.headingPath[len(sec.headingPath)-1])
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("headings %q, want %q", got, want)
			}
		})
	}
}

func TestKeyResourceAndSection(t *testing.T) {
	long := strings.Repeat("Retrieval budgets and chunking of sections.\n\n", 200)
	r := mustParse(t, "notes/l.md", "---\nid: mem_l\n---\n# Long\n\n"+long+"## Short\n\nOne line.\n")
	if len(r.Units) < 3 {
		t.Fatalf("got %d units, want a long section in chunks and a short one", len(r.Units))
	}
	last := r.Units[len(r.Units)-1]
	for _, u := range r.Units {
		if vault.KeyResource(u.Key) != "mem_l" {
			t.Errorf("KeyResource(%s) = %q, want mem_l", u.Key, vault.KeyResource(u.Key))
		}
		sameSection := u.Section == r.Units[0].Section && u.Slug == r.Units[0].Slug
		if got := vault.KeySection(u.Key) == vault.KeySection(r.Units[0].Key); got != sameSection {
			t.Errorf("KeySection(%s) = %q beside %q: same section %v, want %v", u.Key, vault.KeySection(u.Key), vault.KeySection(r.Units[0].Key), got, sameSection)
		}
	}
	if vault.KeySection(last.Key) == vault.KeySection(r.Units[0].Key) || last.HeadingPath[len(last.HeadingPath)-1] != "Short" {
		t.Errorf("the short section %s shares the long one's key", last.Key)
	}
}

// The names a parsed note answers to come from what Parse read: its
// frontmatter id, its path, its file name, its frontmatter title and its
// aliases (vault's TestLinkKeysAndNames holds the names of a Resource made
// by hand).
func TestParse_NamesFromFrontmatterTitleAndAliases(t *testing.T) {
	r := mustParse(t, "decisions/adr-012-redlock.md", "---\nid: mem_adr12\ntitle: ADR 012 Redlock\naliases: [Redlock, 分布式锁]\n---\n# x\n")
	var got []string
	for _, n := range r.Names() {
		got = append(got, fmt.Sprintf("%s:%d", n.Key, n.Kind))
	}
	if strings.Join(got, ",") != "mem_adr12:0,decisions/adr-012-redlock:1,adr-012-redlock:2,adr 012 redlock:3,redlock:4,分布式锁:4" {
		t.Fatalf("names: %v", got)
	}
}

// TestWikilinkIndexes_AsTheRegexpFindsThem: wikilinkIndexes finds every
// link and its parts where the regular expression does, leftmost first, on
// texts made of the links' own characters ('!', brackets, '#', '|', a
// newline), so openings, failed links and their overlaps meet often.
func TestWikilinkIndexes_AsTheRegexpFindsThem(t *testing.T) {
	texts := []string{"", "[[a]]", "![[a]]", "!![[a]]", "![[a", "[[[a]]", "[[a]]]]", "![![[a]]", "[[a#b|c]]", "[[a|b|c]]",
		"x ![[a#b]] y [[c]]", "[[a\nb]]", "![[]]", "[[#h]]", "[[a]][[b]]", "![[a]]![[b]]", "!"}
	texts = append(texts, randomTexts(11, 30000, 20, "[", "[", "]", "]", "!", "#", "|", "a", "\n", "注")...)
	for _, s := range texts {
		want := wikilink().FindAllSubmatchIndex([]byte(s), -1)
		got := wikilinkIndexes([]byte(s))
		if len(got) != len(want) {
			t.Fatalf("%q: %v, the regexp finds %v", s, got, want)
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%q: %v, the regexp finds %v", s, got, want)
			}
		}
	}
}
