package vault

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/internal/lazyre"
)

// RuleSpec is one guard rule as a resource writes it, before the guard
// package compiles it. A rule either denies a pattern in added lines or
// requires it in touched files.
//
// In frontmatter:
//
//	guard:
//	  - id: no-force-push
//	    deny: "push.*--force"       # or require: …; a Go regular expression
//	    literal: true               # optional: the pattern is plain text
//	    paths: ["scripts/**", "*.sh"]
//	    message: Never force-push the org ref.
//	    severity: error             # or warn; default error
//
// In the body, under a heading that names rules (Rules, Invariants, Guard,
// 规则, 铁律, 不变量 …): bullet lines "- deny: TEXT" or "- require: TEXT".
// Body patterns are literal text (backquotes around them are dropped), or a
// regular expression when written /like this/; they apply to every file,
// with severity error, and the bullet's resource is their message.
type RuleSpec struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"` // deny or require
	Pattern  string   `json:"pattern"`
	Literal  bool     `json:"literal,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Message  string   `json:"message,omitempty"`
	Severity string   `json:"severity"` // error or warn
	Line     int      `json:"line,omitempty"`
	Form     string   `json:"form"` // frontmatter or body
	// Problem says why the rule as written cannot be used (a missing pattern,
	// an unknown severity, …); the guard reports it as broken.
	Problem string `json:"problem,omitempty"`
	// Unreadable: the note holds rules that cannot be read at all (its
	// frontmatter does not parse); the guard fails closed on it.
	Unreadable bool `json:"unreadable,omitempty"`
}

type ruleYAML struct {
	ID       string     `yaml:"id"`
	Deny     *string    `yaml:"deny"`
	Require  *string    `yaml:"require"`
	Literal  bool       `yaml:"literal"`
	Paths    StringList `yaml:"paths"`
	Message  string     `yaml:"message"`
	Severity string     `yaml:"severity"`
}

// rulesFromFrontmatter decodes the guard: list. Each entry is decoded on its
// own, so one bad rule is reported and the others stay.
func rulesFromFrontmatter(n yaml.Node) []RuleSpec {
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return []RuleSpec{{ID: "guard", Form: "frontmatter", Line: n.Line, Severity: "error",
			Problem: fmt.Sprintf("guard: must be a list of rules (line %d of the frontmatter)", n.Line)}}
	}
	var out []RuleSpec
	for i, item := range n.Content {
		var y ruleYAML
		spec := RuleSpec{Form: "frontmatter", Line: item.Line, Severity: "error"}
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
func rulesFromBody(id string, data []byte, sections []section) []RuleSpec {
	var out []RuleSpec
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
					spec := RuleSpec{ID: fmt.Sprintf("%s#L%d", id, line), Kind: strings.ToLower(m[1]), Severity: "error", Form: "body", Line: line, Literal: true}
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

// RuleSource is a resource of the Effective Memory that writes guard rules
// or carries a tier, with what the guard and the loadout need of it.
type RuleSource struct {
	ResourceID  string
	Path        string
	Title       string
	Description string
	Status      string
	Tier        string
	Tags        []string
	DraftID     string
	Rules       []RuleSpec
}

// RecentNote is a log or decision note for the loadout's recent section.
type RecentNote struct {
	Path, Title, Description string
	Date                     time.Time // from a YYYY-MM-DD in the file name, else the file's time
}
