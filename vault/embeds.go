package vault

import (
	"bytes"
	"strings"
)

// EmbedPart returns the part of a note an embed's anchor names: "" the
// whole body (without frontmatter); "^id" the block marked with it (its
// paragraph or list item, the mark removed); otherwise a heading (the last
// of "A#B" when nested), whose section's text it returns under the heading
// line. Headings compare case-insensitively, as Obsidian's do.
func EmbedPart(data []byte, p, anchor string) (string, bool) {
	body := Body(data)
	switch {
	case anchor == "":
		return strings.TrimSpace(string(body)), true
	case strings.HasPrefix(anchor, "^"):
		return blockOf(string(body), anchor[1:])
	}
	if i := strings.LastIndexByte(anchor, '#'); i >= 0 {
		anchor = anchor[i+1:]
	}
	r, err := Parse(p, data)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	key := -1
	for _, u := range r.Units {
		n := len(u.HeadingPath)
		if n == 0 || !strings.EqualFold(strings.TrimSpace(u.HeadingPath[n-1]), anchor) {
			if key >= 0 {
				break // the section ended
			}
			continue
		}
		if key >= 0 && u.Section != key {
			break // another section of the same heading
		}
		key = u.Section
		b.WriteString(u.Content)
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String()), key >= 0
}

// blockOf returns the block whose last line ends with " ^id": the list item
// on that line, or the paragraph that ends there, without the mark.
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
		if item := strings.TrimLeft(before, " \t"); strings.HasPrefix(item, "- ") || strings.HasPrefix(item, "* ") || strings.HasPrefix(item, "+ ") {
			return strings.TrimSpace(before), true
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
	Start, End int    // the bytes of ![[…]]
	Target     string // inside the brackets
}

// Embeds returns the embeds of notes in md that a reader sees: outside code
// (fenced or inline) and comments, not of attachments (images and other
// files stay references).
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
	return out
}

// hiddenRanges are the byte ranges of md that are code or comments.
func hiddenRanges(md string) [][2]int {
	var rs [][2]int
	for _, m := range hiddenComment().FindAllStringIndex(md, -1) {
		rs = append(rs, [2]int{m[0], m[1]})
	}
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
// from, names the note at path as a whole or its section heading (a cycle).
func SelfEmbed(from, target, path string, heading []string) bool {
	if from != path {
		return false
	}
	_, anchor, _ := strings.Cut(target, "#")
	if anchor == "" {
		return true
	}
	if i := strings.LastIndexByte(anchor, '#'); i >= 0 {
		anchor = anchor[i+1:]
	}
	return len(heading) > 0 && strings.EqualFold(strings.TrimSpace(heading[len(heading)-1]), strings.TrimSpace(anchor))
}

// ClipTokens cuts s to about max estimated tokens, at a line or word break,
// marking the cut with "…".
func ClipTokens(s string, max int) string {
	if EstimateTokens(s) <= max {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi { // the longest prefix within max
		mid := (lo + hi + 1) / 2
		if EstimateTokens(string(rs[:mid])) <= max {
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
