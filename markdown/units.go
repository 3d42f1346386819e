package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

func makeUnits(id string, data []byte, sections []section) []vault.Unit {
	var units []vault.Unit
	seen := map[string]int{}
	line, at := 1, 0 // the line of byte at; units come in order
	lineOf := func(i int) int {
		line += bytes.Count(data[at:i], []byte{'\n'})
		at = i
		return line
	}
	for _, s := range sections {
		slug := "_"
		if len(s.headingPath) > 0 {
			slug = vault.Slugify(s.headingPath[len(s.headingPath)-1])
		}
		n := seen[slug]
		seen[slug]++
		if len(bytes.TrimSpace(data[s.contentStart:s.end])) == 0 {
			continue
		}
		start := s.start
		if len(s.headingPath) == 0 { // preamble: drop leading blank lines
			for start < s.end && (data[start] == '\n' || data[start] == '\r') {
				start++
			}
		}
		first := len(units)
		for _, r := range chunk(data, start, trimEnd(data, start, s.end), vault.MaxUnitTokens) {
			content := string(data[r.start:r.end])
			units = append(units, vault.Unit{
				Key:         vault.UnitKey(id, slug, n, len(units)-first),
				HeadingPath: s.headingPath,
				Slug:        slug,
				Section:     n,
				Chunk:       len(units) - first,
				Start:       r.start,
				End:         r.end,
				Line:        lineOf(r.start),
				Content:     content,
				ContentHash: vault.HashBytes(data[r.start:r.end]),
				Tokens:      r.tokens,
				Bare:        SaysNothing(content),
			})
		}
	}
	return units
}

func trimEnd(data []byte, start, end int) int {
	for end > start && (data[end-1] == '\n' || data[end-1] == '\r' || data[end-1] == ' ' || data[end-1] == '\t') {
		end--
	}
	return end
}

// span is a range of a file's bytes and its estimated tokens.
type span struct{ start, end, tokens int }

// chunk splits data[start:end] into ranges of at most max estimated tokens,
// preferring paragraph breaks, then line breaks, then rune boundaries.
func chunk(data []byte, start, end, max int) []span {
	if n := vault.EstimateBytes(data[start:end]); n <= max {
		return []span{{start, end, n}}
	}
	for _, sep := range []string{"\n\n", "\n", ". ", "。", " "} {
		pieces := splitKeep(data, start, end, sep)
		if len(pieces) < 2 {
			continue
		}
		// Pieces end at a separator, so their estimates add up to the
		// estimate of their concatenation; summing keeps this linear.
		var out []span
		// emit splits a group further. The estimate is not exactly additive
		// (runs of spaces, tabs), so a group may come out as the whole range
		// again: then it is cut by runes, which always makes progress.
		emit := func(a, b int) {
			b = trimEnd(data, a, b)
			if a == start && b >= trimEnd(data, start, end) {
				out = append(out, hardSplit(data, a, b, max)...)
				return
			}
			out = append(out, chunk(data, a, b, max)...)
		}
		cur := pieces[0]
		curTokens := vault.EstimateBytes(data[cur[0]:cur[1]])
		for _, p := range pieces[1:] {
			t := vault.EstimateBytes(data[p[0]:p[1]])
			if curTokens+t <= max {
				cur[1] = p[1]
				curTokens += t
				continue
			}
			emit(cur[0], cur[1])
			cur, curTokens = p, t
		}
		emit(cur[0], cur[1])
		return out
	}
	return hardSplit(data, start, end, max)
}

// splitKeep cuts data[start:end] after each sep, so the pieces cover the range.
func splitKeep(data []byte, start, end int, sep string) [][2]int {
	var out [][2]int
	s := string(data[start:end])
	off := 0
	for {
		i := strings.Index(s[off:], sep)
		if i < 0 {
			break
		}
		cut := off + i + len(sep)
		for cut < len(s) && s[cut] == '\n' {
			cut++
		}
		if cut >= len(s) {
			break
		}
		out = append(out, [2]int{start + off, start + cut})
		off = cut
	}
	return append(out, [2]int{start + off, end})
}

func hardSplit(data []byte, start, end, max int) []span {
	var out []span
	for cur := start; cur < end; {
		// The longest prefix whose estimate fits, found by bisection. No rune
		// costs less than 1/8 token nor takes more than 4 bytes, so the cut
		// lies within max*32 bytes.
		lo, hi := cur+1, min(end, cur+max*32)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if vault.EstimateBytes(data[cur:mid]) <= max {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		cut := lo
		for cut < end && !utf8.RuneStart(data[cut]) {
			cut++
		}
		out = append(out, span{cur, cut, vault.EstimateBytes(data[cur:cut])})
		cur = cut
	}
	return out
}
