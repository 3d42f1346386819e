package tokenize

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// terms calls emit for each index term of s, in order. See the package doc for
// the rules: words lower-cased, code identifiers split into their parts plus the
// joined whole, an acronym's plural its acronym, no lone s or t after an
// apostrophe, CJK runs cut into overlapping bigrams. Most text is ASCII
// prose, which takes fast paths that allocate only to lower-case a capital;
// tokenize_test.go checks them against an oracle of regular expressions.
func terms(s string, emit func(term string)) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if isASCIIWord(c) {
				if i > 0 && (s[i-1] == '\'' || s[i-1] == 0x99) && (c|0x20 == 's' || c|0x20 == 't') &&
					afterApostrophe(s, i) && compoundEnd(s, i) == i+1 {
					i++ // the s of "plugin's" and the t of "don't" are not words
					continue
				}
				if j := plainWordEnd(s, i); j > 0 {
					// Most words of prose: one scan, the word itself.
					if 'A' <= c && c <= 'Z' {
						emit(strings.ToLower(s[i:j]))
					} else {
						emit(s[i:j])
					}
					i = j
					continue
				}
				j := compoundEnd(s, i)
				compound(s[i:j], emit)
				i = j
			} else {
				i++
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case vault.IsCJK(r):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !vault.IsCJK(r2) {
					break
				}
				j += n2
			}
			cjkBigrams(s[i:j], emit)
			i = j
		case IsWordRune(r):
			j := compoundEnd(s, i)
			compound(s[i:j], emit)
			i = j
		default:
			i += n
		}
	}
}

// afterApostrophe reports whether s[i] follows an apostrophe (' or ’) that
// follows a letter or digit: a possessive's s or a contraction's t, which as
// a term of its own matched every other "it's" and "plugin's" of a vault.
// terms asks only when the byte before is ' or ’'s last (0x99): most words
// follow a space.
func afterApostrophe(s string, i int) bool {
	var k int
	switch {
	case i >= 2 && s[i-1] == '\'':
		k = i - 1
	case i >= 4 && strings.HasSuffix(s[:i], "’"):
		k = i - 3
	default:
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:k])
	return IsWordRune(r)
}

// plainWordEnd returns the end of the word starting at s[i] (an ASCII letter
// or digit) when that word is its whole compound and a plain word: ASCII
// lower-case letters and digits after its first byte, not followed by a
// capital, a non-ASCII rune, or a connector joining it to more. Otherwise it
// returns 0, and the caller takes the general path (compoundEnd, compound).
func plainWordEnd(s string, i int) int {
	j := i + 1
	for j < len(s) {
		c := s[j]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			j++
			continue
		}
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return 0
		}
		if isConnector(rune(c)) && j+1 < len(s) && (s[j+1] >= utf8.RuneSelf || isASCIIWord(s[j+1])) {
			return 0
		}
		break
	}
	return j
}

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWord(byte(r))
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !vault.IsCJK(r)
}

func isConnector(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r == '/' || r == ':'
}

// compoundEnd returns the end of the compound starting at i: word runes joined
// by single connectors ("internal/fts/index.go", "max_retry_count").
func compoundEnd(s string, i int) int {
	j := i
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf {
			if isASCIIWord(c) {
				j++
				continue
			}
			if isConnector(rune(c)) && j+1 < len(s) {
				if c2 := s[j+1]; c2 < utf8.RuneSelf && isASCIIWord(c2) {
					j++
					continue
				}
				if r2, _ := utf8.DecodeRuneInString(s[j+1:]); r2 >= utf8.RuneSelf && IsWordRune(r2) {
					j++
					continue
				}
			}
			break
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if !IsWordRune(r) {
			break
		}
		j += n
	}
	return j
}

// compound emits the parts of one compound. Within each segment between '/',
// '.' and ':' it splits on '_', '-' and camelCase, emitting every part and, when
// there was more than one, the joined whole ("parseConfigFile" → parse, config,
// file, parseconfigfile), so an identifier is found by its parts and ranks
// highest for its exact spelling.
func compound(c string, emit func(string)) {
	if plainWord(c) {
		emit(lowerASCII(c))
		return
	}
	for _, seg := range strings.FieldsFunc(c, func(r rune) bool { return r == '/' || r == '.' || r == ':' }) {
		var parts []string
		for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return r == '_' || r == '-' }) {
			parts = append(parts, camelParts(w)...)
		}
		for _, p := range parts {
			emit(strings.ToLower(p))
		}
		if len(parts) > 1 {
			emit(strings.ToLower(strings.Join(parts, "")))
			if m := dateMonth(parts[0], parts[1]); m != "" {
				emit(m)
			}
		}
	}
}

