package vault

import "unicode/utf8"

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
//     parser sees it) is longer than maxRun bytes: past that, the next
//     line end becomes a blank line, and inside a longer line a character
//     becomes one.
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
func boundRun(body, line []byte, start, end, run int, set func(int, byte)) int {
	// A long line: a blank line every maxRun bytes inside it; each
	// piece is bounded as a line of its own.
	last := start
	for budget := maxRun - run; ; budget = maxRun {
		at := last + max(budget, 1)
		if at >= end-2 {
			boundLine(body, last, end, set)
			break
		}
		b, stop := breakSpan(body, at, end)
		if stop-b < 2 {
			boundLine(body, last, end, set)
			break
		}
		boundLine(body, last, b, set)
		set(b, '\n')
		set(b+1, '\n')
		for j := b + 2; j < stop; j++ {
			set(j, ' ')
		}
		last = stop
	}
	run += end - last + 1
	if run > maxRun && end < len(body) && plainLine(line) {
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

// plainLine reports whether a line is paragraph text whose last character
// can become a line end without changing what the line is: it starts with
// no Markdown block marker and is not indented.
func plainLine(l []byte) bool {
	if len(l) == 0 {
		return false
	}
	switch l[0] {
	case ' ', '\t', '#', '`', '~', '=', '-', '*', '+', '_', '>', '|', '<', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return false
	}
	return true
}

func blankLine(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// breakSpan returns the whole characters at or after at (before end),
// at least two bytes, that become a blank line ("\n\n" and spaces).
func breakSpan(body []byte, at, end int) (int, int) {
	for at < end && !utf8.RuneStart(body[at]) {
		at++
	}
	stop := at
	for n := 0; stop < end && (n < 2 || !utf8.RuneStart(body[stop])); n++ {
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
