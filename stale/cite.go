package stale

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/vault"
)

// The kinds of citation (vault.CodeFinding.Kind).
const (
	KindPath       = "path"
	KindLines      = "lines"
	KindIdentifier = "identifier"
	KindCommit     = "commit"
)

// Citation is one thing a note cites in the code.
type Citation struct {
	Kind     string
	Text     string // as the note writes it
	Path     string // path, lines: the file (or folder); identifier: "" (Scope says where)
	From, To int    // lines: the range, 1-based and inclusive
	Ident    string // identifier: the name looked for as a word (Store.Merge: Merge)
	Commit   string // commit: the id as written (7 to 40 hex digits)
	// Scope is where an identifier is looked for: the paths its section
	// cites; none means the whole repository.
	Scope       []string
	HeadingPath []string
	Line        int // the note's line; 0 for the frontmatter's code: list

	// the lines of the section it is in, whose last change is when the
	// citation was last vouched for (0, 0: the whole note)
	sectionFrom, sectionTo int
}

// What counts as a citation. Prose never does: only a code span, a link
// into the code repository, the frontmatter's code: list, and a commit id
// the line calls a commit.
//
//   - A path: a code span of path characters with a file extension
//     (retry.go, sync/retry.go) or with a slash between two names
//     (cmd/lore, internal/http/), optionally with :40, :40-60, #L40 or
//     #L40-L60; or a link to a file of the code repository's own remote
//     (…/blob/REF/PATH#L40-L60).
//   - An identifier: a code span that reads as a name in code and could
//     not be a word of prose: a dotted name (Store.Merge), a call
//     (backoffFor()), snake_case, or camelCase with a lower-case letter
//     before a capital (backoffFor, ListUsers).
//   - A commit: a code span of 7 to 40 hex digits, with a letter and a
//     digit, on a line that says "commit", or a link to one of the
//     remote's commits (…/commit/ID).
//
// The check (check.go) then asks the code repository: a path or an
// identifier that the repository never had is not a citation of it (a
// vault path, a config key, a command of another tool) and raises
// nothing. That is what keeps prose from turning into false alarms.
var (
	pathSpan    = lazyre.New(`^((?:\.{0,2}/)?[\w.\-]+(?:/[\w.\-]+)*/?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)?$`)
	identSpan   = lazyre.New(`^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(?:\(\))?$`)
	hexSpan     = lazyre.New(`^[0-9a-f]{7,40}$`)
	commitWord  = lazyre.New(`(?i)\bcommit(?:s|ted)?\b`)
	codeLink    = lazyre.New(`https?://[^\s)>\]]+`)
	camelInside = lazyre.New(`[a-z0-9][A-Z]`)
	lineFrag    = lazyre.New(`^L(\d+)(?:-L(\d+))?$`)
)

