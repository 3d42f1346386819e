package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// pathological are shapes of Markdown that goldmark parses in quadratic
// time; an agent's Draft of one once stalled every other project's search.
var pathological = map[string]func(n int) string{
	"quote":     func(n int) string { return strings.Repeat(">", n) + " x\n" },
	"quote-sp":  func(n int) string { return strings.Repeat("> ", n/2) + "x\n" },
	"list":      func(n int) string { return strings.Repeat("- ", n/2) + "x\n" },
	"olist":     func(n int) string { return strings.Repeat("1. ", n/3) + "x\n" },
	"quotelist": func(n int) string { return strings.Repeat("> - ", n/4) + "x\n" },
	"links":     func(n int) string { return strings.Repeat("[a](", n/4) + "\n" },
	"links-nl":  func(n int) string { return strings.Repeat("[a](\n", n/5) },
	"wiki":      func(n int) string { return strings.Repeat("[[", n/2) + "\n" },
	"brackets":  func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("]", n/2) + "\n" },
	// Wikilinks that never close, each part of one: every "[[" is a place
	// a link may start (wikilinkIndexes).
	"wiki-open":  func(n int) string { return strings.Repeat("![[a#b|c ", n/9) + "\n" },
	"wiki-links": func(n int) string { return strings.Repeat("[[a]] ", n/6) + "\n" },
}

// TestAttack_NestedMarkdownIsBoundedForTheParser checks what keeps parsing
// linear: the copy goldmark reads keeps every offset, nests no line deeper
// than maxNesting containers, and has no paragraph longer than about maxRun
// bytes; ordinary notes are parsed as they are. (BenchmarkParsePathological
// measures the time.)
func TestAttack_NestedMarkdownIsBoundedForTheParser(t *testing.T) {
	for name, f := range pathological {
		body := []byte(f(1 << 18))
		b := boundForParse(body)
		if len(b) != len(body) {
			t.Fatalf("%s: the bounded copy has %d bytes, not %d", name, len(b), len(body))
		}
		run := 0
		for _, line := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(line) == "" {
				run = 0
				continue
			}
			if run += len(line) + 1; run > 2*maxRun+8 {
				t.Fatalf("%s: a paragraph of %d bytes reaches the parser", name, run)
			}
			depth := 0
			for _, c := range line {
				if c == '>' || c == '-' {
					depth++
				} else if c != ' ' {
					break
				}
			}
			if depth > maxNesting {
				t.Fatalf("%s: a line nests %d containers", name, depth)
			}
		}
		r, err := Parse("notes/x.md", append([]byte("# Title\n\n"), body...))
		if err != nil || r.Title != "Title" || len(r.Units) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, s := range []string{
		"# A\n\n> quoted\n> > twice\n\n- a\n  - b\n    - c\n\n```\n# not a heading\n```\n\n[link](x.md) and [[wiki]]\n",
		"# 长文\n\n" + strings.Repeat("并发控制的说明。", 50) + "\n",
	} {
		if b := boundForParse([]byte(s)); string(b) != s {
			t.Errorf("an ordinary note was changed for the parser:\n%q\n%q", s, b)
		}
	}
	// A fence after a long paragraph stays a fence: its "headings" stay code.
	long := "# T\n\n" + strings.Repeat("words and more words ", 120) + "\n" + strings.Repeat("line of prose\n", 200) + "```\n# code comment\n```\n## Real\n\nx\n"
	r, err := Parse("notes/y.md", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, u := range r.Units {
		heads = append(heads, strings.Join(u.HeadingPath, "/"))
	}
	if got := strings.Join(heads, ","); strings.Contains(got, "code comment") || !strings.Contains(got, "T/Real") {
		t.Fatalf("heading paths %q", got)
	}
}

func BenchmarkParsePathological(b *testing.B) {
	for _, name := range []string{"quote", "list", "olist", "quotelist", "links", "links-nl", "wiki", "brackets", "wiki-open", "wiki-links"} {
		for _, n := range []int{1 << 18, 1 << 20} {
			data := []byte("# T\n\n" + pathological[name](n))
			b.Run(fmt.Sprintf("%s/%dKiB", name, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for i := 0; i < b.N; i++ {
					Parse("notes/x.md", data)
				}
			})
		}
	}
}
