package vault

import (
	"strings"
	"testing"
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
