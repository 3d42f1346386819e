package retrieve

import (
	"bytes"
	"strings"

	"github.com/lore-memory/lore/tokenize"
)

// A note names a thing by its acronym once it has spelled it out: the
// HIPAA primer's "Briefly, what is PHI?" answers "what counts as protected
// health information", an ADR is an architecture decision record, a PR a
// pull request. Among one note's sections (scoreSections), an acronym in a
// section's text counts as the query words it stands for.

const (
	acronymMinWords = 2 // "pull request": PR
	acronymMaxWords = 6 // letters of an acronym, words it stands for
)

// queryAcronyms returns the initials of the query's runs of consecutive
// words (ASCII letters first, no stop word among them), for stand (nil
// when there is no run of acronymMinWords words).
func queryAcronyms(q string, qterms []sectionTerm) *acronymIndex {
	x := &acronymIndex{qterms: qterms, initials: make([]byte, 0, 2*len(qterms)), words: make([]int, 0, 2*len(qterms))}
	n, longest := 0, 0 // words in the current run, in the longest
	tokenize.EachToken(q, func(t string, stop bool) {
		i := x.term(t)
		if stop || i < 0 || t[0] < 'a' || t[0] > 'z' {
			if n > 0 {
				x.initials, x.words, n = append(x.initials, ' '), append(x.words, -1), 0
			}
			return
		}
		x.initials, x.words, n = append(x.initials, t[0]-'a'+'A'), append(x.words, i), n+1
		longest = max(longest, n)
	})
	if longest < acronymMinWords {
		return nil
	}
	return x
}

// acronymIndex is the query's runs of words by their initials: initials
// holds each run's first letters in capitals, runs apart by a space, and
// words the index in qterms of the word each letter is of (-1 at a space).
type acronymIndex struct {
	initials []byte
	words    []int
	qterms   []sectionTerm
}

// term returns the index of t in qterms, or -1: a query has at most
// tokenize.MaxQueryTerms of them, and a scan allocates nothing.
func (x *acronymIndex) term(t string) int {
	for i, q := range x.qterms {
		if q.tok == t {
			return i
		}
	}
	return -1
}

// stand returns the indexes in qterms of the consecutive query words whose
// initials are a (from eachAcronym: two to acronymMaxWords capitals), the
// first such stretch; nil when there is none or when a is a word of the
// query itself, which is then a term of its own.
func (x *acronymIndex) stand(a string) []int {
	if x == nil {
		return nil
	}
	i := bytes.Index(x.initials, []byte(a))
	if i < 0 {
		return nil
	}
	for _, q := range x.qterms {
		if strings.EqualFold(q.tok, a) {
			return nil
		}
	}
	return x.words[i : i+len(a)]
}

// eachAcronym calls emit with each acronym of s: a word of two to
// acronymMaxWords capital ASCII letters, with or without a plural s
// ("PRs", emitted without it), between characters that are not ASCII
// letters, digits or underscores (MAX_SIZE is a name in code). A word of
// capitals longer than that, as in a line set in capitals, is no acronym.
func eachAcronym(s string, emit func(acronym string)) {
	for i := 0; i < len(s); {
		if !isUpper(s[i]) || i > 0 && isWordByte(s[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isUpper(s[j]) {
			j++
		}
		end := j
		if end < len(s) && s[end] == 's' {
			end++
		}
		if n := j - i; n >= acronymMinWords && n <= acronymMaxWords && (end == len(s) || !isWordByte(s[end])) {
			emit(s[i:j])
		}
		i = end
	}
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
