package retrieve

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/markdown"
)

// An embed (![[note]], ![[note#Heading]], ![[note#^block]]) shows the text
// it names in Obsidian; delivered as written, a section of embeds reached
// the agent as pointers and no text. A fragment is delivered with the text
// of each embed of a note after it, quoted: bounded (embedTokens each, at
// most maxEmbeds), one level deep (embeds inside that text stay
// references), never the fragment's own section again. Embeds of images and
// other attachments stay references. The fragment's content_hash remains
// its own section's: a change to the embedded note alone delivers that
// note's sections as replace when they are delivered, not this one.
const (
	embedTokens = 300
	maxEmbeds   = 4
)

// withEmbeds returns u's content with its embeds' text after them
// (published only: none from a Draft's text).
func (p *Pipeline) withEmbeds(ctx context.Context, u fts.Unit, project string, published bool) (string, error) {
	return expandEmbeds(ctx, p.look, u.Content, u.Path, u.HeadingPath, project, published)
}

// embedSource finds the text an embed names (fts.Lookups is one).
type embedSource interface {
	EmbedShown(ctx context.Context, e markdown.Embed, project, src string) (target, text, path, draft string, ok bool, err error)
}

func expandEmbeds(ctx context.Context, src embedSource, content, path string, heading []string, project string, published bool) (string, error) {
	embeds := markdown.Embeds(content)
	if len(embeds) == 0 {
		return content, nil
	}
	var b strings.Builder
	last, done := 0, 0
	for _, e := range embeds {
		if done == maxEmbeds {
			break
		}
		target, text, from, draft, ok, err := src.EmbedShown(ctx, e, project, path)
		if err != nil {
			return "", err
		}
		if !ok || strings.TrimSpace(text) == "" || markdown.SelfEmbed(from, target, path, heading) || (published && draft != "") {
			continue
		}
		done++
		b.WriteString(content[last:e.End])
		b.WriteString("\n")
		b.WriteString(quote(markdown.ClipTokens(text, embedTokens)))
		if rest := content[e.End:]; strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\n\n") && strings.TrimSpace(rest) != "" {
			b.WriteString("\n") // the quote ends before what follows
		}
		last = e.End
	}
	if done == 0 {
		return content, nil
	}
	b.WriteString(content[last:])
	return b.String(), nil
}

// quote prefixes each line of s with "> ".
func quote(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}
