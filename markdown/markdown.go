package markdown

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/vault"
)

// section is a heading's byte range in the file (or the preamble's).
type section struct {
	start, contentStart, end int
	headingPath              []string
}

type parsedBody struct {
	firstH1  string
	sections []section
	links    []vault.Link // wikilinks
	mdLinks  []string     // local Markdown link destinations, unescaped (resolveMarkdownLinks)
	mdEmbeds []string     // Markdown images of notes: their destinations, unescaped (noteDestination)
}

var markdown = goldmark.New()

// wikilink matches [[target]], [[target|alias]], [[target#heading]] and
// [[target#heading|alias]], and the same embedded (![[…]]), with their
// parts: the '!', the target, the heading or block after '#', and the
// alias after '|'.
var (
	wikilink   = lazyre.New(wikilinkPattern)
	wikilinkAt = lazyre.New(`^` + wikilinkPattern) // anchored: wikilinkIndexes
)

const wikilinkPattern = `(!?)\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]`

// wikilinkIndexes is wikilink().FindAllSubmatchIndex(b, -1): every link's
// and its parts' byte ranges, leftmost first. A link starts at a "[[" or at
// the '!' just before one, so only those places are tried (the regexp
// package, for a pattern that opens with an optional '!', tried every byte:
// two fifths of parsing a note of the Obsidian Hub). A '!' whose link does
// not match leaves no link at its "[[" either: the rest is the same.
// TestWikilinkIndexes_AsTheRegexpFindsThem holds the two to one answer.
func wikilinkIndexes(b []byte) [][]int {
	var out [][]int
	for from := 0; ; {
		k := bytes.Index(b[from:], []byte("[["))
		if k < 0 {
			return out
		}
		k += from
		start := k
		if k > from && b[k-1] == '!' {
			start = k - 1
		}
		m := wikilinkAt().FindSubmatchIndex(b[start:])
		if m == nil {
			from = k + 1
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += start
			}
		}
		out = append(out, m)
		from = m[1]
	}
}

// LinkText is s with its wikilinks as Obsidian shows them: a link's alias,
// else its target, with " > " and the heading when it names one; an embed
// shows its target's content, not text, and is left out. A note's title
// taken from its first level-1 heading reads so, as the heading reads in
// Obsidian: "# An Introduction to [[dataview|Dataview]]" titles the note
// "An Introduction to Dataview", not the link's markup.
func LinkText(s string) string {
	if !strings.Contains(s, "[[") {
		return s
	}
	s = wikilink().ReplaceAllStringFunc(s, func(m string) string {
		p := wikilink().FindStringSubmatch(m)
		target, heading, alias := strings.TrimSpace(p[2]), strings.TrimSpace(p[3]), strings.TrimSpace(p[4])
		switch {
		case p[1] == "!":
			return ""
		case alias != "":
			return alias
		}
		return ShownLink(target, heading)
	})
	return strings.Join(strings.Fields(s), " ")
}

// ShownHeadings is a heading path as Obsidian shows its headings, each
// read by LinkText ("An Introduction to [[dataview|Dataview]]" → "An
// Introduction to Dataview"), as a note's title already is; hp itself when
// no heading holds a link. A heading that is only an embed keeps its
// markup, so that no heading reads as empty. The index keeps the headings
// as written: links and embeds name a heading by its written text.
func ShownHeadings(hp []string) []string {
	i := slices.IndexFunc(hp, func(h string) bool { return strings.Contains(h, "[[") })
	if i < 0 {
		return hp
	}
	out := slices.Clone(hp)
	for ; i < len(out); i++ {
		if shown := LinkText(out[i]); shown != "" {
			out[i] = shown
		}
	}
	return out
}

// ShownLink is how Obsidian shows a link with no alias: its target, with
// " > " and the heading or block when it names one ("Refund policy >
// Discounts"), or the heading alone for a part of the same note
// ([[#Discounts]]).
func ShownLink(target, heading string) string {
	switch {
	case target == "":
		return heading
	case heading != "":
		return target + " > " + heading
	}
	return target
}

// parseBody parses data[bodyStart:] with goldmark and returns the sections
// (offsets into data), the first level-1 heading, and the links outside code.
func parseBody(data []byte, bodyStart int) parsedBody {
	body := data[bodyStart:]
	bounded := boundForParse(body) // same offsets; see parsebound.go
	doc := markdown.Parser().Parse(text.NewReader(bounded))
	var out parsedBody
	out.sections, out.firstH1 = headingSections(doc, body, bounded, bodyStart)
	masked := append([]byte(nil), body...)
	out.mdLinks, out.mdEmbeds = maskCode(doc, masked)
	part := func(m []int, g int) string {
		if m[2*g] < 0 {
			return ""
		}
		return strings.TrimSpace(string(masked[m[2*g]:m[2*g+1]]))
	}
	for _, m := range wikilinkIndexes(masked) {
		target := part(m, 2)
		if target == "" {
			continue
		}
		out.links = append(out.links, vault.Link{Kind: "wikilink", Target: target, Heading: part(m, 3)})
	}
	return out
}

