package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// Colour, for people at a terminal only: never in a pipe or a file, and
// never when NO_COLOR is set (no-color.org). The escape codes are lore's
// own and go to the terminal behind the visible writer; the text they
// colour goes through it.

const (
	styleNone  = ""
	styleBold  = "1"
	styleDim   = "2"
	styleRed   = "31"
	styleGreen = "32"
	styleCyan  = "36"
)

// colour reports whether e's stdout takes colour.
func (e *env) colour() bool {
	return isTerminal(e.stdout) && e.getenv("NO_COLOR") == ""
}

// paint writes text to stdout in style (plain when colour is off).
func (e *env) paint(style, text string) {
	if style == styleNone || !e.colour() {
		io.WriteString(e.stdout, text)
		return
	}
	// The line end stays outside the colour, so a pager's line is whole.
	body, nl := strings.CutSuffix(text, "\n")
	fmt.Fprintf(raw(e.stdout), "\x1b[%sm", style)
	io.WriteString(e.stdout, body)
	io.WriteString(raw(e.stdout), "\x1b[0m")
	if nl {
		io.WriteString(e.stdout, "\n")
	}
}

// diffStyle is a unified diff line's colour, as git colours it.
func diffStyle(line string) string {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "):
		return styleBold
	case strings.HasPrefix(line, "@@"):
		return styleCyan
	case strings.HasPrefix(line, "+"):
		return styleGreen
	case strings.HasPrefix(line, "-"):
		return styleRed
	}
	return styleNone
}

// readerIsTerminal reports whether r is a terminal (a prompt may wait on it).
func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// location is where a section is, as lore prints it: the path, then its
// heading path ("howto/release.md › Release › Before"); a note's intro,
// which has no heading, is the path alone.
func location(path string, headings []string) string {
	if len(headings) == 0 {
		return path
	}
	return path + " › " + strings.Join(headings, " › ")
}
