package markdown

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/vault"
)

type ruleYAML struct {
	ID       string           `yaml:"id"`
	Deny     *string          `yaml:"deny"`
	Require  *string          `yaml:"require"`
	Literal  bool             `yaml:"literal"`
	Paths    vault.StringList `yaml:"paths"`
	Message  string           `yaml:"message"`
	Severity string           `yaml:"severity"`
}

// rulesFromFrontmatter decodes the guard: list. Each entry is decoded on its
// own, so one bad rule is reported and the others stay.
func rulesFromFrontmatter(n yaml.Node) []vault.RuleSpec {
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return []vault.RuleSpec{{ID: "guard", Form: "frontmatter", Line: n.Line, Severity: "error",
			Problem: fmt.Sprintf("guard: must be a list of rules (line %d of the frontmatter)", n.Line)}}
	}
	var out []vault.RuleSpec
	for i, item := range n.Content {
		var y ruleYAML
		spec := vault.RuleSpec{Form: "frontmatter", Line: item.Line, Severity: "error"}
		if err := item.Decode(&y); err != nil {
			spec.ID = fmt.Sprintf("guard[%d]", i)
			spec.Problem = "cannot read the rule: " + err.Error()
			out = append(out, spec)
			continue
		}
		spec.ID, spec.Literal, spec.Paths, spec.Message = strings.TrimSpace(y.ID), y.Literal, y.Paths, strings.TrimSpace(y.Message)
		if spec.ID == "" {
			spec.ID = fmt.Sprintf("guard[%d]", i)
		}
		if y.Severity != "" {
			spec.Severity = strings.ToLower(strings.TrimSpace(y.Severity))
		}
		switch {
		case y.Deny != nil && y.Require != nil:
			spec.Problem = "a rule has either deny or require, not both"
		case y.Deny != nil:
			spec.Kind, spec.Pattern = "deny", *y.Deny
		case y.Require != nil:
			spec.Kind, spec.Pattern = "require", *y.Require
		default:
			spec.Problem = "the rule has no deny or require pattern"
		}
		if spec.Problem == "" && spec.Pattern == "" {
			spec.Problem = spec.Kind + " is empty"
		}
		if spec.Problem == "" && spec.Severity != "error" && spec.Severity != "warn" {
			spec.Problem = fmt.Sprintf("severity %q is not error or warn", spec.Severity)
		}
		out = append(out, spec)
	}
	return out
}

// rulesHeading matches the headings whose bullets are body-form rules.
var rulesHeading = lazyre.New(`(?i)\b(rules?|invariants?|guard|guardrails?|constraints?)\b|规则|铁律|不变量|约束`)

// mayNameRules is a cheap test that a heading can match rulesHeading: every
// word it matches holds one of these pieces once lower-cased (the pieces
// avoid 's' and 'k', which case-fold to non-ASCII letters too).
func mayNameRules(h string) bool {
	l := strings.ToLower(h)
	for _, p := range []string{"rule", "invariant", "guard", "trai", "规则", "铁律", "不变量", "约束"} {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

// ruleBullet matches "- deny: …" and "- require: …" bullets.
var ruleBullet = lazyre.New(`^\s{0,3}[-*+]\s+(deny|require)\s*[:：]\s*(.+?)\s*$`)

// rulesFromBody finds body-form rules in the sections under a rules heading.
func rulesFromBody(id string, data []byte, sections []section) []vault.RuleSpec {
	var out []vault.RuleSpec
	for _, s := range sections {
		under := false
		for _, h := range s.headingPath {
			under = under || mayNameRules(h) && rulesHeading().MatchString(h)
		}
		if !under {
			continue
		}
		fence := ""
		line := 1 + strings.Count(string(data[:s.contentStart]), "\n")
		for _, l := range strings.Split(string(data[s.contentStart:s.end]), "\n") {
			t := strings.TrimSpace(l)
			switch {
			case fence != "":
				if strings.HasPrefix(t, fence) {
					fence = ""
				}
			case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
				fence = t[:3]
			default:
				if m := ruleBullet().FindStringSubmatch(l); m != nil {
					spec := vault.RuleSpec{ID: fmt.Sprintf("%s#L%d", id, line), Kind: strings.ToLower(m[1]), Severity: "error", Form: "body", Line: line, Literal: true}
					p := m[2]
					if len(p) >= 2 && strings.HasPrefix(p, "`") && strings.HasSuffix(p, "`") {
						p = strings.Trim(p, "`")
					} else if len(p) >= 2 && strings.HasPrefix(p, "/") && strings.HasSuffix(p, "/") {
						p, spec.Literal = p[1:len(p)-1], false
					}
					spec.Pattern = p
					if p == "" {
						spec.Problem = spec.Kind + " is empty"
					}
					out = append(out, spec)
				}
			}
			line++
		}
	}
	return out
}
