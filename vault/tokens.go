package vault

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens approximates how many tokens a BPE tokenizer of the GPT-4
// family spends on s, without shipping its vocabulary: a run of ASCII letters
// costs one token per started 6 letters, digits one per 3, each punctuation
// mark one, a run of more than one space (indentation) one, each CJK character
// one, other letters one per 2. The hybrid-retrieval issue checks it against a
// real tokenizer.
func EstimateTokens(s string) int {
	n := 0
	letters, digits, other, spaces := 0, 0, 0, 0
	flush := func() {
		if letters > 0 {
			n += (letters + 5) / 6
		}
		if digits > 0 {
			n += (digits + 2) / 3
		}
		if other > 0 {
			n += (other + 1) / 2
		}
		if spaces > 1 {
			n++
		}
		letters, digits, other, spaces = 0, 0, 0, 0
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			if digits > 0 || other > 0 || spaces > 0 {
				flush()
			}
			letters++
		case r >= '0' && r <= '9':
			if letters > 0 || other > 0 || spaces > 0 {
				flush()
			}
			digits++
		case r == ' ':
			if letters > 0 || digits > 0 || other > 0 {
				flush()
			}
			spaces++
		case r == '\n' || r == '\t' || r == '\r':
			flush()
			n++
		case IsCJK(r):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if letters > 0 || digits > 0 || spaces > 0 {
				flush()
			}
			other++
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}

// IsCJK reports whether r is a Han, Hiragana or Katakana character: scripts
// written without spaces between words.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}
