package retrieve

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"
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
	Embedded(ctx context.Context, target, project string) (text, path, draft string, ok bool, err error)
}

func expandEmbeds(ctx context.Context, src embedSource, content, path string, heading []string, project string, published bool) (string, error) {
	embeds := vault.Embeds(content)
	if len(embeds) == 0 {
		return content, nil
	}
	var b strings.Builder
	last, done := 0, 0
	for _, e := range embeds {
		if done == maxEmbeds {
			break
		}
		text, from, draft, ok, err := src.Embedded(ctx, e.Target, project)
		if err != nil {
			return "", err
		}
		if !ok || strings.TrimSpace(text) == "" || selfEmbed(from, e.Target, path, heading) || (published && draft != "") {
			continue
		}
		done++
		b.WriteString(content[last:e.End])
		b.WriteString("\n")
		b.WriteString(quote(clipTokens(text, embedTokens)))
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

// selfEmbed reports whether an embed names the fragment's own note as a
// whole or its own section (a cycle).
func selfEmbed(from, target, path string, heading []string) bool {
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

// clipTokens cuts s to about max estimated tokens, at a line or word break,
// marking the cut with "…".
func clipTokens(s string, max int) string {
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
