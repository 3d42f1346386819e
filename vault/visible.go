package vault

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
	hiddenComment = lazyre.New(`(?s)%%.*?%%|<!--.*?-->`)
	imageLink     = lazyre.New(`!\[[^\]\n]*\]\(([^)\n]*)\)`)
	embedLink     = lazyre.New(`!\[\[([^\]\n]+)\]\]`)
	headingLine   = lazyre.New(`(?m)^ {0,3}#{1,6}(?:[ \t].*)?$`)
)

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

// SaysNothing reports whether a section's Markdown holds no text a reader
// sees: only its heading, comments, images and embeds of attachments (an
// embed of a note counts: it shows that note's text).
func SaysNothing(md string) bool {
	if !strings.ContainsAny(md, "%<!") {
		// No comment, image or embed: the common case, without the
		// regexps' copies (they were a quarter of a cold index's
		// allocations). TestSaysNothing_LinesAsTheRegexps holds the two
		// paths to one answer.
		return saysNothingLines(md)
	}
	return saysNothingRegexps(md)
}

// saysNothingLines is SaysNothing for text without %, < or !: only heading
// lines may hold letters or digits.
func saysNothingLines(md string) bool {
	for line := range strings.Lines(md) {
		if strings.ContainsFunc(line, isWordRune) && !headingLine().MatchString(strings.TrimRight(line, "\n")) {
			return false
		}
	}
	return true
}

func saysNothingRegexps(md string) bool {
	s := hiddenComment().ReplaceAllString(md, " ")
	s = imageLink().ReplaceAllStringFunc(s, func(m string) string {
		if _, note := noteDestination(imageLink().FindStringSubmatch(m)[1]); note {
			return "x"
		}
		return " "
	})
	s = embedLink().ReplaceAllStringFunc(s, func(m string) string {
		if IsAttachmentTarget(embedLink().FindStringSubmatch(m)[1]) {
			return " "
		}
		return "x"
	})
	s = headingLine().ReplaceAllString(s, " ")
	return !strings.ContainsFunc(s, isWordRune)
}

// GivesNothing reports whether a section gives an agent nothing at all: it
// says nothing (SaysNothing) and shows no file of the vault either, only
// comments and pictures from the web. The Hub's plugin notes open with
// four badge images from a badge service between two comments; delivered,
// that preamble cost its URLs' tokens and a place. A section that shows an
// attachment of the vault (![[diagram.png]], ![](img/map.png)) still
// gives its reference: it says where the picture is.
func GivesNothing(md string) bool {
	if !SaysNothing(md) {
		return false
	}
	if !strings.Contains(md, "![") {
		return true // a heading and comments
	}
	s := hiddenComment().ReplaceAllString(md, " ")
	if embedLink().MatchString(s) {
		return false // an embed of an attachment: a note's would say something
	}
	for _, m := range imageLink().FindAllStringSubmatch(s, -1) {
		if !isWebAddress(m[1]) {
			return false
		}
	}
	return true
}

// isWebAddress reports whether an image's destination is outside the vault:
// a URL with a scheme (https://…, data:…).
func isWebAddress(dest string) bool {
	d := strings.TrimSpace(dest)
	if rest, ok := strings.CutPrefix(d, "<"); ok {
		d, _, _ = strings.Cut(rest, ">") // <a path with spaces> "title"
	} else if i := strings.IndexAny(d, " \t"); i >= 0 {
		d = d[:i] // a title after the destination
	}
	return strings.Contains(d, "://") || strings.HasPrefix(strings.ToLower(d), "data:")
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
	s := hiddenComment().ReplaceAllString(md, " ")
	s = linkDestination().ReplaceAllString(s, "]")
	return htmlTag().ReplaceAllString(s, " ")
}
