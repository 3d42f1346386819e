package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input crashes Parse and that units always describe
// byte ranges of the input in order, with unique keys, within the size limit.
// Seeds: every note of the demo vault plus edge cases.
func FuzzParse(f *testing.F) {
	matches, _ := filepath.Glob("../testdata/demo-vault/*/*.md")
	for _, m := range matches {
		if data, err := os.ReadFile(m); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{"", "---", "---\n", "---\n---\n", "---\nid: [\n---\n", "# \n", "#\n##\n",
		"a\n===\n", "[[", "[[a|b#c]]", "```\n# x\n", "---\nid: x\n...\nbody", "\xef\xbb\xbf---\nid: y\n---\n# t\n",
		"## a\r\n\r\ntext\r\n", strings.Repeat("检索", 500), strings.Repeat("word ", 2000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz/note.md", data)
		if err != nil {
			if utf8.Valid(data) && !strings.ContainsRune(string(data), 0) && len(data) <= MaxFileBytes {
				t.Fatalf("Parse refused valid text: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		prevEnd := 0
		for _, u := range r.Units {
			if u.Start < prevEnd || u.End < u.Start || u.End > len(data) {
				t.Fatalf("unit %s range [%d,%d) out of order or bounds (prev end %d, len %d)", u.Key, u.Start, u.End, prevEnd, len(data))
			}
			if string(data[u.Start:u.End]) != u.Content {
				t.Fatalf("unit %s content is not its byte range", u.Key)
			}
			if u.Tokens != EstimateTokens(u.Content) || u.ContentHash != HashBytes([]byte(u.Content)) {
				t.Fatalf("unit %s: tokens %d, hash %s do not describe its content", u.Key, u.Tokens, u.ContentHash)
			}
			if u.Tokens > MaxUnitTokens {
				t.Fatalf("unit %s: %d tokens, more than %d", u.Key, u.Tokens, MaxUnitTokens)
			}
			if seen[u.Key] {
				t.Fatalf("duplicate unit key %s", u.Key)
			}
			seen[u.Key] = true
			prevEnd = u.End
		}
	})
}
