package markdown

import (
	"bytes"
	"unicode/utf8"
)

// Goldmark's parser is quadratic in some shapes of input: containers nested
// on one line ("> > > …", "- - - …", "1. 1. …"), lists nested by ever deeper
// indentation, and inline runs such as "[a](" repeated, which every "["
// scans to the end of its paragraph. An agent's 250 KB Draft of such text
// once made another project's next search take 18 s, and a 1 MiB body did
// not finish in 120 s. lore only needs the structure (top-level headings,
// code to mask, links), so it parses a bounded copy of the body with the
// same byte offsets (every change keeps each byte where it was), and takes
// all text from the original:
//
//   - at most maxNesting container markers are read at the start of a line;
//     the markers past that become spaces (the rest of the line is then
//     indented text, which costs nothing to nest);
//   - leading white space past maxIndent columns ends with a '.', so no
//     line can open a list nested deeper than that;
//   - no run of text without a blank line (a paragraph, as the inline
//     parser sees it) is much longer than maxRun bytes: past that, the
//     next line of paragraph text ends with a blank line, and a line
//     longer than maxRun is cut into pieces by blank lines, each piece
//     after a cut starting with a '.'. No cut makes or unmakes a heading
//     (boundRun says how).
//
// Ordinary notes are left as they are (boundForParse returns body itself);
// a note that is cut this way keeps its text, units and hashes, and may
// lose a link or a heading written past the cut.
const (
	maxNesting = 16
	maxIndent  = 64
	maxRun     = 2048
)

// boundForParse returns body, or a copy of it bounded as described above.
func boundForParse(body []byte) []byte {
	var out []byte // nil until something changes
	set := func(i int, b byte) {
		if out == nil {
			out = append([]byte(nil), body...)
		}
		out[i] = b
	}
	run := 0         // bytes since the last blank line
	var fence []byte // the open code fence ("```", "~~~~", …), if any
	for start := 0; start < len(body); {
		end := start
		for end < len(body) && body[end] != '\n' {
			end++
		}
		line := body[start:end]
		switch f := fenceOf(line); {
		case fence != nil:
			// Code is not parsed inline: nothing to cut, only the fence to close.
			boundLine(body, start, end, set)
			if f != nil && f[0] == fence[0] && len(f) >= len(fence) {
				fence = nil
			}
			run = 0
		case f != nil:
			boundLine(body, start, end, set)
			fence, run = f, 0
		case blankLine(line):
			run = 0
		default:
			run = boundRun(body, line, start, end, run, set)
		}
		start = end + 1
	}
	if out == nil {
		return body
	}
	return out
}

// boundRun bounds a line of text outside code, body[start:end], run bytes
// after the last blank line, and returns the run after it.
//
// Neither cut may change what the parser sees as a heading: the sections
// are read off the parsed copy, and a heading that the cut made (the old
// first cut split every line after a long run one byte in, so "- item"
// became "-", a setext underline, on 28 notes of a real vault) would put
// sections where the note has none.
func boundRun(body, line []byte, start, end, run int, set func(int, byte)) int {
	// A long line: a blank line every maxRun bytes inside it; each piece
	// is bounded as a line of its own. A piece after a cut starts with a
	// '.', so it is paragraph text whatever the note had there (never a
	// heading, list, quote, fence or code). The first piece keeps the
	// line's own start and is at least maxRun/2 bytes of it; when that
	// prefix looks like a setext underline, the line is not cut.
	last := start
	if end-start > maxRun {
		for budget := max(maxRun-run, maxRun/2); ; budget = maxRun {
			at := last + budget
			if at >= end-3 {
				break
			}
			b, stop := breakSpan(body, at, end)
			if stop-b < 3 || (last == start && underlineLike(body[start:b])) {
				break
			}
			boundLine(body, last, b, set)
			set(b, '\n')
			set(b+1, '\n')
			set(b+2, '.')
			for j := b + 3; j < stop; j++ {
				set(j, ' ')
			}
			last, run = stop, 0
		}
	}
	boundLine(body, last, end, set)
	run += end - last + 1
	if run > maxRun && end < len(body) && cuttable(line) {
		// End the run here: the line's last character becomes a line end.
		i := end - 1
		for i > start && !utf8.RuneStart(body[i]) {
			i--
		}
		set(i, '\n')
		for j := i + 1; j < end; j++ {
			set(j, ' ')
		}
		run = 0
	}
	return run
}

// fenceOf returns the code fence a line opens or closes (its run of ` or ~,
// after up to three spaces and any blockquote markers), or nil.
func fenceOf(l []byte) []byte {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '>' || l[i] == '\t') {
		i++
	}
	j := i
	for j < len(l) && j-i < 1<<10 && (l[j] == '`' || l[j] == '~') && l[j] == l[i] {
		j++
	}
	if j-i < 3 {
		return nil
	}
	return l[i:j]
}

// cuttable reports whether a line is paragraph text whose last character
// can become a line end without making or unmaking a heading: after its
// indentation and block quote markers it starts with no Markdown block
// marker, so it is no setext underline and no ATX heading, and the blank
// line the cut makes only ends a paragraph (or a quote) early.
func cuttable(l []byte) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '>') {
		i++
	}
	return i < len(l) && plainStart(l[i])
}

// plainStart reports whether c can start a line that is paragraph text
// whatever follows it.
func plainStart(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '#', '`', '~', '=', '-', '*', '+', '_', '>', '|', '<', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return false
	}
	return true
}

// underlineLike reports whether a line's prefix, as a line of its own,
// could be a setext heading's underline: up to three spaces, then only '='
// or only '-', then white space.
func underlineLike(l []byte) bool {
	t := bytes.TrimRight(bytes.TrimLeft(l, " "), " \t\r")
	if len(t) == 0 || len(l)-len(bytes.TrimLeft(l, " ")) > 3 {
		return false
	}
	return len(bytes.Trim(t, "=")) == 0 || len(bytes.Trim(t, "-")) == 0
}

func blankLine(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// breakSpan returns the whole characters at or after at (before end), at
// least three bytes, that become a blank line and a '.' ("\n\n." and
// spaces).
func breakSpan(body []byte, at, end int) (int, int) {
	for at < end && !utf8.RuneStart(body[at]) {
		at++
	}
	stop := at
	for n := 0; stop < end && (n < 3 || !utf8.RuneStart(body[stop])); n++ {
		stop++
	}
	for stop < end && !utf8.RuneStart(body[stop]) {
		stop++
	}
	return at, stop
}

// boundLine bounds one line's container markers and indentation.
func boundLine(body []byte, start, end int, set func(int, byte)) {
	col, depth := 0, 0
	for i := start; i < end; {
		c := body[i]
		switch {
		case c == ' ' || c == '\t':
			if c == '\t' {
				col += 4 - col%4
			} else {
				col++
			}
			if col > maxIndent {
				set(i, '.')
				return
			}
			i++
		case c == '>':
			if depth++; depth > maxNesting {
				set(i, ' ')
			}
			col++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < end && (body[i+1] == ' ' || body[i+1] == '\t'):
			if depth++; depth > maxNesting {
				set(i, ' ')
			}
			col++
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < end && j-i < 9 && body[j] >= '0' && body[j] <= '9' {
				j++
			}
			if j+1 >= end || (body[j] != '.' && body[j] != ')') || (body[j+1] != ' ' && body[j+1] != '\t') {
				return
			}
			if depth++; depth > maxNesting {
				for k := i; k <= j; k++ {
					set(k, ' ')
				}
			}
			col += j + 1 - i
			i = j + 1
		default:
			return
		}
	}
}