// months are the English month names, January first. May is left out: in
// a question it is far more often the verb ("how many requests may a token
// make"), which would then find every note dated in May.
var months = [12]string{"january", "february", "march", "april", "", "june",
	"july", "august", "september", "october", "november", "december"}

// dateMonth is the month's name when a compound starts with a year and a
// month the ISO way ("2022-01-15", "2024-03-index-lost-edits"), else "". A
// dated note is asked for by its month's name: "what did Dataview get in
// January 2022" is answered by "2022-01-15 Dataview Optimizations…", whose
// name spells the month as 01. Years 1900–2099; the month two digits; ""
// for May (months).
func dateMonth(year, month string) string {
	if len(year) != 4 || len(month) != 2 || !(strings.HasPrefix(year, "19") || strings.HasPrefix(year, "20")) ||
		!isDigits(year) || !isDigits(month) {
		return ""
	}
	if m := int(month[0]-'0')*10 + int(month[1]-'0'); m >= 1 && m <= 12 {
		return months[m-1]
	}
	return ""
}

// isDigits reports whether s is ASCII digits only.
func isDigits(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return true
}

// plainWord reports whether c is ASCII letters and digits with no capital
// after the first byte: one part, the word itself (camelParts cannot split it).
func plainWord(c string) bool {
	for k := 0; k < len(c); k++ {
		b := c[k]
		if b >= utf8.RuneSelf || !isASCIIWord(b) || k > 0 && 'A' <= b && b <= 'Z' {
			return false
		}
	}
	return true
}