// extensions are the file name endings a path citation may have: code,
// build files and the configuration next to them.
var extensions = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go mod sum c h cc cpp hpp cxx m mm rs py pyi rb java kt kts scala
		clj ex exs erl hrl hs ml mli fs cs vb swift dart lua pl pm php r jl zig nim
		js mjs cjs ts tsx jsx vue svelte css scss sass less html htm tmpl tpl
		sh bash zsh fish ps1 bat sql proto graphql gql thrift avsc
		json jsonc yaml yml toml ini cfg conf env properties xml gradle lock
		md rst txt csv tf hcl nix cmake mk bzl bazel star dockerfile`) {
		m[e] = true
	}
	return m
})

// Cite reads the citations of a parsed note r (raw: its bytes). origin is
// the code repository's remote ("host/owner/name", "" when it has none):
// links count only into it.
func Cite(r *vault.Resource, raw []byte, origin string) []Citation {
	var out []Citation
	for _, s := range r.Front.Code {
		out = append(out, citeSpan(strings.TrimSpace(s), true)...)
	}
	for _, u := range r.Units {
		if u.Start < 0 || u.Start > u.End || u.End > len(raw) {
			continue
		}
		var section []Citation
		inFence := ""
		lines := strings.Split(string(raw[u.Start:u.End]), "\n")
		for i, line := range lines {
			if f := fence(line); f != "" {
				switch {
				case inFence == "":
					inFence = f
				case strings.HasPrefix(strings.TrimSpace(line), inFence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), inFence[:1])) == "":
					inFence = ""
				}
				continue
			}
			if inFence != "" {
				continue
			}
			for _, c := range citeLine(line, origin) {
				c.HeadingPath, c.Line = u.HeadingPath, u.Line+i
				c.sectionFrom, c.sectionTo = u.Line, u.Line+len(lines)-1
				section = append(section, c)
			}
		}
		out = append(out, scoped(section)...)
	}
	out = dedupe(out)
	if len(out) > MaxCitations {
		out = out[:MaxCitations]
	}
	return out
}

// MaxCitations is how many of a note's citations are checked (its first):
// what one note can make the check do is bounded.
const MaxCitations = 500

// scoped gives each identifier of a section the paths the section cites.
func scoped(section []Citation) []Citation {
	var files []string
	for _, c := range section {
		if (c.Kind == KindPath || c.Kind == KindLines) && !strings.HasSuffix(c.Path, "/") && !slices.Contains(files, c.Path) {
			files = append(files, c.Path)
		}
	}
	for i := range section {
		if section[i].Kind == KindIdentifier {
			section[i].Scope = files
		}
	}
	return section
}

// fence returns the fence a line opens or closes (``` or ~~~, up to three
// spaces in), else "".
func fence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			n := len(t) - len(strings.TrimLeft(t, f[:1]))
			return strings.Repeat(f[:1], n)
		}
	}
	return ""
}

// citeLine reads one line of prose: its code spans and its links.
func citeLine(line, origin string) []Citation {
	var out []Citation
	for _, span := range codeSpans(line) {
		if hexSpan().MatchString(span) {
			if hasLetterAndDigit(span) && commitWord().MatchString(line) {
				out = append(out, Citation{Kind: KindCommit, Text: span, Commit: span})
			}
			continue
		}
		out = append(out, citeSpan(span, false)...)
	}
	if origin != "" && strings.Contains(line, "://") {
		for _, u := range codeLink().FindAllString(line, -1) {
			if c, ok := citeLink(u, origin); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// citeSpan reads a code span (or an entry of the frontmatter's code:
// list, where a bare commit id needs no "commit" beside it).
func citeSpan(s string, listed bool) []Citation {
	if s == "" || len(s) > 300 {
		return nil
	}
	if hexSpan().MatchString(s) {
		if listed && hasLetterAndDigit(s) {
			return []Citation{{Kind: KindCommit, Text: s, Commit: s}}
		}
		return nil
	}
	if m := pathSpan().FindStringSubmatch(s); m != nil && looksLikePath(m[1]) {
		p := path.Clean(strings.TrimPrefix(m[1], "./"))
		if strings.HasSuffix(m[1], "/") {
			p += "/"
		}
		c := Citation{Kind: KindPath, Text: s, Path: p}
		from, to := m[2]+m[4], m[3]+m[5]
		if from != "" && !strings.HasSuffix(p, "/") {
			c.Kind = KindLines
			c.From, _ = strconv.Atoi(from)
			c.To = c.From
			if to != "" {
				c.To, _ = strconv.Atoi(to)
			}
			if c.From < 1 || c.To < c.From || c.To-c.From > 2000 {
				return nil
			}
		}
		return []Citation{c}
	}
	if identSpan().MatchString(s) && looksLikeCode(s) {
		name := strings.TrimSuffix(s, "()")
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		if len(name) >= 3 {
			return []Citation{{Kind: KindIdentifier, Text: s, Ident: name}}
		}
	}
	return nil
}

// looksLikePath: a file name with an extension lore knows, or names
// joined by a slash, inside the repository (no "..", not absolute).
func looksLikePath(p string) bool {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
	if strings.Contains(p, "/") {
		for _, part := range strings.Split(p, "/") {
			if strings.Trim(part, ".") == "" { // "", ".", "..": a way out, or no name
				return false
			}
		}
		return true
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(p), "."))
	base := strings.TrimSuffix(p, path.Ext(p))
	return extensions()[ext] && base != "" && !strings.Contains(base, ".")
}

// looksLikeCode: a name prose would not write.
func looksLikeCode(s string) bool {
	return strings.ContainsAny(s, "._$") || strings.Contains(s, "::") || strings.HasSuffix(s, "()") || camelInside().MatchString(s) && s != strings.ToUpper(s)
}

// citeLink reads a link into the code repository's remote: a file (blob or
// tree, with an optional #L40-L60) or a commit.
func citeLink(u, origin string) (Citation, bool) {
	rest, ok := strings.CutPrefix(stripScheme(u), origin+"/")
	if !ok {
		return Citation{}, false
	}
	rest, frag, _ := strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) >= 2 && (parts[0] == "commit" || parts[0] == "commits") && hexSpan().MatchString(parts[1]):
		return Citation{Kind: KindCommit, Text: u, Commit: parts[1]}, true
	case len(parts) >= 3 && (parts[0] == "blob" || parts[0] == "tree"):
		p := strings.Join(parts[2:], "/")
		if p == "" || !vaultSafe(p) {
			return Citation{}, false
		}
		c := Citation{Kind: KindPath, Text: u, Path: p}
		if m := lineFrag().FindStringSubmatch(frag); m != nil {
			c.Kind = KindLines
			c.From, _ = strconv.Atoi(m[1])
			c.To = c.From
			if m[2] != "" {
				c.To, _ = strconv.Atoi(m[2])
			}
			if c.From < 1 || c.To < c.From {
				return Citation{}, false
			}
		}
		return c, true
	}
	return Citation{}, false
}

