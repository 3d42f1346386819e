package markdown

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// CheckContent refuses content lore cannot index: NUL bytes (binary files),
// invalid UTF-8 and files over MaxFileBytes. The error says which.
func CheckContent(p string, data []byte) error {
	if len(data) > vault.MaxFileBytes {
		return vault.Errorf(vault.CodeInvalid, "%s is %.1f MB, over the %d MiB limit for a memory file", p, float64(len(data))/1e6, vault.MaxFileBytes>>20)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return vault.Errorf(vault.CodeInvalid, "%s holds a NUL byte at offset %d: it looks binary, not Markdown", p, i)
	}
	if !utf8.Valid(data) {
		return vault.Errorf(vault.CodeInvalid, "%s is not valid UTF-8 (offset %d)", p, invalidUTF8Offset(data))
	}
	if line := conflictLine(data); line > 0 {
		// Mid-merge, both sides and git's markers would be searched and
		// delivered as one note ("<<<<<<< HEAD" as a section).
		return vault.Errorf(vault.CodeInvalid, "%s holds git's conflict markers (line %d): an unfinished merge; resolve the conflict (git status in the vault says how) and it is memory again", p, line)
	}
	return nil
}

// conflictLine returns the line of the first git conflict block in data
// (a "<<<<<<< " line, then "=======", then ">>>>>>> "), or 0.
func conflictLine(data []byte) int {
	if !bytes.Contains(data, []byte("<<<<<<< ")) {
		return 0
	}
	start, stage := 0, 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimRight(l, "\r")
		switch {
		case stage == 0 && bytes.HasPrefix(l, []byte("<<<<<<< ")):
			start, stage = i+1, 1
		case stage == 1 && bytes.Equal(l, []byte("=======")):
			stage = 2
		case stage == 2 && bytes.HasPrefix(l, []byte(">>>>>>> ")):
			return start
		}
	}
	return 0
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// Parse reads one memory file. It fails when CheckContent does, and with
// CodeInternal on a bug in the parser (a panic, which it recovers: one file
// never takes a process down); a bad frontmatter block is recorded in
// Resource.Problem and the file is parsed as text.
func Parse(p string, data []byte) (r *vault.Resource, err error) {
	if err := CheckContent(p, data); err != nil {
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			r, err = nil, vault.Errorf(vault.CodeInternal, "%s could not be parsed (a bug in lore: %v); it is left out of the index until it changes", p, v)
		}
	}()
	return parse(p, data), nil
}

func parse(p string, data []byte) *vault.Resource {
	r := &vault.Resource{Path: p, Project: vault.ProjectOf(p), ContentHash: vault.HashBytes(data)}
	bodyStart := 0
	if yml, start, found, unclosed := splitFrontmatter(data); found {
		bodyStart = start
		fm, err := parseFrontmatter(yml)
		r.Front = fm
		if err != nil {
			r.Problem = err.Error()
		}
	} else if unclosed {
		r.Problem = "frontmatter starts with '---' but has no closing '---' line; read as text"
	}
	r.ID = strings.TrimSpace(r.Front.ID)
	if r.ID == "" || strings.ContainsAny(r.ID, "/ \t\n") {
		if r.ID != "" {
			r.Problem = joinProblem(r.Problem, fmt.Sprintf("id %q may not contain '/' or spaces; using the derived id", r.ID))
		}
		r.ID, r.IDDerived = vault.DerivedID(p), true
	}
	doc := parseBody(data, bodyStart)
	r.Title = strings.TrimSpace(r.Front.Title)
	if r.Title == "" {
		r.Title = doc.firstH1
	}
	if r.Title == "" {
		r.Title = strings.TrimSuffix(path.Base(p), path.Ext(p))
	}
	r.Description = strings.TrimSpace(r.Front.Description)
	r.Links = append(doc.links, resolveMarkdownLinks(p, append(doc.mdLinks, doc.mdEmbeds...))...)
	for _, s := range r.Front.Supersedes {
		r.Links = append(r.Links, vault.Link{Kind: "supersedes", Target: s})
	}
	for _, s := range r.Front.SupersededBy {
		r.Links = append(r.Links, vault.Link{Kind: "superseded_by", Target: s})
	}
	r.Units = makeUnits(r.ID, data, doc.sections)
	if vault.IsJournalPath(p) {
		r.Units = dropDiary(r.Units)
	}
	r.Rules = append(rulesFromFrontmatter(r.Front.Guard), rulesFromBody(r.ID, data, doc.sections)...)
	if r.Problem != "" && len(r.Front.Guard.Content) == 0 && guardKey.Match(frontText(data)) {
		// A rule note whose frontmatter cannot be read would take its rules
		// with it, and the guard would count fewer rules and let the
		// change through: the note stands as an unreadable rule, which
		// blocks until it is fixed.
		r.Rules = append(r.Rules, vault.RuleSpec{ID: "(unreadable)", Kind: "deny", Severity: "error", Form: "frontmatter", Unreadable: true,
			Problem: "the note's frontmatter cannot be read (" + r.Problem + "), so its guard rules cannot be checked; fix the note"})
	}
	return r
}

// guardKey finds a top-level guard: key in a frontmatter's text.
var guardKey = regexp.MustCompile(`(?m)^guard[ \t]*:`)

// frontText is the text of a note's frontmatter, closed or not: the lines
// after a first "---" up to the next "---" (or the end).
func frontText(data []byte) []byte {
	if yml, _, found, _ := splitFrontmatter(data); found {
		return yml
	}
	if bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("---")) {
		return data[:min(len(data), 64<<10)]
	}
	return nil
}

func dropDiary(units []vault.Unit) []vault.Unit {
	out := units[:0]
	for _, u := range units {
		if !slices.Contains(u.HeadingPath, vault.JournalDiaryHeading) {
			out = append(out, u)
		}
	}
	return out
}

func joinProblem(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// resolveMarkdownLinks turns the local destinations of a note's Markdown
// links and embeds into links, each in every way it may resolve
// (MarkdownTargets), so that the note it names, wherever Obsidian finds
// it, counts it as a link and re-indexes an embed of it on an edit. The
// first way is of kind "markdown", the others MarkdownAlt.
func resolveMarkdownLinks(from string, dests []string) []vault.Link {
	var out []vault.Link
	for _, d := range dests {
		for i, t := range MarkdownTargets(from, d) {
			target, heading, _ := strings.Cut(t, "#")
			kind := "markdown"
			if i > 0 {
				kind = vault.MarkdownAlt
			}
			out = append(out, vault.Link{Kind: kind, Target: target, Heading: heading})
		}
	}
	return out
}
