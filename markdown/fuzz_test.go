package markdown

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lore-memory/lore/vault"
)

// FuzzParse checks that no input crashes Parse and that units always describe
// byte ranges of the input's body in order, without overlap, with unique keys,
// within the size limit. Seeds: every note of the demo vault, the shapes real
// vaults have, and edge cases.
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
	for _, s := range realVaultShapes {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz/note.md", data)
		if err != nil {
			if utf8.Valid(data) && !strings.ContainsRune(string(data), 0) && len(data) <= vault.MaxFileBytes {
				t.Fatalf("Parse refused valid text: %v", err)
			}
			return
		}
		checkUnits(t, "fuzz/note.md", data, r)
	})
}

// checkUnits fails t unless r's units lie within the body of data (after
// its frontmatter), in order and without overlap, each the exact bytes of
// its range with its own tokens and hash, within the size limit, with
// unique keys.
func checkUnits(t testing.TB, name string, data []byte, r *vault.Resource) {
	t.Helper()
	bodyStart := 0
	if _, start, found, _ := splitFrontmatter(data); found {
		bodyStart = start
	}
	seen := map[string]bool{}
	prevEnd := bodyStart
	for _, u := range r.Units {
		if u.Start < prevEnd || u.End < u.Start || u.End > len(data) {
			t.Fatalf("%s: unit %s range [%d,%d) out of order or bounds (previous end or body start %d, len %d)", name, u.Key, u.Start, u.End, prevEnd, len(data))
		}
		if string(data[u.Start:u.End]) != u.Content {
			t.Fatalf("%s: unit %s content is not its byte range", name, u.Key)
		}
		if u.Tokens != vault.EstimateTokens(u.Content) || u.ContentHash != vault.HashBytes([]byte(u.Content)) {
			t.Fatalf("%s: unit %s: tokens %d, hash %s do not describe its content", name, u.Key, u.Tokens, u.ContentHash)
		}
		if want := 1 + bytes.Count(data[:u.Start], []byte{'\n'}); u.Line != want {
			t.Fatalf("%s: unit %s starts on line %d, not %d", name, u.Key, want, u.Line)
		}
		if u.Tokens > vault.MaxUnitTokens {
			t.Fatalf("%s: unit %s: %d tokens, more than %d", name, u.Key, u.Tokens, vault.MaxUnitTokens)
		}
		if seen[u.Key] {
			t.Fatalf("%s: duplicate unit key %s", name, u.Key)
		}
		seen[u.Key] = true
		prevEnd = u.End
	}
}

// realVaultShapes are the shapes of Markdown that notes written in Obsidian
// have, each long enough to reach the parser's bounds (parsebound.go).
var realVaultShapes = map[string]string{
	"heading then a long list with a lazy line": "# Releasing\n\n## Shipping\n" + listLines(180, "- marker p%d i%d") + "Tag the commit, push the tag, and the pipeline uploads both builds. Promote the\nAndroid build after 24 hours.\n",
	"heading then a long list of links":         "---\naliases: [Plugins seeking help]\n---\n# Plugins seeking help\n\n## Seeking\n" + listLines(90, "- [[Plugin %d]] - wants a maintainer for %d") + "\n## After\n\ntext\n",
	"nested lists":                              "# N\n" + strings.Repeat("- a [[x]]\n  - b\n    - c with a lazy\ncontinuation line\n", 80),
	"block quotes and callouts":                 "# Q\n" + strings.Repeat("> [!note] Title\n> body [[link]]\n> more body\n", 100) + "## After\nx\n",
	"fenced code":                               "# F\n" + strings.Repeat("text before\n```go\n# not a heading\nfunc f() {}\n```\n", 60) + "## After\nx\n",
	"tables":                                    "# T\n\n| a | b |\n|---|---|\n" + strings.Repeat("| [[x]] | y |\n", 200) + "## After\nx\n",
	"HTML blocks":                               "# H\n" + strings.Repeat("<div>\n# not a heading\n</div>\n", 80) + "## After\nx\n",
	"embeds":                                    "# E\n" + strings.Repeat("![[Refund policy#^block-id]]\n![[image.png]]\n", 120) + "## After\nx\n",
	"frontmatter only":                          "---\naliases:\n  - only\ntags: [a]\n---\n",
	"CRLF":                                      "# C\r\n\r\n## S\r\n" + strings.Repeat("- item\r\n", 300) + "para\r\n",
	"BOM":                                       "\xef\xbb\xbf# B\n\n## S\n" + strings.Repeat("- item\n", 300) + "para\n",
	"setext after a long list":                  "# S\n" + listLines(200, "- %d item %d") + "Heading\n---\ntext\n",
	"long line of dashes then text":             "para\n" + strings.Repeat("-", 3000) + "x\n",
}

// listLines is n lines of format, each given two numbers.
func listLines(n int, format string) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, format+"\n", i%8, i*37%300)
	}
	return sb.String()
}
