package vault

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens approximates how many tokens a BPE tokenizer of the GPT-4
// family (cl100k_base) spends on s, without shipping its vocabulary: a run of
// ASCII letters costs one token per started 8 letters, digits one per 3, a run
// of punctuation one per 2 marks, a run of line breaks or tabs one, a run of
// more than one space one, each CJK character one, other letters one per 2.
// TestEstimateTokens_WithinTenPercentOfARealTokenizer holds it within 10% of
// cl100k_base on English notes (+6%), Go code (+9%) and Chinese (-6%).
func EstimateTokens(s string) int { return estimateTokens(s) }

// EstimateBytes is EstimateTokens of the text b holds, without copying it.
func EstimateBytes(b []byte) int { return estimateTokens(b) }

// Character classes of the estimate: a run of one class costs runCost.
const (
	clsLetter = iota // ASCII letters
	clsDigit
	clsSpace
	clsBreak // line breaks and tabs
	clsPunct // ASCII punctuation and other non-letters
	clsOther // letters and digits of other scripts (CJK is counted apart)
	clsNone  // no run yet (and after a CJK character)
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			t[c] = clsLetter
		case '0' <= c && c <= '9':
			t[c] = clsDigit
		case c == ' ':
			t[c] = clsSpace
		case c == '\n' || c == '\t' || c == '\r':
			t[c] = clsBreak
		default:
			t[c] = clsPunct
		}
	}
	return t
}()

func runCost(class uint8, n int) int {
	switch class {
	case clsLetter:
		return (n + 7) / 8
	case clsDigit:
		return (n + 2) / 3
	case clsSpace:
		if n > 1 {
			return 1
		}
		return 0
	case clsBreak:
		return 1
	case clsPunct, clsOther:
		return (n + 1) / 2
	}
	return 0
}

// estimateTokens is EstimateTokens over a string or bytes (no copy):
// maximal runs of one class, each costing runCost.
func estimateTokens[T string | []byte](s T) int {
	n, class, run := 0, uint8(clsNone), 0
	for i := 0; i < len(s); {
		var c uint8
		if b := s[i]; b < utf8.RuneSelf {
			c = asciiClass[b]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			i += size
			switch {
			case IsCJK(r):
				n += runCost(class, run) + 1
				class, run = clsNone, 0
				continue
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				c = clsOther
			default:
				c = clsPunct
			}
		}
		if c != class {
			n += runCost(class, run)
			class, run = c, 0
		}
		run++
	}
	return n + runCost(class, run)
}

// IsCJK reports whether r is a Han, Hiragana or Katakana character: scripts
// written without spaces between words.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}
