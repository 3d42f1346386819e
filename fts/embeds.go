package fts

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// EmbedShown is Embedded for an embed as written in the note at src: each
// way it may resolve (markdown.Embed.Links; a Markdown embed's path may be
// read two ways) tried in order, the first that names a note answering.
// target is that way.
func (l Lookups) EmbedShown(ctx context.Context, e markdown.Embed, project, src string) (target, text, path, draft string, ok bool, err error) {
	for _, target = range e.Links(src) {
		if text, path, draft, ok, err = l.Embedded(ctx, target, project, src); err != nil || ok {
			return target, text, path, draft, ok, err
		}
	}
	return target, "", "", "", false, nil
}

// Embedded is the text an embed shows (![[note]], ![[note#Heading]],
// ![[note#^block]]) in the note at src: the note it names, resolved as a
// link from src is, in project's Effective Memory, and the part the anchor
// names — the whole body (without frontmatter), one section (all its
// chunks, under its heading), or one block (the paragraph or list item
// marked ^id, without the mark). ok is false when the target names no
// note, or the anchor nothing in it. draft is the Draft the text comes
// from ("" for published memory).
func (l Lookups) Embedded(ctx context.Context, target, project, src string) (text, path, draft string, ok bool, err error) {
	t := strings.TrimSpace(target)
	if i := strings.IndexByte(t, '|'); i >= 0 {
		t = t[:i]
	}
	name, anchor, _ := strings.Cut(t, "#")
	key := vault.LinkKey(name)
	if key == "" {
		return "", "", "", false, nil
	}
	got, err := l.ix.resolveKeys(ctx, []string{key}, project)
	if err != nil {
		return "", "", "", false, err
	}
	n, found := got[key]
	if !found {
		return "", "", "", false, nil
	}
	r := n.from(src)
	res, err := l.ix.loadExact(ctx, r.path, r.path, project)
	if vault.ErrorCode(err) == vault.CodeNotFound || vault.ErrorCode(err) == vault.CodeInvalid {
		return "", "", "", false, nil
	}
	if err != nil {
		return "", "", "", false, err
	}
	text, ok = markdown.EmbedPart([]byte(res.Content), res.Path, strings.TrimSpace(anchor))
	return text, res.Path, res.DraftID, ok, nil
}
