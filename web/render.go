package web

import (
	"bytes"
	"context"
	"html"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Rendering a note for the page: Markdown through goldmark (raw HTML in it
// is left out), with Obsidian's wikilinks, and Markdown links and embeds
// of notes ([x](Note.md), ![](Note.md)), as links to the notes they name
// (resolved as lore resolves links: title, alias or base name, the same tie
// rule; a Markdown destination as markdown.MarkdownTargets reads it) and
// images shown from the vault itself. The page loads a vault
// image through the API with its token (an <img> cannot send it); a remote
// image is never loaded (lore serve opens no connection anywhere, and a
// note's remote image would tell a third party that it was read), and the
// page says so where it would be.

// resolver names the note a wikilink target resolves to ("" when none).
type resolver func(target string) (id string)

// renderNote renders Markdown for the page; from is the note's path, which
// its Markdown links are read from (markdown.MarkdownTargets).
func renderNote(src, from string, resolve resolver) string {
	md := goldmark.New(
		goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(wikiParser{}, 150))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(&pageRenderer{resolve: resolve, from: from, opened: map[ast.Node]string{}}, 100))),
	)
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return ""
	}
	return b.String()
}

// render renders Markdown without resolving wikilinks (fragments of runs
// and sessions, where the page has no project to resolve them in): a
// wikilink is shown as its label.
func render(src string) string {
	return renderNote(src, "", nil)
}

var kindWiki = ast.NewNodeKind("WikiLink")

// wikiNode is [[target#heading|label]] or, embedded, ![[…]].
type wikiNode struct {
	ast.BaseInline
	target, heading, label string
	embed                  bool
}

func (n *wikiNode) Kind() ast.NodeKind                 { return kindWiki }
func (n *wikiNode) Dump(src []byte, level int)         { ast.DumpHelper(n, src, level, nil, nil) }
func (wikiParser) Trigger() []byte                     { return []byte{'[', '!'} }
func (wikiParser) CloseBlock(ast.Node, parser.Context) {}

type wikiParser struct{}

func (wikiParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	embed := false
	rest := line
	if len(rest) > 0 && rest[0] == '!' {
		embed, rest = true, rest[1:]
	}
	if !bytes.HasPrefix(rest, []byte("[[")) {
		return nil
	}
	end := bytes.Index(rest, []byte("]]"))
	if end < 2 || bytes.ContainsAny(rest[2:end], "[\n") {
		return nil
	}
	inner := string(rest[2:end])
	n := &wikiNode{embed: embed}
	target, label, hasLabel := strings.Cut(inner, "|")
	n.target, n.heading, _ = strings.Cut(target, "#")
	n.target, n.heading = strings.TrimSpace(n.target), strings.TrimSpace(n.heading)
	n.label = strings.TrimSpace(label)
	if !hasLabel || n.label == "" {
		n.label = markdown.ShownLink(n.target, n.heading)
	}
	consumed := end + 2
	if embed {
		consumed++
	}
	block.Advance(consumed)
	return n
}

// pageRenderer renders wikilinks, Markdown links and images for the page.
type pageRenderer struct {
	resolve resolver
	from    string              // the note's path
	opened  map[ast.Node]string // a link's closing tag, from entering to leaving it
}

func (r *pageRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindWiki, r.wiki)
	reg.Register(ast.KindImage, r.image)
	reg.Register(ast.KindLink, r.link)
}

// note resolves a Markdown link's or embed's destination to the note it
// names, as Obsidian does (markdown.MarkdownTargets): whether it names a note
// at all, the note's id ("" when none is found) and the heading or block.
func (r *pageRenderer) note(dest string) (isNote bool, id, heading string) {
	d, ok := markdown.NoteLink(dest)
	if !ok {
		return false, "", ""
	}
	targets := markdown.MarkdownTargets(r.from, d)
	if len(targets) == 0 {
		return false, "", ""
	}
	for _, t := range targets {
		file, h, _ := strings.Cut(t, "#")
		if r.resolve != nil {
			if id = r.resolve(file); id != "" {
				return true, id, h
			}
		}
		heading = h
	}
	return true, "", heading
}

// noteHref is the page's address of a note, at a heading or block; with
// no id, of a heading or block of the page's own note ([[#Heading]]).
func noteHref(id, heading string) string {
	href := ""
	if id != "" {
		href = "/note/" + url.PathEscape(id)
	}
	if heading != "" {
		href += "#" + url.PathEscape(vault.Slugify(strings.TrimPrefix(heading, "^")))
	}
	return href
}

