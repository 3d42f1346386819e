package vault

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Names an agent or a careless edit can send, each of which once broke the
// vault for everyone (issue: trust). Each must be refused where it enters,
// with an error that names what was wrong.

func TestAttack_ControlAndBidiCharactersInPaths(t *testing.T) {
	for _, p := range []string{
		"notes/a\nb.md", "notes/a\rb.md", "notes/a\tb.md", "notes/a\x01b.md", "notes/a\x7fb.md",
		"notes/a\u0085b.md",         // C1 next line
		"notes/evil\u202Edm.txt.md", // right-to-left override: reads as "evil.txt.md"
		"notes/a\u2066b\u2069.md",   // isolates
		"notes/a\u200fb.md",         // right-to-left mark
		"notes/\xffbad.md",          // invalid UTF-8
	} {
		_, err := CleanPath(p)
		if ErrorCode(err) != CodeInvalid {
			t.Errorf("CleanPath(%q) = %v; want invalid_input", p, err)
			continue
		}
		if !strings.Contains(err.Error(), "control") && !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("CleanPath(%q): the error does not say what was wrong: %v", p, err)
		}
	}
	// Ordinary names in any script stay accepted.
	for _, p := range []string{"notes/并发控制.md", "notes/café.md", "notes/שלום.md", "notes/a b.md"} {
		if _, err := CleanPath(p); err != nil {
			t.Errorf("CleanPath(%q) = %v; want it accepted", p, err)
		}
	}
}

func TestAttack_ProjectNamesFollowGitRefRules(t *testing.T) {
	for _, name := range []string{"a..b", "x.lock", "x.", "a@{b", "a b", "a:b", "a~1", "-x", ".x", ""} {
		if ValidProjectName(name) {
			t.Errorf("ValidProjectName(%q) = true; git would ignore or refuse a branch drafts/%s/…", name, name)
		}
	}
	for _, name := range []string{"api", "web-2", "a.b", "A_b", "v1.0"} {
		if !ValidProjectName(name) {
			t.Errorf("ValidProjectName(%q) = false; want true", name)
		}
	}
	_, err := ParseConfig([]byte("projects:\n  a..b: {}\n"))
	if ErrorCode(err) != CodeConfig || !strings.Contains(err.Error(), `"a..b"`) {
		t.Errorf("lore.yaml with project a..b: %v; want invalid_config naming it", err)
	}
}

func TestAttack_OrgRefMustBeABranchName(t *testing.T) {
	for _, ref := range []string{"../../HEAD", "../tags/v1", "../../config", "HEAD", "refs/heads/main", "-main", "a..b", "main.lock", "a//b", "/main", "main/", "ma in", "ma\nin"} {
		_, err := ParseConfig([]byte("org_ref: " + strings.ReplaceAll(strings.ReplaceAll(ref, "\n", `\n`), ref, `"`+ref+`"`) + "\n"))
		if ref == "ma\nin" {
			_, err = ParseConfig([]byte("org_ref: \"ma\\nin\"\n"))
		}
		if ErrorCode(err) != CodeConfig || !strings.Contains(err.Error(), "org_ref") {
			t.Errorf("org_ref %q: %v; want invalid_config naming org_ref", ref, err)
		}
	}
	for _, ref := range []string{"main", "trunk", "release/v2", "team.memory"} {
		cfg, err := ParseConfig([]byte("org_ref: " + ref + "\n"))
		if err != nil || cfg.OrgRef != ref {
			t.Errorf("org_ref %q: %+v, %v; want it accepted", ref, cfg.OrgRef, err)
		}
	}
}

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
	for _, name := range []string{"quote", "list", "olist", "quotelist", "links", "links-nl"} {
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

func TestLinkKeysAndNames(t *testing.T) {
	for in, want := range map[string]string{
		"[[adr-012-redlock]]":              "adr-012-redlock",
		"ADR-012-Redlock":                  "adr-012-redlock",
		"decisions/ADR-012-redlock.md":     "decisions/adr-012-redlock",
		"[[adr-012-redlock#Decision|the]]": "adr-012-redlock",
		"./notes/x.md":                     "notes/x",
		" 分布式锁 ":                           "分布式锁",
	} {
		if got := LinkKey(in); got != want {
			t.Errorf("LinkKey(%q) = %q, want %q", in, got, want)
		}
	}
	r, err := Parse("decisions/adr-012-redlock.md", []byte("---\nid: mem_adr12\ntitle: ADR 012 Redlock\naliases: [Redlock, 分布式锁]\n---\n# x\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range r.Names() {
		got = append(got, fmt.Sprintf("%s:%d", n.Key, n.Kind))
	}
	if strings.Join(got, ",") != "mem_adr12:0,decisions/adr-012-redlock:1,adr-012-redlock:2,adr 012 redlock:3,redlock:4,分布式锁:4" {
		t.Fatalf("names: %v", got)
	}
}

func TestNoteNameFollowsTheFolder(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		folder   string
		existing []string
		title    string
		category string
		want     string
	}{
		{"adr", []string{"adr/adr-001-idempotency.md", "adr/adr-012-redlock.md"}, "ADR 016: Lock service", "decision", "adr/adr-016-lock-service.md"},
		{"adr", []string{"adr/adr-001-idempotency.md", "adr/adr-012-redlock.md"}, "Lock service", "decision", "adr/adr-013-lock-service.md"},
		{"adr", []string{"adr/adr-012-redlock.md"}, "ADR 012: Again", "decision", "adr/adr-013-again.md"},
		{"logs", []string{"logs/2026-10-08-retry-storm.md", "logs/2026-09-01-x.md"}, "Refund alert tuned", "log", "logs/2026-11-30-refund-alert-tuned.md"},
		{"decisions", []string{"decisions/0001-sqlite.md", "decisions/0002-sync.md"}, "Retry budget", "decision", "decisions/0003-retry-budget.md"},
		{"decisions", nil, "Retry budget", "decision", "decisions/0001-retry-budget.md"},
		{"logs", nil, "Retry budget", "log", "logs/2026-11-30-retry-budget.md"},
		{"concepts", []string{"concepts/idempotency.md", "concepts/locks.md"}, "Backoff", "concept", "concepts/backoff.md"},
		{"concepts", []string{"concepts/backoff.md"}, "Backoff", "concept", "concepts/backoff-2.md"},
	} {
		if got := NoteName(c.folder, c.existing, c.title, c.category, now); got != c.want {
			t.Errorf("NoteName(%s, %v, %q) = %s, want %s", c.folder, c.existing, c.title, got, c.want)
		}
	}
}
