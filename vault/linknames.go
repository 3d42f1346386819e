package vault

import (
	"path"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Links are resolved the way Obsidian resolves them, so a vault edited there
// links the same in lore: a link target may be a note's id, its path (with or
// without .md), its file's base name without the extension (Obsidian's
// default form, [[adr-012-redlock]]), its title, or one of its frontmatter
// aliases, compared case-insensitively. Obsidian itself resolves only paths
// and file names (a bare [[alias]] is unresolved there; its link suggester
// writes [[file|alias]]); lore's id, title and alias answer too, but a title
// or an alias never takes a link from the file the link names. When several
// notes answer to one name, the tie goes to the strongest kind of name
// (NameID, then NamePath, NameBase, NameTitle, NameAlias); among files of
// the name (NameBase), a link goes to the one in its own note's folder, as
// in Obsidian; then to the shortest path, then to the path that sorts
// first: one rule everywhere lore resolves a link (fts: named.from).

// Kinds of names a note answers to, strongest first. The index stores them
// (its names table): a change of order is a change of IndexFormat.
const (
	NameID = iota
	NamePath
	NameBase
	NameTitle
	NameAlias
)

// Name is one name a note answers to, as a LinkKey.
type Name struct {
	Key  string
	Kind int
}

// LinkKey is the form link targets and names are compared in: the target
// without [[ ]], without its |alias and #heading parts, without a leading
// "./" or "/" and a trailing ".md", trimmed, NFC and lower-cased.
func LinkKey(target string) string {
	t := strings.TrimSpace(target)
	t = strings.TrimSuffix(strings.TrimPrefix(t, "[["), "]]")
	if i := strings.IndexByte(t, '|'); i >= 0 {
		t = t[:i]
	}
	if i := strings.IndexByte(t, '#'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "./"), "/")
	if strings.HasSuffix(strings.ToLower(t), ".md") {
		t = t[:len(t)-3]
	}
	return strings.ToLower(norm.NFC.String(t))
}

// NameKey is a query or a load target as a name, for finding a note by
// name (lore search's exact stage, load): LinkKey's form, except that '#'
// and '|' are part of the name ("C# tips" is not "C").
func NameKey(q string) string {
	t := strings.TrimSpace(q)
	if strings.HasPrefix(t, "[[") && strings.HasSuffix(t, "]]") {
		return LinkKey(t)
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "./"), "/")
	if strings.HasSuffix(strings.ToLower(t), ".md") {
		t = t[:len(t)-3]
	}
	return strings.ToLower(norm.NFC.String(strings.TrimSpace(t)))
}

// Names returns the names the note answers to, each once (a name that two
// kinds give is kept as the stronger kind).
func (r *Resource) Names() []Name {
	var out []Name
	seen := map[string]bool{}
	add := func(s string, kind int) {
		if k := LinkKey(s); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, Name{k, kind})
		}
	}
	add(r.ID, NameID)
	add(r.Path, NamePath)
	add(path.Base(r.Path), NameBase)
	add(r.Title, NameTitle)
	for _, a := range r.Front.Aliases {
		add(a, NameAlias)
	}
	return out
}