// link renders a Markdown link: to a note, as a wikilink to it is; to
// anything else, as goldmark does (a dangerous URL without its href).
func (r *pageRenderer) link(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	if !entering {
		w.WriteString(r.opened[n])
		delete(r.opened, n)
		return ast.WalkContinue, nil
	}
	dest := string(n.Destination)
	if isNote, id, heading := r.note(dest); isNote && r.resolve != nil {
		if id == "" {
			w.WriteString(`<span class="wikilink missing" title="no note is at ` + html.EscapeString(dest) + `">`)
			r.opened[n] = "</span>"
			return ast.WalkContinue, nil
		}
		w.WriteString(`<a class="wikilink" href="` + html.EscapeString(noteHref(id, heading)) + `" data-note="` + html.EscapeString(id) + `">`)
		r.opened[n] = "</a>"
		return ast.WalkContinue, nil
	}
	w.WriteString(`<a href="`)
	if !gmhtml.IsDangerousURL(n.Destination) {
		w.Write(util.EscapeHTML(util.URLEscape(n.Destination, true)))
	}
	w.WriteString(`"`)
	if n.Title != nil {
		w.WriteString(` title="`)
		w.Write(util.EscapeHTML(n.Title))
		w.WriteString(`"`)
	}
	w.WriteString(">")
	r.opened[n] = "</a>"
	return ast.WalkContinue, nil
}

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".svg": true, ".bmp": true, ".avif": true}

func (r *pageRenderer) wiki(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*wikiNode)
	if n.embed && imageExt[strings.ToLower(path.Ext(n.target))] {
		w.WriteString(`<img class="attachment" alt="` + html.EscapeString(n.target) + `" data-attachment="` + html.EscapeString(n.target) + `">`)
		return ast.WalkSkipChildren, nil
	}
	label := n.label
	if n.embed {
		label = "↳ " + label
	}
	if r.resolve == nil {
		w.WriteString(`<span class="wikilink">` + html.EscapeString(label) + `</span>`)
		return ast.WalkSkipChildren, nil
	}
	id := ""
	if n.target != "" {
		id = r.resolve(n.target)
	}
	if id == "" && n.target != "" {
		w.WriteString(`<span class="wikilink missing" title="no note is named ` + html.EscapeString(n.target) + `">` + html.EscapeString(label) + `</span>`)
		return ast.WalkSkipChildren, nil
	}
	href := noteHref(id, n.heading) // id is "" for [[#Heading]]: this note
	class := "wikilink"
	if n.embed {
		class += " embed"
	}
	w.WriteString(`<a class="` + class + `" href="` + html.EscapeString(href) + `" data-note="` + html.EscapeString(id) + `">` + html.EscapeString(label) + `</a>`)
	return ast.WalkSkipChildren, nil
}

func (r *pageRenderer) image(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	dest := string(n.Destination)
	alt := plainText(n, src)
	if isNote, id, heading := r.note(dest); isNote {
		// ![](Note.md) embeds a note, as ![[Note]] does: a link to it here.
		label := "↳ " + orText(alt, dest)
		switch {
		case r.resolve == nil:
			w.WriteString(`<span class="wikilink">` + html.EscapeString(label) + `</span>`)
		case id == "":
			w.WriteString(`<span class="wikilink missing" title="no note is at ` + html.EscapeString(dest) + `">` + html.EscapeString(label) + `</span>`)
		default:
			w.WriteString(`<a class="wikilink embed" href="` + html.EscapeString(noteHref(id, heading)) + `" data-note="` + html.EscapeString(id) + `">` + html.EscapeString(label) + `</a>`)
		}
		return ast.WalkSkipChildren, nil
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "/") {
		w.WriteString(`<span class="remote-image" title="` + html.EscapeString(dest) + `">remote image not loaded: ` + html.EscapeString(orText(alt, dest)) + ` (lore serve loads nothing from the network)</span>`)
		return ast.WalkSkipChildren, nil
	}
	if un, err := url.PathUnescape(dest); err == nil {
		dest = un
	}
	w.WriteString(`<img class="attachment" alt="` + html.EscapeString(alt) + `" data-attachment="` + html.EscapeString(dest) + `">`)
	return ast.WalkSkipChildren, nil
}

// plainText is the text of a node's inline children.
func plainText(n ast.Node, src []byte) string {
	var sb strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			sb.Write(t.Segment.Value(src))
		} else {
			sb.WriteString(plainText(c, src))
		}
	}
	return sb.String()
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// resolverFor resolves the wikilinks of the note at src in project's
// memory through ix.
func (s *Server) resolverFor(ctx context.Context, project, src string) resolver {
	return func(target string) string {
		id, _, err := s.ix.ResolveLink(ctx, target, project, src)
		if err != nil {
			return ""
		}
		return id
	}
}
