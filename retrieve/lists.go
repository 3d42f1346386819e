package retrieve

import (
	"strings"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
)

// A list of links points: a roundup's "- [[obsidian-dropbox-backups|Obsidian
// Dropbox Backups]] can now be automated", a category's "- [[calendar|
// Calendar]]: Calendar view of your daily notes". Its items are what it is
// about, so the link bonus counts its vote for the notes it links to more
// than a prose paragraph's aside (voteWeight). But a list the question
// names is the answer, not a pointer: for "which plugins extract text from
// images with OCR", the category "OCR Plugins" must not vote the plugins it
// lists above itself. The question names a list by a plural that the list's
// title or headings say too ("plugins", "playlists"). See link-bonus.md.

// voteWeight is how many votes the note of c, a note at the top of the list,
// gives each note it links to: 1, and up to 2 when c is a list of links
// (markdown.LinkListShare), unless the question names that list (namesList).
func voteWeight(c *candidate, queryPlurals map[string]bool) float64 {
	d := markdown.LinkListShare(c.Content)
	if d == 0 || namesList(queryPlurals, c) {
		return 1
	}
	return 1 + d
}

// namesList reports whether the question names the list c is: a plural of
// the question's is also in c's title or headings ("OCR Plugins" for "which
// plugins extract text…", "Playlists" for "youtube playlists about
// obsidian"). The word itself, not its stem: "a plugin that backs up my
// vault" names no list of plugins.
func namesList(queryPlurals map[string]bool, c *candidate) bool {
	if len(queryPlurals) == 0 {
		return false
	}
	for w := range sPlurals(c.Title + " " + strings.Join(c.HeadingPath, " ")) {
		if queryPlurals[w] {
			return true
		}
	}
	return false
}

// sPlurals returns the words of s, lower-cased, that end in a plural's s:
// words of four letters or more ending in s but not ss, us or is, whose stem
// the stemmer shortened ("plugins" → plugin, "playlists" → playlist; not
// "status", "class", "analysis" or a stop word such as "does"). A verb's s
// ("backs") passes too; it names a list only if the list's name says the
// same word.
func sPlurals(s string) map[string]bool {
	var out map[string]bool
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(w) < 4 || w[len(w)-1] != 's' {
			continue
		}
		if e := w[len(w)-2]; e == 's' || e == 'u' || e == 'i' {
			continue
		}
		stem, content := "", false
		tokenize.EachToken(w, func(tok string, stop bool) {
			stem, content = tok, !stop
		})
		if content && stem != w {
			if out == nil {
				out = map[string]bool{}
			}
			out[w] = true
		}
	}
	return out
}
