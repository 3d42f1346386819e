package retrieve

import "strings"

// A short text that two notes share word for word is a template, not an
// answer.
//
// Real vaults are written from templates: every note of the Obsidian Hub
// ends with the same footer ("This note in GitHub", three links whose
// destinations spell the note's own file name), starts with a row of badge
// images, and keeps empty headings ("## Features", "## Author of") until
// someone fills them in. Such a section matches a query only by the path
// and title every section of its note carries, so it ranks beside the
// note's real section and takes the place of another note's answer: for
// "encrypt secrets inside my notes" five footers of encryption plugins
// were delivered, 200 tokens each, and nothing in them is about
// encryption. markTemplates finds them among the candidates themselves:
// a section whose readable text (as the index reads it: no link
// destinations, comments or tags) is at most templateWords words and is
// also the text of a section of another note among the candidates. The
// assembly cuts it as cut:template. A longer shared text is a copy of
// content (a theme's settings list pasted into two notes), which the
// assembly's duplicate cut already delivers once.
const (
	templateWords = 20
	templateBytes = 4096 // longer raw text is not read for it: no template is this long
)

// markTemplates sets template on the candidates of ranked whose short
// readable text another note's candidate shares. Exact matches are left
// alone: a name the query gave asks for that note.
func markTemplates(ranked []*candidate) {
	first := map[string]int64{} // text → the first note seen with it
	shared := map[string]bool{}
	keys := make([]string, len(ranked))
	for i, c := range ranked {
		k, ok := templateKey(c)
		if !ok {
			continue
		}
		keys[i] = k
		if r, seen := first[k]; !seen {
			first[k] = c.RID
		} else if r != c.RID {
			shared[k] = true
		}
	}
	for i, c := range ranked {
		if keys[i] != "" && shared[keys[i]] && c.ExactRank == 0 {
			c.template = true
		}
	}
}

// templateKey is the text a template is compared by: c's readable words,
// lower-cased, one space apart (prefixed so that an empty text has a key
// too), and whether the text is short enough to be one.
func templateKey(c *candidate) (string, bool) {
	if len(c.Content) > templateBytes {
		return "", false
	}
	words := strings.Fields(strings.ToLower(c.readableText()))
	if len(words) > templateWords {
		return "", false
	}
	return "t:" + strings.Join(words, " "), true
}
