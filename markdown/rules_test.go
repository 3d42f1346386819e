package markdown

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/vault"
)

func TestRulesFromFrontmatterAndBody(t *testing.T) {
	src := "---\nid: mem_adr8\nguard:\n" +
		"  - id: no-select-star\n    deny: \"SELECT \\\\* FROM\"\n    paths: [\"**/*.go\"]\n    message: Name the columns.\n" +
		"  - id: need-license\n    require: SPDX-License-Identifier\n    literal: true\n    paths: \"*.go, *.rs\"\n    severity: warn\n" +
		"  - id: both\n    deny: a\n    require: b\n" +
		"  - id: loud\n    deny: x\n    severity: fatal\n" +
		"  - nonsense\n" +
		"---\n# ADR 8\n\nText with - deny: not-a-rule\n\n## 架构铁律\n\n- deny: `SELECT * FROM`\n- require: /^package \\w+/\n\n```\n- deny: inside-code\n```\n\n## Later\n\n- deny: not-under-rules\n"
	r, err := Parse("decisions/0008.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]vault.RuleSpec{}
	for _, s := range r.Rules {
		got[s.ID] = s
	}
	if len(r.Rules) != 7 {
		t.Fatalf("%d rules: %+v", len(r.Rules), r.Rules)
	}
	if s := got["no-select-star"]; s.Kind != "deny" || s.Pattern != `SELECT \* FROM` || s.Literal || s.Paths[0] != "**/*.go" || s.Severity != "error" || s.Problem != "" {
		t.Errorf("no-select-star: %+v", s)
	}
	if s := got["need-license"]; s.Kind != "require" || !s.Literal || len(s.Paths) != 2 || s.Severity != "warn" {
		t.Errorf("need-license: %+v", s)
	}
	if !strings.Contains(got["both"].Problem, "not both") || !strings.Contains(got["loud"].Problem, "fatal") || got["guard[4]"].Problem == "" {
		t.Errorf("broken rules: %+v %+v %+v", got["both"], got["loud"], got["guard[4]"])
	}
	var body []vault.RuleSpec
	for _, s := range r.Rules {
		if s.Form == "body" {
			body = append(body, s)
		}
	}
	if len(body) != 2 || body[0].Pattern != "SELECT * FROM" || !body[0].Literal || body[1].Kind != "require" || body[1].Literal || body[1].Pattern != `^package \w+` {
		t.Fatalf("body rules: %+v", body)
	}
	if body[0].Line != 27 {
		t.Errorf("line %d", body[0].Line)
	}
}

// mayNameRules only skips the regexp: every heading rulesHeading matches
// must pass it, in any letter case (ſ and the Kelvin sign fold to s and k).
func TestMayNameRulesPassesEveryRulesHeading(t *testing.T) {
	words := []string{"rule", "rules", "invariant", "invariants", "guard", "guardrail", "guardrails",
		"constraint", "constraints", "规则", "铁律", "不变量", "约束"}
	for _, w := range words {
		for _, h := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:], "Our " + w + " here",
			strings.ReplaceAll(w, "s", "ſ"), strings.ReplaceAll(strings.ToUpper(w), "S", "ſ"), "发布" + w} {
			if !rulesHeading().MatchString(h) {
				continue
			}
			if !mayNameRules(h) {
				t.Errorf("heading %q matches rulesHeading but mayNameRules says no", h)
			}
		}
	}
	if mayNameRules("Overview") || mayNameRules("设计") {
		t.Error("mayNameRules passes headings without rule words")
	}
}
