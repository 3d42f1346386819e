package markdown

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestSaysNothing(t *testing.T) {
	for md, want := range map[string]bool{
		"%% ----- Badges ----- %%\n\n![a](https://img.shields.io/x)   \n![b](https://img.shields.io/y)\n\n%% end %%": true,
		"# Heading\n\n<!-- a comment -->\n![[diagram.png]]\n":                                                        true,
		"# Heading\n\nOne word.\n":                   false,
		"### Refunds\n\n![[Refund policy#^block]]\n": false, // an embed of a note shows its text
		"%% multi\nline %% 42":                       false,
		"":                                           true,
	} {
		if got := SaysNothing(md); got != want {
			t.Errorf("SaysNothing(%q) = %v, want %v", md, got, want)
		}
	}
	for target, want := range map[string]bool{"diagram.png": true, "Refund policy#^x": false, "note.md": false, "a.pdf|200": true, "v1.2 notes": false} {
		if got := IsAttachmentTarget(target); got != want {
			t.Errorf("IsAttachmentTarget(%q) = %v, want %v", target, got, want)
		}
	}
}

// A section gives nothing when it says nothing and shows no file of the
// vault: badges from the web between comments do; a picture of the vault
// (embedded or linked) is a reference worth giving.
func TestShowsVaultFile_ASectionOfOnlyWebPicturesGivesNothing(t *testing.T) {
	for md, want := range map[string]bool{
		"%% ----- Badges ----- %%\n\n![a](https://img.shields.io/x)   \n![b](<https://img.shields.io/y> \"title\")\n\n%% end %%": true,
		"# Heading\n\n<!-- a comment -->\n":      true,
		"":                                       true,
		"![inline](data:image/png;base64,iVBOR)": true,
		"# Heading\n\n![[diagram.png]]\n":        false,
		"## Map\n\n![the map](img/map.png)\n":    false,
		"%% ![[hidden.png]] %%\n![a](https://img.shields.io/x)":                 true, // the embed is in a comment
		"![a](https://img.shields.io/x)\n![local](<my pics/arch.png> \"Arch\")": false,
		"# Heading\n\nOne word.\n":                                              false,
		"### Refunds\n\n![[Refund policy#^block]]\n":                            false,
	} {
		if got := SaysNothing(md) && !ShowsVaultFile(md); got != want {
			t.Errorf("%q gives nothing: %v, want %v", md, got, want)
		}
	}
}

func TestReadableText(t *testing.T) {
	for in, want := range map[string]string{
		"[Edit In GitHub](https://github.dev/hub/blob/main/Dropbox%20Backups.md \"edit\") | [Copy](<a b.md>)": "[Edit In GitHub] | [Copy]",
		"%% Add a description below this line %%\nReal text.":                                                 " \nReal text.",
		"<span class=\"git-footer\">footer</span> ![badge](https://img.shields.io/x)":                         " footer  ![badge]",
		"plain (with parentheses) and a path/to/file.md":                                                      "plain (with parentheses) and a path/to/file.md",
		"[[wikilink|shown]] stays": "[[wikilink|shown]] stays",
	} {
		if got := ReadableText(in); got != want {
			t.Errorf("ReadableText(%q) = %q, want %q", in, got, want)
		}
	}
}

// headingLineRE is what isHeadingLine answers, as the regular expression
// the lines were matched with before: the tests' reference.
var headingLineRE = regexp.MustCompile(`(?m)^ {0,3}#{1,6}(?:[ \t].*)?$`)

// saysNothingReference is SaysNothing as it was written with regular
// expressions alone (comments and heading lines among them): the reference
// both of its paths are held to.
func saysNothingReference(md string) bool {
	s := showPictures(hiddenCommentRE.ReplaceAllString(md, " ")) // images and embeds: regexps already
	s = headingLineRE.ReplaceAllString(s, " ")
	return !strings.ContainsFunc(s, isWordRune)
}

// SaysNothing answers as the regexps alone did, on headings of every level
// and shape, CRLF lines, indented and setext-looking lines, code, Chinese
// and blank text, with and without comments, images and embeds (the fast
// path takes text without %, < or !).
func TestSaysNothing_AsTheRegexps(t *testing.T) {
	parts := []string{"# Title", "## 标题", "   ### three spaces", "    # four spaces is code", "#no space", "####### seven",
		"#", "# ", "text", "中文", "42", "- [ ] task", "```", "---", "***", "", "\t", "Title\n=====", "#\ttab heading", "x # y",
		"%% note %%", "<!-- c -->", "![](https://x/b.svg)", "![[diagram.png]]", "![[Other note]]", "# H ![[Other note]]", "#\r", " #"}
	for _, nl := range []string{"\n", "\r\n"} {
		for _, a := range parts {
			for _, b := range parts {
				for _, c := range []string{"", "# H"} {
					md := c + nl + a + nl + b + nl
					if got, want := SaysNothing(md), saysNothingReference(md); got != want {
						t.Errorf("%q: SaysNothing says %v, the regexps %v", md, got, want)
					}
				}
			}
		}
	}
}