// headingSections cuts the body (which starts at bodyStart of its file) at
// its headings: each section with its byte range, where its content starts
// (after the heading line, or a setext underline) and its heading path; the
// text before the first heading is a section with none. It also returns the
// note's title heading as shown (LinkText): the first heading that shows
// text, if it is of level 1. A note that starts with level-2 sections has
// no title heading, though an H1 comes later: the Obsidian Hub's footer,
// "# This note in GitHub", titled six of its notes so.
//
// Lines are read off parsed, the copy goldmark parsed (same offsets as
// body, see parsebound.go), so a heading's line is the line the parser saw; the
// heading's text comes from body. Whatever the parser answers, the sections
// come out in order, within the body, and without overlap: a heading that
// would start before the previous one's content ends is read as text.
func headingSections(doc ast.Node, body, parsed []byte, bodyStart int) (secs []section, firstH1 string) {
	type open struct {
		level int
		text  string
	}
	var stack []open
	titled := false // the heading that may title the note has been seen
	prev := section{start: bodyStart, contentStart: bodyStart, headingPath: nil}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		first, last := h.Lines().At(0), h.Lines().At(h.Lines().Len()-1)
		start := lineStart(parsed, first.Start)
		contentStart := lineEnd(parsed, last.Stop)
		if t := bytes.TrimLeft(parsed[start:min(first.Start, len(parsed))], " "); len(t) == 0 || t[0] != '#' {
			contentStart = lineEnd(parsed, contentStart) // setext: skip the underline
		}
		if bodyStart+start < prev.contentStart || contentStart < start {
			continue
		}
		title := strings.TrimSpace(inlineText(h, body))
		if title == "" {
			continue
		}
		prev.end = bodyStart + start
		secs = append(secs, prev)
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{h.Level, title})
		hp := make([]string, len(stack))
		for i, o := range stack {
			hp[i] = o.text
		}
		if !titled {
			// The first heading that shows text titles the note if it is
			// of level 1; a later H1 (a footer below ## sections) is a part.
			if shown := LinkText(title); shown != "" {
				titled = true
				if h.Level == 1 {
					firstH1 = shown
				}
			}
		}
		prev = section{start: bodyStart + start, contentStart: bodyStart + contentStart, headingPath: hp}
	}
	prev.end = bodyStart + len(body)
	secs = append(secs, prev)
	return secs, firstH1
}

// maskCode blanks code (blocks, spans, HTML blocks) in masked, so no
// wikilink is found inside it, and returns the local Markdown links and the
// destinations of Markdown images of notes (embeds).
func maskCode(doc ast.Node, masked []byte) (mdLinks, mdEmbeds []string) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				blank(masked, s.Start, s.Stop)
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					blank(masked, t.Segment.Start, t.Segment.Stop)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if d := localLink(string(n.Destination)); d != "" {
				mdLinks = append(mdLinks, d)
			}
		case *ast.Image: // ![](Note.md) embeds a note: a link to it
			if d, ok := NoteLink(string(n.Destination)); ok {
				mdEmbeds = append(mdEmbeds, d)
			}
		}
		return ast.WalkContinue, nil
	})
	return mdLinks, mdEmbeds
}

// localLink returns the unescaped destination of a relative link to another
// file, or "" for URLs, anchors and absolute paths.
func localLink(dest string) string {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") {
		return ""
	}
	if u, err := url.Parse(dest); err != nil || u.Scheme != "" || u.Host != "" {
		return ""
	}
	if un, err := url.PathUnescape(dest); err == nil {
		dest = un
	}
	return dest
}

func blank(b []byte, from, to int) {
	for i := from; i < to && i < len(b); i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}

func lineStart(b []byte, i int) int {
	if i > len(b) {
		i = len(b)
	}
	return bytes.LastIndexByte(b[:i], '\n') + 1
}

func lineEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	j := bytes.IndexByte(b[i:], '\n')
	if j < 0 {
		return len(b)
	}
	return i + j + 1
}

// inlineText returns the plain text of a node's inline children.
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		default:
			sb.WriteString(inlineText(c, src))
		}
	}
	return sb.String()
}
