package vault

import (
	"strconv"
	"strings"
	"unicode"
)

// MaxUnitTokens is the size above which a section is split into chunks.
const MaxUnitTokens = 400

// Slugify turns a heading into the slug used in unit keys: lower-case letters
// and digits of any script, words joined by '-'. An empty result is "section".
func Slugify(heading string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_' || r == '/' || r == '.':
			dash = true
		}
	}
	if sb.Len() == 0 {
		return "section"
	}
	return sb.String()
}

// UnitKey is the key of a unit: <resource_id>/<heading-slug>/<n>/<chunk>,
// where n counts the note's earlier sections with the same slug.
func UnitKey(id, slug string, section, chunk int) string {
	return id + "/" + slug + "/" + strconv.Itoa(section) + "/" + strconv.Itoa(chunk)
}

// KeyResource is the resource id a unit key starts with: the key without its
// last three parts (heading slug, section, chunk; UnitKey).
func KeyResource(key string) string { return withoutKeyParts(key, 3) }

// KeySection is a unit key without its chunk number: the same for every
// chunk a long section is cut into, and different for any other section.
func KeySection(key string) string { return withoutKeyParts(key, 1) }

// withoutKeyParts is key without its last n '/'-separated parts.
func withoutKeyParts(key string, n int) string {
	for range n {
		j := strings.LastIndexByte(key, '/')
		if j < 0 {
			return key
		}
		key = key[:j]
	}
	return key
}
