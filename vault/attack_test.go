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

// LinkKey reads a link as Obsidian resolves it (case, extension, anchor,
// display text, "./"), and a Resource answers to its id, path, file name,
// title and aliases, each once (markdown's
// TestParse_NamesFromFrontmatterTitleAndAliases parses the same note).
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
	r := &Resource{ID: "mem_adr12", Path: "decisions/adr-012-redlock.md", Title: "ADR 012 Redlock",
		Front: Frontmatter{Aliases: StringList{"Redlock", "分布式锁"}}}
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