// lowerASCII lower-cases an ASCII word, allocating only when it has a capital.
func lowerASCII(w string) string {
	for k := 0; k < len(w); k++ {
		if 'A' <= w[k] && w[k] <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// camelParts splits "parseHTTPServer2" into parse, HTTP, Server2. Letters and
// digits stay together (sha256, utf8); an acronym's plural is its acronym
// (acronymPlural).
func camelParts(w string) []string {
	if isASCII(w) {
		return camelPartsASCII(w)
	}
	rs := []rune(w)
	var out []string
	start := 0
	for k := 1; k < len(rs); k++ {
		prev, cur := rs[k-1], rs[k]
		lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(cur)
		plural := k+2 == len(rs) && rs[k+1] == 's' // "PDFs": acronymPlural's
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && k+1 < len(rs) && unicode.IsLower(rs[k+1]) && !plural
		digitToUpper := unicode.IsDigit(prev) && unicode.IsUpper(cur)
		if lowerToUpper || acronymEnd || digitToUpper {
			out = append(out, string(rs[start:k]))
			start = k
		}
	}
	return acronymPlural(append(out, string(rs[start:])))
}

// acronymPlural makes a word's last part, when it is an acronym's plural
// (two or more capitals and a lower-case s: "PDFs", "APIs", "IDs"), the
// acronym. camelCase alone cut "PDFs" into "PD" and "Fs", so a query for
// "PDFs" matched neither "PDF" nor "pdf" and found every "fs" instead.
// camelParts leaves such a plural whole for it to see ("miRNAs" → mi, RNA).
func acronymPlural(parts []string) []string {
	p := parts[len(parts)-1]
	if len(p) < 3 || p[len(p)-1] != 's' {
		return parts
	}
	caps := 0
	for _, r := range p[:len(p)-1] {
		if !unicode.IsUpper(r) {
			return parts
		}
		caps++
	}
	if caps < 2 {
		return parts
	}
	parts[len(parts)-1] = p[:len(p)-1]
	return parts
}

// camelPartsASCII is camelParts for an ASCII word, cutting it in place.
func camelPartsASCII(w string) []string {
	lower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	var out []string
	start := 0
	for k := 1; k < len(w); k++ {
		prev, cur := w[k-1], w[k]
		plural := k+2 == len(w) && w[k+1] == 's'
		if upper(cur) && (lower(prev) || '0' <= prev && prev <= '9' || upper(prev) && k+1 < len(w) && lower(w[k+1]) && !plural) {
			out = append(out, w[start:k])
			start = k
		}
	}
	return acronymPlural(append(out, w[start:]))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// cjkBigrams emits overlapping character pairs of a run of Han or kana (as
// slices of run, without copying); a single character is emitted as itself.
func cjkBigrams(run string, emit func(string)) {
	_, first := utf8.DecodeRuneInString(run)
	if first == len(run) {
		emit(run)
		return
	}
	for a, b := 0, first; b < len(run); {
		_, n := utf8.DecodeRuneInString(run[b:])
		emit(run[a : b+n])
		a, b = b, b+n
	}
}

// Text returns s as the space-separated tokens that go into FTS5.
func Text(s string) string { return Memo(nil).Text(s) }

// Text is the function Text, remembering in m.
func (m Memo) Text(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + len(s)/4)
	m.Index(s, func(t string) {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
	})
	return sb.String()
}

// Index calls emit for each token of s that goes into the index: the
// token of every term, except that the token of an English stop word counts
// once per text (one column of one unit). Its frequency says nothing of what the
// text is about, and stop words are 40-45 % of English prose: the index and
// its writing shrink by a quarter, while a query of stop words alone ("what
// is it", someone called Will) still finds the texts that hold them.
func (m Memo) Index(s string, emit func(token string)) {
	var seen [2]uint64 // by StopID - 1
	terms(s, func(t string) {
		tok, stop := m.lookup(t)
		if stop > 0 {
			bit := uint64(1) << ((stop - 1) % 64)
			if seen[(stop-1)/64]&bit != 0 {
				return
			}
			seen[(stop-1)/64] |= bit
		}
		emit(tok)
	})
}

// MaxQueryBytes is how much of a query is used: longer queries are cut at the
// last rune boundary before it (agents sometimes paste whole files).
const MaxQueryBytes = 2048

// MaxQueryTerms is how many distinct terms of a query reach FTS5.
const MaxQueryTerms = 64

// particles are the adverbs that make a phrasal verb of the word before
// them in a query. A question says "back up my vault", "looking up bible
// verses", "roll back the release"; notes name what the verb does as one
// word: "Dropbox Backups", "verse lookup", "rollback", "timeout", "login".
// QueryTerms adds the verb's stem joined to its particle ("back" + "up":
// backup, "look" + "up": lookup) as one more term. A join that is no word
// ("clickon") matches nothing, and the two words still count on their own.
var particles = map[string]bool{
	"up": true, "down": true, "in": true, "out": true, "on": true, "off": true,
	"over": true, "back": true, "through": true,
}

// isLowerASCII reports whether s is ASCII lower-case letters only.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// QueryTerms returns the distinct terms of a query, leaving out its Chinese
// question phrasing (MaskPhrasing), dropping English stop words
// unless nothing else is left or the query writes them in capitals (a name:
// capitalStops), then each phrasal verb joined into its noun (particles),
// at most MaxQueryTerms.
func QueryTerms(q string) []string {
	q = MaskPhrasing(q)
	seen := map[string]bool{}
	names := capitalStops(q)
	var all, content, joined []string
	prev := "" // the stem of the word before, when a verb may take a particle
	terms(q, func(t string) {
		stop := StopID(t) > 0 && !names[t]
		if prev != "" && particles[t] {
			if j := Token(prev + t); !seen[j] {
				seen[j] = true
				joined = append(joined, j)
			}
		}
		word := t
		t, prev = Token(t), ""
		if !stop && len(word) >= 2 && isLowerASCII(word) {
			prev = t
		}
		if seen[t] {
			return
		}
		seen[t] = true
		all = append(all, t)
		if !stop {
			content = append(content, t)
		}
	})
	out := content
	if len(out) == 0 {
		out = all
	}
	out = append(out, joined...)
	if len(out) > MaxQueryTerms {
		out = out[:MaxQueryTerms]
	}
	return out
}

// capitalStops returns the stop words a query writes in capitals (two or
// more ASCII capitals, a whole word), lower-cased as terms reads them
// before stemming: "ITS" in "change the ITS theme" names the ITS theme, "IT"
// in "ask IT" a department, where "its" and "it" would be stop words. Only
// in a query that also has lower-case letters: a query in capitals
// throughout says nothing by its case. Nil when there is none.
func capitalStops(q string) map[string]bool {
	if !strings.ContainsFunc(q, unicode.IsLower) {
		return nil
	}
	var out map[string]bool
	for i := 0; i < len(q); {
		if q[i] < 'A' || q[i] > 'Z' || (i > 0 && isASCIIWord(q[i-1])) {
			i++
			continue
		}
		j := i
		for j < len(q) && q[j] >= 'A' && q[j] <= 'Z' {
			j++
		}
		if j-i >= 2 && (j == len(q) || !isASCIIWord(q[j])) {
			if w := strings.ToLower(q[i:j]); StopID(w) > 0 {
				if out == nil {
					out = map[string]bool{}
				}
				out[w] = true
			}
		}
		i = j
	}
	return out
}

// CutQuery trims q and cuts it to MaxQueryBytes on a rune boundary.
func CutQuery(q string) string {
	q = strings.TrimSpace(q)
	if len(q) <= MaxQueryBytes {
		return q
	}
	cut := MaxQueryBytes
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return strings.TrimSpace(q[:cut])
}

// stopWords numbers the English stop words by their token, from 1: words
// that stem alike ("doing", "do") share a number. It is written out rather
// than computed at package init, where stemming its 126 words cost every
// process its start (`GODEBUG=inittrace=1`; docs/BENCHMARKS.md, "One warm
// lore"); TestStopWordNumbers
// checks it against the stemmer.
var stopWords = map[string]uint8{
	"a": 1, "about": 2, "above": 3, "after": 4, "again": 5, "against": 6, "all": 7, "am": 8,
	"an": 9, "and": 10, "any": 11, "are": 12, "as": 13, "at": 14, "be": 15, "because": 16,
	"been": 17, "before": 18, "being": 15, "below": 19, "between": 20, "both": 21, "but": 22, "by": 23,
	"can": 24, "could": 25, "did": 26, "do": 27, "does": 28, "doing": 27, "down": 29, "during": 30,
	"each": 31, "few": 32, "for": 33, "from": 34, "further": 35, "had": 36, "has": 37, "have": 38,
	"having": 38, "he": 39, "her": 40, "here": 41, "hers": 40, "herself": 42, "him": 43, "himself": 44,
	"his": 45, "how": 46, "i": 47, "if": 48, "in": 49, "into": 50, "is": 51, "it": 52,
	"its": 52, "itself": 53, "just": 54, "me": 55, "more": 56, "most": 57, "my": 58, "myself": 59,
	"no": 60, "nor": 61, "not": 62, "now": 63, "of": 64, "off": 65, "on": 66, "once": 67,
	"only": 68, "or": 69, "other": 70, "our": 71, "ours": 71, "ourselves": 72, "out": 73, "over": 74,
	"own": 75, "same": 76, "she": 77, "should": 78, "so": 79, "some": 80, "such": 81, "than": 82,
	"that": 83, "the": 84, "their": 85, "theirs": 85, "them": 86, "themselves": 87, "then": 88, "there": 89,
	"these": 90, "they": 91, "this": 92, "those": 93, "through": 94, "to": 95, "too": 96, "under": 97,
	"until": 98, "up": 99, "very": 100, "was": 101, "we": 102, "were": 103, "what": 104, "when": 105,
	"where": 106, "which": 107, "while": 108, "who": 109, "whom": 110, "why": 111, "will": 112, "with": 113,
	"would": 114, "you": 115, "your": 116, "yours": 116, "yourself": 117, "yourselves": 118,
}

// StopID is the number of the token of term t among the stop words' tokens,
// from 1; 0 when t is not a stop word.
func StopID(t string) uint8 { return stopWords[t] }

// EachToken calls emit with each token of s as the index stores it, in
// order and repeats included, and whether its word is an English stop word.
func EachToken(s string, emit func(tok string, stop bool)) {
	terms(s, func(t string) { emit(Token(t), StopID(t) > 0) })
}

// EachTokenIf calls emit with the token of each term of s that keep
// accepts; keep sees the term as it is cut, before its token is made
// (stemmed, folded). A caller that looks for a few tokens skips the
// stemmer for the rest: an ASCII term's token starts with the term's first
// byte and is no longer than the term.
func EachTokenIf(s string, keep func(term string) bool, emit func(tok string)) {
	terms(s, func(t string) {
		if keep(t) {
			emit(Token(t))
		}
	})
}

// SnippetTerms are the query words a snippet looks for, longest first.
func SnippetTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !IsWordRune(r) && !vault.IsCJK(r)
	}) {
		if !seen[f] && StopID(f) == 0 && (utf8.RuneCountInString(f) > 1 || vault.IsCJK([]rune(f)[0])) {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