// vaultSafe: a relative path with no way out.
func vaultSafe(p string) bool {
	c := path.Clean(p)
	return c == p && c != "." && within.Dir(".", filepath.FromSlash(c))
}

// stripScheme returns a URL as host/path, lower-cased host, no scheme.
func stripScheme(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, p, _ := strings.Cut(rest, "/")
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	return strings.ToLower(host) + "/" + p
}

// Origin normalizes a remote URL (https://host/o/n.git, git@host:o/n,
// ssh://git@host/o/n) to "host/o/n", the form a link into it starts with.
// "" when url is not a remote of that shape (a local path).
func Origin(url string) string {
	url = strings.TrimSpace(url)
	if !strings.Contains(url, "://") {
		at, rest, ok := strings.Cut(url, ":")
		if !ok || strings.Contains(at, "/") || rest == "" {
			return ""
		}
		url = "ssh://" + at + "/" + rest
	}
	if strings.HasPrefix(url, "file://") {
		return ""
	}
	s := strings.TrimSuffix(strings.TrimSuffix(stripScheme(url), "/"), ".git")
	if host, _, _ := strings.Cut(s, "/"); host != "" {
		if h, _, ok := strings.Cut(host, ":"); ok { // a port
			s = h + s[len(host):]
		}
	}
	if strings.Count(s, "/") < 2 {
		return ""
	}
	return s
}

// codeSpans returns a line's code spans (`x`, “x“), their text trimmed
// of one space each side as CommonMark does.
func codeSpans(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		open := strings.Repeat("`", n)
		j := i + n
		found := false
		for j < len(line) {
			k := strings.Index(line[j:], open)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(line) && line[k+m] == '`' {
				m++
			}
			if m == n {
				s := line[i+n : k]
				if len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
					s = s[1 : len(s)-1]
				}
				out = append(out, strings.TrimSpace(s))
				i, found = k+n, true
				break
			}
			j = k + m
		}
		if !found {
			i += n
		}
	}
	return out
}

func hasLetterAndDigit(s string) bool {
	return strings.ContainsAny(s, "abcdef") && strings.ContainsAny(s, "0123456789")
}

// dedupe keeps a citation once per section.
func dedupe(cs []Citation) []Citation {
	seen := map[string]bool{}
	out := cs[:0]
	for _, c := range cs {
		k := strings.Join(c.HeadingPath, "\x00") + "\x01" + c.Kind + "\x01" + c.Text
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}
