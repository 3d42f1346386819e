package markdown

import (
	"path"
	"strings"
	"unicode"

	"github.com/lore-memory/lore/internal/lazyre"
)

// What a reader of a note sees differs from its bytes: Obsidian hides
// %%comments%% and HTML comments, shows images (badges, screenshots) as
// pictures, and shows an embed (![[note#heading]]) as the text it names. A
// section whose only content is hidden or pictures says nothing (the
// Hub's plugin notes open with a preamble of four badge images between two
// comments); the exact stage delivers a note's first section that does.

var (
	imageLink = lazyre.New(`!\[[^\]\n]*\]\(([^)\n]*)\)`)
	embedLink = lazyre.New(`!\[\[([^\]\n]+)\]\]`)
)

// commentSpans returns the byte ranges of md's comments, in order: each
// %%…%% (to the next %% after its opening) and each <!--…--> (to the next
// -->), the earliest opening first, as a reader of the note does not see
// them. It is the regular expression (?s)%%.*?%%|<!--.*?--> found all
// over md, leftmost first (TestCommentSpans_AsTheRegexpFindsThem), without
// the regexp package's try at every byte: that cost a quarter of a warm
// activate on the Obsidian Hub, where every note's footer is a comment.
func commentSpans(md string) [][2]int { return scanComments(md, nil) }

// scanComments is commentSpans, calling searched (if not nil) before each
// search for a comment's closing: a test counts them.
func scanComments(md string, searched func()) [][2]int {
	var out [][2]int
	// A kind of comment whose closing was not found after one opening is
	// not closed after any later one: it is not searched for again, so a
	// text of unclosed openings is read once, not once an opening.
	var unclosed [2]bool // %%, <!--
	for i := 0; i < len(md); {
		j := strings.IndexAny(md[i:], "%<")
		if j < 0 {
			break
		}
		i += j
		kind, open, end := 0, "%%", "%%"
		if md[i] == '<' {
			kind, open, end = 1, "<!--", "-->"
		}
		if unclosed[kind] || !strings.HasPrefix(md[i:], open) {
			i++
			continue
		}
		if searched != nil {
			searched()
		}
		k := strings.Index(md[i+len(open):], end)
		if k < 0 {
			unclosed[kind] = true
			i++
			continue
		}
		e := i + len(open) + k + len(end)
		out = append(out, [2]int{i, e})
		i = e
	}
	return out
}

