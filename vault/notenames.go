package vault

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/lore-memory/lore/internal/lazyre"
)

// Notes that lore names itself (flush_session) follow the vault's own
// style, learned from the notes already in the target folder: a folder
// whose notes are numbered ("adr-012-redlock.md", "0007-sync.md") gets the
// next number with the same prefix and width; one whose notes start with a
// date ("2026-10-08-retry-storm.md") gets today's date; one of plain names
// gets a plain name. An empty folder falls back to the category's default:
// decisions numbered "0001-slug", logs dated, everything else plain. A
// number the title states ("ADR 016: …") is used when it is free and the
// style is numbered, and is never repeated in the slug.

var (
	datedName    = lazyre.New(`^(\d{4}-\d{2}-\d{2})[-_ ]`)
	numberedName = lazyre.New(`^([A-Za-z]{0,12}[-_]?)(\d{1,6})[-_ ]`)
	titleNumber  = lazyre.New(`^\s*(?i:adr|rfc|dec|decision|log)?[\s#_-]*(\d{1,6})\b[\s:.\-–—]*`)
)

// CategoryFolders are the folders a category's notes are looked for in when
// lore.yaml's folders: does not name one, in order of preference.
var CategoryFolders = map[string][]string{
	"decision": {"decisions", "adr", "adrs", "ADR", "docs/adr", "doc/adr", "architecture/decisions"},
	"adr":      {"decisions", "adr", "adrs", "ADR", "docs/adr", "doc/adr", "architecture/decisions"},
	"log":      {"logs", "log", "worklog", "daily"},
	"concept":  {"concepts", "cards", "concept"},
	"card":     {"concepts", "cards", "card"},
	"skill":    {"skills"},
	"incident": {"incidents", "postmortems"},
}

// NoteName returns the path (folder/name.md) of a new note titled title in
// folder, whose existing notes' base names are existing, in their style;
// a name already taken gets a counter.
func NoteName(folder string, existing []string, title, category string, now time.Time) string {
	st := folderStyleOf(existing, category)
	stated, slug := titleSlug(title)
	var name string
	switch st.kind {
	case "numbered":
		n := st.maxNum[strings.ToLower(st.num.prefix)] + 1
		if stated > 0 && !numberTaken(existing, st.num.prefix, stated) {
			n = stated
		}
		name = fmt.Sprintf("%s%0*d-%s", st.num.prefix, st.num.width, n, slug)
	case "dated":
		name = now.Format("2006-01-02") + "-" + slug
	default:
		name = slug
	}
	candidate := name
	for i := 2; st.taken[strings.ToLower(candidate)]; i++ {
		candidate = fmt.Sprintf("%s-%d", name, i)
	}
	if folder == "" {
		return candidate + ".md"
	}
	return folder + "/" + candidate + ".md"
}

// numStyle is a numbered naming style: a prefix and a zero-padded width
// ("ADR-0012-…": "ADR-", 4).
type numStyle struct {
	prefix string
	width  int
}

// folderStyle is how a folder's notes are named.
type folderStyle struct {
	kind   string // numbered, dated or plain
	num    numStyle
	maxNum map[string]int  // the highest number, by lower-case prefix
	taken  map[string]bool // the lower-case base names in use
}

// folderStyleOf reads the naming style of a folder from its notes' names:
// the most common of numbered, dated and plain (numbered, then dated, on a
// tie); an empty folder takes the category's style (decisions numbered,
// logs dated).
func folderStyleOf(existing []string, category string) folderStyle {
	st := folderStyle{kind: "plain", maxNum: map[string]int{}, taken: map[string]bool{}}
	var dated, plain int
	styles := map[numStyle]int{}
	for _, e := range existing {
		base := strings.TrimSuffix(path.Base(e), path.Ext(e))
		st.taken[strings.ToLower(base)] = true
		switch {
		case datedName().MatchString(base):
			dated++
		case numberedName().MatchString(base):
			m := numberedName().FindStringSubmatch(base)
			styles[numStyle{m[1], len(m[2])}]++
			n, _ := strconv.Atoi(m[2])
			st.maxNum[strings.ToLower(m[1])] = max(st.maxNum[strings.ToLower(m[1])], n)
		default:
			plain++
		}
	}
	numbered := 0
	for ns, n := range styles {
		numbered += n
		if n > styles[st.num] || (n == styles[st.num] && ns.prefix < st.num.prefix) {
			st.num = ns
		}
	}
	switch {
	case numbered > 0 && numbered >= dated && numbered >= plain:
		st.kind = "numbered"
	case dated > 0 && dated >= plain:
		st.kind = "dated"
	case numbered+dated+plain == 0:
		switch strings.ToLower(category) {
		case "decision", "adr":
			st.kind, st.num = "numbered", numStyle{"", 4}
		case "", "log":
			st.kind = "dated"
		}
	}
	return st
}

// titleSlug returns the number a title states ("ADR 12: …"; -1: none) and
// the slug of the rest of it, at most 60 bytes ("note" when nothing is left).
func titleSlug(title string) (int, string) {
	stated := -1
	rest := title
	if m := titleNumber().FindStringSubmatchIndex(title); m != nil && m[2] >= 0 {
		if n, err := strconv.Atoi(title[m[2]:m[3]]); err == nil {
			stated, rest = n, title[m[1]:]
		}
	}
	slug := Slugify(rest)
	if slug == "" {
		slug = Slugify(title)
	}
	if slug == "" {
		slug = "note"
	}
	if len(slug) > 60 {
		slug = strings.Trim(slug[:60], "-")
	}
	return stated, slug
}

// numberTaken reports whether a note with prefix and number n exists.
func numberTaken(existing []string, prefix string, n int) bool {
	for _, e := range existing {
		base := path.Base(e)
		if m := numberedName().FindStringSubmatch(base); m != nil && strings.EqualFold(m[1], prefix) {
			if k, _ := strconv.Atoi(m[2]); k == n {
				return true
			}
		}
	}
	return false
}
