package fts

import (
	"os"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// Experiment (issue 62, LORE_EXP_PATH=split; not a feature): a path's words
// are indexed as words of their own kind, so a folder's words ("people" in
// the paths of the Hub's 2,300 People notes) no longer share one rarity with
// the same words in notes' text. The query asks for each of its words twice:
// as a text word and as a path word, each with its own idf.
var expPathSplit = os.Getenv("LORE_EXP_PATH") == "split"

// pathMark starts a path word's token; the ascii tokenizer keeps it (every
// non-ASCII character is a token character) and no text token starts with it.
const pathMark = "§"

// pathWords marks each space-separated token of a path's terms.
func pathWords(terms string) string {
	if !expPathSplit || terms == "" {
		return terms
	}
	f := strings.Fields(terms)
	for i, t := range f {
		f[i] = pathMark + t
	}
	return strings.Join(f, " ")
}

// withPathWords adds each query term's path word after the terms.
func withPathWords(ts []string) []string {
	if !expPathSplit {
		return ts
	}
	out := append([]string(nil), ts...)
	for _, t := range ts {
		out = append(out, pathMark+t)
	}
	return out
}

// loneCJK reports whether t, a path word or not, is one CJK character: it
// matches as a prefix of the bigrams it starts.
func loneCJK(t string) bool {
	t = strings.TrimPrefix(t, pathMark)
	r, n := utf8.DecodeRuneInString(t)
	return n == len(t) && vault.IsCJK(r)
}

// pathList marks each token of a path's token list.
func pathList(ts []string) []string {
	if !expPathSplit {
		return ts
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = pathMark + t
	}
	return out
}