// withoutComments is md with each comment (commentSpans) replaced by with.
func withoutComments(md, with string) string {
	spans := commentSpans(md)
	if len(spans) == 0 {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	last := 0
	for _, sp := range spans {
		b.WriteString(md[last:sp[0]])
		b.WriteString(with)
		last = sp[1]
	}
	b.WriteString(md[last:])
	return b.String()
}

// IsAttachmentTarget reports whether a link or embed target names a file
// that is not a note (an image, a PDF, …): a target with an extension other
// than .md.
func IsAttachmentTarget(target string) bool {
	t := target
	if i := strings.IndexAny(t, "|#"); i >= 0 {
		t = t[:i]
	}
	ext := strings.ToLower(path.Ext(strings.TrimSpace(t)))
	return ext != "" && ext != ".md" && len(ext) <= 6 && !strings.ContainsAny(ext, " ")
}

// isHeadingLine reports whether line (one line, without its "\n") is an ATX
// heading's: up to three spaces, one to six '#', then its end, a space or a
// tab. It is the regular expression ^ {0,3}#{1,6}(?:[ \t].*)?$ on one line
// (TestIsHeadingLine_AsTheRegexp), without the regexp package's try at
// every byte, which was a fifth of parsing a note of the Obsidian Hub.
func isHeadingLine(line string) bool {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	if n := j - i; n < 1 || n > 6 {
		return false
	}
	return j == len(line) || line[j] == ' ' || line[j] == '\t'
}

// SaysNothing reports whether a section's Markdown holds no text a reader
// sees: only its heading, comments, images and embeds of attachments (an
// embed of a note counts: it shows that note's text).
func SaysNothing(md string) bool {
	if !strings.ContainsAny(md, "%<!") {
		// No comment, image or embed: the common case, without the
		// regexps' copies (they were a quarter of a cold index's
		// allocations). TestSaysNothing_AsTheRegexps holds both paths to
		// the answer of the regexps alone.
		return saysNothingLines(md)
	}
	return saysNothingRegexps(md)
}

// saysNothingLines is SaysNothing for text without comments, images or
// embeds (none there, or taken out): only heading lines may hold letters or
// digits.
func saysNothingLines(md string) bool {
	for line := range strings.Lines(md) {
		if strings.ContainsFunc(line, isWordRune) && !isHeadingLine(strings.TrimRight(line, "\n")) {
			return false
		}
	}
	return true
}

func saysNothingRegexps(md string) bool {
	// only heading lines may hold letters or digits
	return saysNothingLines(showPictures(withoutComments(md, " ")))
}

// showPictures is md with each image and embed as a reader sees its text:
// an image or embed of a note as "x" (it shows that note's text), one of
// anything else (a picture, a PDF) as a space.
func showPictures(md string) string {
	s := imageLink().ReplaceAllStringFunc(md, func(m string) string {
		if _, note := noteDestination(imageLink().FindStringSubmatch(m)[1]); note {
			return "x"
		}
		return " "
	})
	return embedLink().ReplaceAllStringFunc(s, func(m string) string {
		if IsAttachmentTarget(embedLink().FindStringSubmatch(m)[1]) {
			return " "
		}
		return "x"
	})
}

// ShowsVaultFile reports whether a section shows a file of the vault
// outside its comments: an embed of an attachment (![[diagram.png]]) or an
// image whose destination is no web address (![](img/map.png)). A section
// that says nothing (SaysNothing, the index's bare units) and shows no such
// file gives an agent nothing at all: only comments and pictures from the
// web. The Hub's plugin notes open with four badge images from a badge
// service between two comments; delivered, that preamble cost its URLs'
// tokens and a place. A vault's picture still gives its reference: it says
// where the picture is.
func ShowsVaultFile(md string) bool {
	if !strings.Contains(md, "![") {
		return false
	}
	s := withoutComments(md, " ")
	if embedLink().MatchString(s) {
		return true // of an attachment, or of a note, which is no bare section's
	}
	for _, m := range imageLink().FindAllStringSubmatch(s, -1) {
		if d, ok := destinationOf(m[1]); ok && !strings.Contains(d, "://") && !strings.HasPrefix(strings.ToLower(d), "data:") {
			return true
		}
	}
	return false
}

// LinkListShare is the share of a section's lines of text that are list
// items holding a link ("- [[calendar|Calendar]]: …", "1. [Guide](…)"):
// 1 for a category's or a roundup's list of links, 0 for prose. Headings,
// blank lines and fenced code are not lines of text, and comments (%%…%%,
// <!-- -->) are read as the index reads them (ReadableText): gone. The
// Hub's author pages keep their template's unused lines in HTML comments
// below the list of what the author made; Obsidian does not show them, and
// they do not make the list less of a list (docs/decisions/link-bonus.md).
func LinkListShare(md string) float64 {
	if strings.Contains(md, "%%") || strings.Contains(md, "<!--") {
		md = withoutComments(md, "")
	}
	var text, items int
	fenced := false
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || t == "" || isHeadingLine(t) {
			continue
		}
		text++
		if listMarker(t) && (strings.Contains(t, "[[") || strings.Contains(t, "](")) {
			items++
		}
	}
	if text == 0 {
		return 0
	}
	return float64(items) / float64(text)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

var (
	linkDestination = lazyre.New(`\]\((?:<[^>\n]*>|[^)\s]*)(?:\s+"[^"\n]*")?\)`)
	htmlTag         = lazyre.New(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>`)
)

// ReadableText is the text of a section as a reader reads it, for the
// index: comments (%%…%%, <!-- -->) are gone, and so are link and image
// destinations ([text](url) keeps "text") and HTML tags. A URL's words
// are not the note's words: every Obsidian Hub note ends with three links
// whose URLs spell the note's own path, so a query matched every note's
// footer by its file name.
func ReadableText(md string) string {
	if !strings.Contains(md, "%%") && !strings.Contains(md, "](") && !strings.Contains(md, "<") {
		return md // nothing to take out: no comment, link destination or tag
	}
	s := withoutComments(md, " ")
	s = linkDestination().ReplaceAllString(s, "]")
	return htmlTag().ReplaceAllString(s, " ")
}