// TestIsHeadingLine_AsTheRegexp: isHeadingLine answers as the regular
// expression does on one line, for every line of up to seven characters
// made of spaces, tabs, '#', a letter and a carriage return.
func TestIsHeadingLine_AsTheRegexp(t *testing.T) {
	alphabet := []string{" ", "\t", "#", "a", "\r", "标"}
	var lines func(prefix string, n int)
	lines = func(prefix string, n int) {
		if got, want := isHeadingLine(prefix), headingLineRE.MatchString(prefix); got != want {
			t.Fatalf("isHeadingLine(%q) = %v, the regexp %v", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			lines(prefix+c, n-1)
		}
	}
	lines("", 7)
}

func TestLinkListShare(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     float64
	}{
		{"a category's list", "## Plugins in this category\n\n%% Add a bullet here and link to the plugins you'd like to categorize! %%\n\n- [[calendar|Calendar]]: Calendar view of your daily notes\n- [[daf-yomi|Daf Yomi]]: Fill in Daf Yomi pages\n", 1},
		{"a roundup's numbered list of Markdown links", "### New\n\n1. [Dropbox Backups](https://example.org) can now be automated.\n2) [Kanban](https://example.org) moves cards.\n", 1},
		{"prose with a link", "# Guide\n\nKeep your vault safe: see [[Backups]] for how.\n\nBackups run nightly.\n", 0},
		{"half of its lines", "# Mixed\n\nSome plugins:\n- [[a|A]]\n- plain item without a link\n- [[b|B]]\n", 0.5},
		{"comments, code and headings are not text", "# T\n\n%%\na comment\nover lines\n%%\n```\n- [[not|an item]]\nplain\n```\n### Sub\n- [[x|X]]\n", 1},
		{"an HTML comment is not text", "## Plugins\n\n- [[bulk-exporter|Bulk Exporter]]: export notes\n\n<!--\n## Themes\n\nWrite about your themes here.\n-->\n", 1},
		{"a comment before an item on its line", "%% keep %% - [[x|X]]\nprose\n", 0.5},
		{"a tag is text, not a heading", "#seedling\n- [[x|X]]\n", 0.5},
		{"nothing but a heading", "# Empty\n", 0},
	} {
		if got := LinkListShare(tc.md); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: LinkListShare = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// hiddenCommentRE is what commentSpans finds, as a regular expression: the
// reference it is held to.
var hiddenCommentRE = regexp.MustCompile(`(?s)%%.*?%%|<!--.*?-->`)

// TestCommentSpans_AsTheRegexpFindsThem: commentSpans finds what the
// regular expression finds over the whole text, leftmost first, and
// withoutComments replaces as ReplaceAllString does: on texts made of the
// comments' own characters (so openings, closings and their overlaps meet
// often), newlines, invalid UTF-8 and Chinese, and on the shapes named.
func TestCommentSpans_AsTheRegexpFindsThem(t *testing.T) {
	texts := []string{"", "%", "%%", "%%%", "%%%%", "%%a%%", "%% a\nb %% c %% d", "<!-->", "<!---->", "<!-- x -->",
		"<!--%%-->%%", "%%<!--%%-->", "a <!-- b", "x %% y", "%%\n%%", "<<!--!-->>", "%\xff%%\xff%%", "注释%%隐藏%%正文",
		"# Title\n%% Hub footer: Please don't edit anything below this line %%\n# This note in GitHub\n"}
	texts = append(texts, randomTexts(7, 20000, 24, "%", "%", "<", "!", "-", "-", ">", "a", "\n", "\xff", "注")...)
	for _, md := range texts {
		var want [][2]int
		for _, m := range hiddenCommentRE.FindAllStringIndex(md, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if got := commentSpans(md); !slices.Equal(got, want) {
			t.Fatalf("commentSpans(%q) = %v, the regexp finds %v", md, got, want)
		}
		for _, with := range []string{" ", ""} {
			if got, want := withoutComments(md, with), hiddenCommentRE.ReplaceAllString(md, with); got != want {
				t.Fatalf("withoutComments(%q, %q) = %q, the regexp gives %q", md, with, got, want)
			}
		}
	}
}

// TestCommentSpans_UnclosedOpeningsCostOneSearch: a text of openings that
// never close ("<!--" again and again, as a hostile or broken note may be)
// is read once, not once an opening: a closing not found after one opening
// is not after any later one. The first scanner searched the rest of the
// text again at each opening, quadratic in the text: 4 MB of "<!--" took a
// million searches of up to 4 MB each. Every search either finds a comment
// or is the one failed search of its kind.
func TestCommentSpans_UnclosedOpeningsCostOneSearch(t *testing.T) {
	for _, unit := range []string{"<!--", "%%x", "<!-- %%x ", "%%<!--"} {
		md := strings.Repeat(unit, (4<<20)/len(unit))
		searches := 0
		spans := scanComments(md, func() { searches++ })
		if searches > len(spans)+2 {
			t.Errorf("%q repeated over 4 MB: %d searches for a closing for %d comments, want at most one more for each kind", unit, searches, len(spans))
		}
	}
}

// randomTexts returns n texts of up to max pieces each, drawn from pieces
// by a generator seeded with seed (the same texts every run).
func randomTexts(seed uint64, n, max int, pieces ...string) []string {
	rng := rand.New(rand.NewPCG(62, seed))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rng.IntN(max) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}
