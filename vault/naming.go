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
	taken := map[string]bool{}
	var dated, plain int
	type numStyle struct {
		prefix string
		width  int
	}
	styles := map[numStyle]int{}
	maxNum := map[string]int{} // by lower-case prefix
	for _, e := range existing {
		base := strings.TrimSuffix(path.Base(e), path.Ext(e))
		taken[strings.ToLower(base)] = true
		switch {
		case datedName().MatchString(base):
			dated++
		case numberedName().MatchString(base):
			m := numberedName().FindStringSubmatch(base)
			styles[numStyle{m[1], len(m[2])}]++
			n, _ := strconv.Atoi(m[2])
			maxNum[strings.ToLower(m[1])] = max(maxNum[strings.ToLower(m[1])], n)
		default:
			plain++
		}
	}
	numbered := 0
	var style numStyle
	for st, n := range styles {
		numbered += n
		if n > styles[style] || (n == styles[style] && st.prefix < style.prefix) {
			style = st
		}
	}
	kind := "plain"
	switch {
	case numbered > 0 && numbered >= dated && numbered >= plain:
		kind = "numbered"
	case dated > 0 && dated >= plain:
		kind = "dated"
	case numbered+dated+plain == 0:
		switch strings.ToLower(category) {
		case "decision", "adr":
			kind, style = "numbered", numStyle{"", 4}
		case "", "log":
			kind = "dated"
		}
	}
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
	var name string
	switch kind {
	case "numbered":
		n := maxNum[strings.ToLower(style.prefix)] + 1
		if stated > 0 && !numberTaken(existing, style.prefix, stated) {
			n = stated
		}
		name = fmt.Sprintf("%s%0*d-%s", style.prefix, style.width, n, slug)
	case "dated":
		name = now.Format("2006-01-02") + "-" + slug
	default:
		name = slug
	}
	candidate := name
	for i := 2; taken[strings.ToLower(candidate)]; i++ {
		candidate = fmt.Sprintf("%s-%d", name, i)
	}
	if folder == "" {
		return candidate + ".md"
	}
	return folder + "/" + candidate + ".md"
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
