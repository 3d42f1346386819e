package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxFileBytes is the largest file lore indexes; larger files are skipped and
// reported (memory notes are small; a huge file is almost always a mistake).
const MaxFileBytes = 8 << 20

// Resource is one Markdown file of the vault, parsed.
type Resource struct {
	ID          string // frontmatter id, or a derived "path_…" id
	IDDerived   bool   // true when ID was derived from the path
	Path        string // vault-relative, normalized
	Project     string // "" for shared resources
	Title       string
	Description string
	ContentHash string // sha256:<hex> of the file's exact bytes
	Front       Frontmatter
	Links       []Link
	Units       []Unit
	// Rules are the guard rules the resource writes (frontmatter guard: list
	// and body-form bullets under a rules heading).
	Rules []RuleSpec
	// Problem is a non-fatal parse problem (bad frontmatter); the file is still
	// indexed as text.
	Problem string
}

// ScopeOf is a resource's scope on the wire: "project" for resources of a
// project (under projects/<name>/), "org" for shared ones.
func ScopeOf(project string) string {
	if project != "" {
		return "project"
	}
	return "org"
}

// Status returns the frontmatter status, "active" when absent.
func (r *Resource) Status() string {
	if r.Front.Status == "" {
		return "active"
	}
	return r.Front.Status
}

// Link is a reference from one note to another.
type Link struct {
	Kind    string // "wikilink", "markdown", "markdown_alt", "supersedes" or "superseded_by"
	Target  string // as written: a title, id or path (wikilink) or a vault path (markdown)
	Heading string // the #heading part, if any
}

// Unit is a retrievable piece of a resource: a heading section or a chunk of one.
type Unit struct {
	Key         string   // <resource_id>/<heading-slug>/<n>/<chunk>
	HeadingPath []string // e.g. ["MCP", "并发控制"]; empty for the preamble
	Slug        string
	Section     int // how many earlier sections share Slug
	Chunk       int
	Start, End  int // byte range in the file
	Line        int // the line Start is on (1 is the first)
	Content     string
	ContentHash string
	Tokens      int // estimated, see EstimateTokens
	// Bare: the section shows a reader nothing but its heading — comments,
	// images, embeds of attachments (SaysNothing).
	Bare bool
}

// HashBytes returns "sha256:<hex>" of b, allocating once.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	var sb strings.Builder
	sb.Grow(len("sha256:") + len(h))
	sb.WriteString("sha256:")
	sb.Write(h[:])
	return sb.String()
}

// DerivedID returns the id a file without a frontmatter id is known by.
func DerivedID(p string) string {
	sum := sha256.Sum256([]byte(p))
	return "path_" + hex.EncodeToString(sum[:8])
}

// JournalDiaryHeading is the heading of a journal note's diary section
// (the journal's remember writes it). A diary is read only by the journal's
// recall with include_diary, so its sections are never units: nothing
// searches, embeds or delivers them.
const JournalDiaryHeading = "Diary"

// Reidentify gives r a new id and rebuilds its unit keys (used when its
// frontmatter id is already taken by another file).
func (r *Resource) Reidentify(id string, derived bool) {
	r.ID, r.IDDerived = id, derived
	for i := range r.Units {
		u := &r.Units[i]
		u.Key = UnitKey(id, u.Slug, u.Section, u.Chunk)
	}
}

// MarkdownAlt is the kind of a link that is another path the Markdown link
// before it may resolve by: the link was written once, so it counts once.
const MarkdownAlt = "markdown_alt"
