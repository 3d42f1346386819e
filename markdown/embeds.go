package markdown

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/lore-memory/lore/vault"
)

// EmbedPart returns the part of a note an embed's anchor names: "" the
// whole body (without frontmatter); "^id" the block marked with it (its
// paragraph, or its list item with the items nested under it; the mark
// removed: blockOf); otherwise a heading, whose section it returns from the
// heading line on with every subsection under it, up to the next heading of
// the same or a higher level, as Obsidian shows it. "A#B" names the heading
// B under A (nestedAnchor). Headings compare case-insensitively, and, when
// no heading is the anchor's text, as Obsidian matches a link to a heading:
// without their punctuation and symbols (strippedHeading), so `#Part 1
// Basics` is "Part 1: Basics"; of two headings that match, the first.
func EmbedPart(data []byte, p, anchor string) (string, bool) {
	body := Body(data)
	switch {
	case anchor == "":
		return strings.TrimSpace(string(body)), true
	case strings.HasPrefix(anchor, "^"):
		return blockOf(string(body), anchor[1:])
	}
	r, err := Parse(p, data)
	if err != nil {
		return "", false
	}
	parts := nestedAnchor(anchor)
	start := -1
	for _, same := range []func(a, b string) bool{sameHeading, sameStrippedHeading} {
		for i, u := range r.Units {
			if underHeadings(u.HeadingPath, parts, same) {
				start = i
				break
			}
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return "", false
	}
	head := r.Units[start]
	n := len(head.HeadingPath)
	var b strings.Builder
	for _, u := range r.Units[start:] {
		switch {
		case len(u.HeadingPath) == n && u.Slug == head.Slug && u.Section == head.Section:
			// the heading's own section, or a later chunk of it
		case len(u.HeadingPath) > n && slices.Equal(u.HeadingPath[:n], head.HeadingPath):
			// a subsection
		default:
			return b.String(), true // the section ended
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.TrimSpace(u.Content))
	}
	return b.String(), true
}

// nestedAnchor splits a heading anchor at '#': "A#B" is B under A.
func nestedAnchor(anchor string) []string {
	parts := strings.Split(anchor, "#")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// underHeadings reports whether a unit's heading path ends with the last of
// parts and holds the others, in order, above it, headings compared by same.
func underHeadings(path, parts []string, same func(a, b string) bool) bool {
	n := len(path)
	if n == 0 || len(parts) == 0 || !same(path[n-1], parts[len(parts)-1]) {
		return false
	}
	k := len(parts) - 2
	for i := n - 2; i >= 0 && k >= 0; i-- {
		if same(path[i], parts[k]) {
			k--
		}
	}
	return k < 0
}

func sameHeading(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func sameStrippedHeading(a, b string) bool {
	sa := strippedHeading(a)
	return sa != "" && sa == strippedHeading(b)
}

// eitherHeading is a match either way: a cycle is found however it is named.
func eitherHeading(a, b string) bool { return sameHeading(a, b) || sameStrippedHeading(a, b) }

// strippedHeading is a heading as a link names it: Obsidian writes a link
// to "What is the Obsidian Hub?" as `#What is the Obsidian Hub` and to
// "D&D WOTC" as `#D D WOTC` (it strips the characters a link cannot hold,
// and matches headings "stripping out special characters and shrinking
// consecutive spaces"). Every rune that is not a letter, digit or mark
// reads as a space; spaces run together; case folds. Slugify, the unit
// key's form, drops '&', '[' and '|' without a space ("D&D" is "dd"), so
// it cannot compare a heading with a link's spelling of it.
func strippedHeading(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// blockOf returns the block whose last line ends with " ^id": the list item
// on that line (bulleted, numbered or a task) with its nested items, or the
// paragraph that ends there, without the mark.
func blockOf(body, id string) (string, bool) {
	if id == "" {
		return "", false
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r")
		if !strings.HasSuffix(t, "^"+id) {
			continue
		}
		before := strings.TrimSuffix(t, "^"+id)
		if before != "" && !strings.HasSuffix(before, " ") && !strings.HasSuffix(before, "\t") {
			continue
		}
		if item := strings.TrimLeft(before, " \t"); listMarker(item) {
			// The item with what is nested under it, as Obsidian shows it.
			indent := len(before) - len(item)
			block := []string{strings.TrimRight(before, " \t")}
			for _, next := range lines[i+1:] {
				rest := strings.TrimLeft(next, " \t")
				if rest == "" {
					break
				}
				if len(next)-len(rest) <= indent {
					break
				}
				block = append(block, strings.TrimRight(next, " \t\r"))
			}
			return strings.TrimSpace(strings.Join(block, "\n")), true
		}
		start := i
		for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
			start--
		}
		block := append(append([]string{}, lines[start:i]...), before)
		out := strings.TrimSpace(strings.Join(block, "\n"))
		if out == "" { // the mark alone on its line names the block above it
			end := start - 1
			for end >= 0 && strings.TrimSpace(lines[end]) == "" {
				end--
			}
			s := end
			for s > 0 && strings.TrimSpace(lines[s-1]) != "" {
				s--
			}
			if end < 0 {
				return "", false
			}
			out = strings.TrimSpace(strings.Join(lines[s:end+1], "\n"))
		}
		return out, true
	}
	return "", false
}

// An embed in a section's text: where it is, and what it names.
type Embed struct {
	Start, End int    // the bytes of ![[…]] or ![…](…)
	Target     string // inside the brackets; a Markdown embed's destination, unescaped
	// Markdown: written as a Markdown image of a note (![](Note.md)), which
	// Obsidian embeds as it does ![[Note]] in a vault that does not use
	// wikilinks; its destination resolves as MarkdownTargets says.
	Markdown bool
}

// Embeds returns the embeds of notes in md that a reader sees: outside code
// (fenced or inline) and comments, not of attachments (images and other
// files stay references). Both forms count: ![[Note#Heading]] and, in a
// vault written with Markdown links, ![](Note.md#Heading).
func Embeds(md string) []Embed {
	var out []Embed
	hidden := hiddenRanges(md)
	for _, m := range embedLink().FindAllStringSubmatchIndex(md, -1) {
		target := md[m[2]:m[3]]
		if IsAttachmentTarget(target) || inRanges(hidden, m[0]) {
			continue
		}
		out = append(out, Embed{Start: m[0], End: m[1], Target: target})
	}
	if !strings.Contains(md, "](") {
		return out
	}
	for _, m := range imageLink().FindAllStringSubmatchIndex(md, -1) {
		target, ok := noteDestination(md[m[2]:m[3]])
		if !ok || inRanges(hidden, m[0]) {
			continue
		}
		out = append(out, Embed{Start: m[0], End: m[1], Target: target, Markdown: true})
	}
	slices.SortFunc(out, func(a, b Embed) int { return a.Start - b.Start })
	return out
}

// noteDestination is a Markdown image's destination when it names a note
// (a relative path to a .md file, with an optional #anchor): unescaped,
// without angle brackets or a title.
func noteDestination(dest string) (string, bool) {
	d, ok := destinationOf(dest)
	if !ok {
		return "", false
	}
	return NoteLink(d)
}

// destinationOf is a Markdown link's destination as written between its
// parentheses without the brackets of <a path with spaces> or the title
// that may follow it; false for an unclosed bracket.
func destinationOf(dest string) (string, bool) {
	dest = strings.TrimSpace(dest)
	if strings.HasPrefix(dest, "<") {
		end := strings.IndexByte(dest, '>')
		if end < 0 {
			return "", false
		}
		return dest[1:end], true
	}
	if i := strings.IndexAny(dest, " \t"); i >= 0 {
		dest = dest[:i] // a title follows
	}
	return dest, true
}

// NoteLink is a link destination (as the parser reads it: no brackets or
// title) unescaped, when it is a relative path to a note (.md), with an
// optional #anchor; MarkdownTargets reads it from there.
func NoteLink(dest string) (string, bool) {
	d := localLink(dest)
	file, _, _ := strings.Cut(d, "#")
	if d == "" || file == "" || strings.ToLower(path.Ext(file)) != ".md" {
		return "", false
	}
	return d, true
}

// Links are the embed's target as links to resolve from the note at
// notePath, to try in order: a wikilink embed's one, as EmbedTarget reads
// it; a Markdown embed's as MarkdownTargets reads its destination.
func (e Embed) Links(notePath string) []string {
	if !e.Markdown {
		return []string{EmbedTarget(e.Target, notePath)}
	}
	return MarkdownTargets(notePath, e.Target)
}

// MarkdownTargets are the links a Markdown link's or embed's destination
// (unescaped, with an optional #anchor) may name from the note at from, to
// try in order, as Obsidian resolves it: a bare file name ("Terms.md", what
// its default link format, "Shortest path when possible", writes) as a link
// name — an exact path, a file of that name in the note's folder, else the
// shortest path; "./" and "../" relative to the note's folder; another path
// first as a path in the vault, then relative to the note's folder. A
// destination that leaves the vault or names no note gives none, and a way
// whose path holds '#' or '|' (read relative to a folder named "C#") is
// none: a link cannot hold it.
func MarkdownTargets(from, dest string) []string {
	file, anchor, hasAnchor := strings.Cut(dest, "#")
	var out []string
	add := func(p string) {
		clean, err := vault.CleanPath(p)
		if err != nil || !vault.IsMemoryPath(clean) || strings.ContainsAny(clean, "#|") {
			return // a link is "path#heading" (embeds: "path#heading|alias"); a folder named C# cannot be in one
		}
		if hasAnchor {
			clean += "#" + anchor
		}
		if !slices.Contains(out, clean) {
			out = append(out, clean)
		}
	}
	relative := path.Join(path.Dir(from), file)
	switch {
	case strings.HasPrefix(file, "./") || strings.HasPrefix(file, "../"):
		add(relative)
	case !strings.Contains(file, "/"):
		add(file)
	default:
		add(file)
		add(relative)
	}
	return out
}

// EmbedTarget is an embed's target as a link to resolve from the note at
// notePath: `![[#Heading]]` and `![[#^id]]` name a part of that note
// itself, as in Obsidian, and read as its path and the anchor (unless the
// path holds a '#' or '|', which a link cannot: then it stays a reference).
func EmbedTarget(target, notePath string) string {
	name, _, _ := strings.Cut(target, "|")
	if name, anchor, ok := strings.Cut(name, "#"); ok && strings.TrimSpace(name) == "" && strings.TrimSpace(anchor) != "" && !strings.ContainsAny(notePath, "#|") {
		return notePath + "#" + strings.TrimSpace(target)[1:]
	}
	return target
}

// hiddenRanges are the byte ranges of md that are code or comments.
func hiddenRanges(md string) [][2]int {
	rs := commentSpans(md)
	b := []byte(md)
	off := 0
	var fence []byte
	fenceStart := 0
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		t := bytes.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && (bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~"))) {
			switch {
			case fence == nil:
				fence, fenceStart = t[:3], off
			case bytes.HasPrefix(t, fence):
				rs = append(rs, [2]int{fenceStart, off + len(line)})
				fence = nil
			}
		} else if fence == nil {
			// inline code spans on this line
			in := -1
			for i := 0; i < len(line); i++ {
				if line[i] == '`' {
					if in < 0 {
						in = i
					} else {
						rs = append(rs, [2]int{off + in, off + i + 1})
						in = -1
					}
				}
			}
		}
		off += len(line)
	}
	if fence != nil {
		rs = append(rs, [2]int{fenceStart, len(md)})
	}
	return rs
}

func inRanges(rs [][2]int, at int) bool {
	for _, r := range rs {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}

// SelfEmbed reports whether an embed's target, resolved to the note at
// from, names the note at path as a whole, the section whose heading path
// is heading, or a section above it (which shows that section too): a
// cycle.
func SelfEmbed(from, target, path string, heading []string) bool {
	if from != path {
		return false
	}
	_, anchor, _ := strings.Cut(target, "#")
	if anchor == "" {
		return true
	}
	parts := nestedAnchor(anchor)
	for k := len(heading); k > 0; k-- {
		if underHeadings(heading[:k], parts, eitherHeading) {
			return true
		}
	}
	return false
}

// ClipTokens cuts s to about max estimated tokens, at a line or word break,
// marking the cut with "…".
func ClipTokens(s string, max int) string {
	if vault.EstimateTokens(s) <= max {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi { // the longest prefix within max
		mid := (lo + hi + 1) / 2
		if vault.EstimateTokens(string(rs[:mid])) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := string(rs[:lo])
	if i := strings.LastIndexAny(cut, "\n "); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n") + " …"
}

// listMarker reports whether a line (its indentation removed) starts a list
// item: "- ", "* ", "+ ", or a number and "." or ")" and a space.
func listMarker(item string) bool {
	if strings.HasPrefix(item, "- ") || strings.HasPrefix(item, "* ") || strings.HasPrefix(item, "+ ") {
		return true
	}
	n := 0
	for n < len(item) && n < 9 && item[n] >= '0' && item[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(item) && (item[n] == '.' || item[n] == ')') && item[n+1] == ' '
}
