// Package termtext makes text safe to show a person on a terminal. What
// lore prints comes from notes, Drafts and agents' logs, so any of it may
// hold escape sequences that clear the screen, move the cursor to draw a
// fake diff, set the window title (OSC 0) or write the clipboard (OSC 52).
// Writer shows every such character visibly instead: ESC as ^[, the other
// C0 controls but tab and newline in caret notation (^M, ^G), DEL as ^?, the
// C1 controls and the bidirectional controls (which reorder what is shown)
// as <U+009B>, <U+202E>; invalid UTF-8 as <0xNN>. Mark also shows the
// invisible format characters (a zero-width space, a soft hyphen, a word
// joiner) that make two different lines look the same, for diffs and rules.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Writer writes to W with control and escape characters made visible. It
// keeps an incomplete UTF-8 sequence at the end of one Write for the next;
// Flush writes what is left. Raw is W itself, for lore's own styling.
type Writer struct {
	W    io.Writer
	TTY  bool // W is a terminal (what lore's isTerminal answers)
	tail []byte
}

// Write writes p made visible; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	data := p
	if len(w.tail) > 0 {
		data = append(w.tail, p...)
		w.tail = nil
	}
	// Hold back an incomplete sequence at the end (at most 3 bytes).
	if cut := incompleteTail(data); cut > 0 {
		w.tail = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	if _, err := io.WriteString(w.W, visible(data, false)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete sequence (as invalid bytes).
func (w *Writer) Flush() error {
	if len(w.tail) == 0 {
		return nil
	}
	t := w.tail
	w.tail = nil
	_, err := io.WriteString(w.W, visible(t, false))
	return err
}

// incompleteTail returns how many bytes at the end of b start a UTF-8
// sequence that is not complete yet.
func incompleteTail(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if need := seqLen(c); need > i {
				return i
			}
			return 0
		}
	}
	return 0
}

func seqLen(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}

// Visible returns s with control and escape characters made visible.
func Visible(s string) string {
	if clean(s, false) {
		return s
	}
	return visible([]byte(s), false)
}

// Mark returns s with control and escape characters made visible, and the
// invisible format characters too (<U+200B>): for diffs and rules, where
// two lines must not look the same unless they are.
func Mark(s string) string {
	if clean(s, true) {
		return s
	}
	return visible([]byte(s), true)
}

// HasInvisible reports whether s holds a character Mark would show: a
// control, escape, bidirectional or invisible format character.
func HasInvisible(s string) bool { return !clean(s, true) }

func clean(s string, marks bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			return cleanSlow(s, marks)
		}
	}
	return true
}

func cleanSlow(s string, marks bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || shown(r, marks) != "" {
			return false
		}
	}
	return true
}

func visible(b []byte, marks bool) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&sb, "<0x%02X>", b[0])
		default:
			if s := shown(r, marks); s != "" {
				sb.WriteString(s)
			} else {
				sb.Write(b[:n])
			}
		}
		b = b[n:]
	}
	return sb.String()
}

// shown is how r is written visibly, or "" when it is written as it is.
func shown(r rune, marks bool) string {
	switch {
	case r == '\n' || r == '\t':
		return ""
	case r == 0x1b:
		return "^["
	case r < 0x20:
		return "^" + string(rune(r+'@'))
	case r == 0x7f:
		return "^?"
	case r >= 0x80 && r < 0xa0, bidi(r):
		return fmt.Sprintf("<U+%04X>", r)
	case marks && (unicode.Is(unicode.Cf, r) || r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0 || unicode.Is(unicode.Zs, r) && r != ' '):
		return fmt.Sprintf("<U+%04X>", r)
	}
	return ""
}

// bidi reports the bidirectional controls: embeddings, overrides, isolates
// and marks, which change the order in which a terminal shows text.
func bidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
