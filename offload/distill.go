package offload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Skill is what distill_session_skill reads out of a trace.
type Skill struct {
	Title          string   `json:"title"`
	Name           string   `json:"name"` // the Agent Skills name: lower-case, digits, hyphens
	Description    string   `json:"description"`
	ErrorSignature string   `json:"error_signature"`
	Commands       []string `json:"commands"`
	FinalState     []string `json:"final_state"`
	ContextHint    string   `json:"context_hint,omitempty"`
	Category       string   `json:"category"`
	Tags           []string `json:"tags"`
	Related        []string `json:"related_notes"`
}

var (
	prompt  = lazyre.New(`^\s*(?:\$|>|❯|\+|PS [^>]*>)\s+(\S.*)$`)
	success = lazyre.New(`(?i)(\bpass(ed)?\b|^ok\b|\bsuccess(ful(ly)?)?\b|✓|✔|\bfixed\b|\bfinished\b|\bdone\b|\b0 failed\b|build succeeded)`)
)

// Distill reads a trace deterministically.
func Distill(trace, title, hint, category string, tags, related []string) (Skill, error) {
	if strings.TrimSpace(trace) == "" {
		return Skill{}, vault.Errorf(vault.CodeInvalid, "raw_trace is empty (give raw_trace or node_id)")
	}
	if err := checkSize("raw_trace", trace); err != nil {
		return Skill{}, err
	}
	sk := Skill{ContextHint: strings.TrimSpace(hint), Category: category, Tags: tags, Related: related, Commands: []string{}}
	if sk.Category == "" {
		sk.Category = "skill"
	}
	if sk.Tags == nil {
		sk.Tags = []string{}
	}
	if sk.Related == nil {
		sk.Related = []string{}
	}
	lines := splitLines(strings.ReplaceAll(trace, "\r\n", "\n"))
	sk.ErrorSignature, sk.Commands = signatureAndCommands(lines)
	sk.FinalState = finalState(lines)
	sk.Title = strings.TrimSpace(title)
	if sk.Title == "" {
		switch {
		case sk.ErrorSignature != "":
			sk.Title = "Fix: " + oneLine(sk.ErrorSignature, 70)
		case len(sk.Commands) > 0:
			sk.Title = "How to: " + oneLine(sk.Commands[0], 70)
		default:
			sk.Title = "Session skill"
		}
	}
	sk.Name = skillName(sk.Title)
	sk.Description = sk.Title
	if sk.ErrorSignature != "" {
		sk.Description = "When you see \"" + oneLine(sk.ErrorSignature, 120) + "\": the steps that fixed it."
	}
	return sk, nil
}

// signatureAndCommands returns the trace's error signature (the first
// strong error line outside a prompt, else the first weaker one) and the
// distinct commands typed at a prompt (at most 15).
func signatureAndCommands(lines []string) (sig string, cmds []string) {
	cmds = []string{}
	seen := map[string]bool{}
	weak := ""
	for _, l := range lines {
		if sig == "" && !prompt().MatchString(l) {
			if strongLine().MatchString(l) {
				sig = oneLine(l, 200)
			} else if weak == "" && errorLine().MatchString(l) {
				weak = oneLine(l, 200)
			}
		}
		if m := prompt().FindStringSubmatch(l); m != nil && len(cmds) < 15 {
			c := oneLine(m[1], 200)
			if !seen[c] {
				seen[c] = true
				cmds = append(cmds, c)
			}
		}
	}
	if sig == "" {
		sig = weak
	}
	return sig, cmds
}

// finalState is the last line reporting success, else the last non-empty
// lines (at most 5).
func finalState(lines []string) []string {
	var tail []string
	for i := len(lines) - 1; i >= 0 && len(tail) < 5; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			tail = append([]string{oneLine(t, 200)}, tail...)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if success().MatchString(lines[i]) {
			tail = []string{oneLine(lines[i], 200)}
			break
		}
	}
	return tail
}

func skillName(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	n := strings.Trim(b.String(), "-")
	if n == "" {
		n = "session-skill"
	}
	return n
}

// Body is the skill's Markdown body (without frontmatter), shared by every target.
func (sk Skill) Body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", sk.Title)
	if sk.ContextHint != "" {
		fmt.Fprintf(&b, "%s\n\n", sk.ContextHint)
	}
	if sk.ErrorSignature != "" {
		fmt.Fprintf(&b, "## Error signature\n\n```\n%s\n```\n\n", sk.ErrorSignature)
	}
	if len(sk.Commands) > 0 {
		b.WriteString("## Steps that led to the fix\n\n")
		for i, c := range sk.Commands {
			fmt.Fprintf(&b, "%d. `%s`\n", i+1, strings.ReplaceAll(c, "`", "'"))
		}
		b.WriteString("\n")
	}
	if len(sk.FinalState) > 0 {
		fmt.Fprintf(&b, "## Final state\n\n```\n%s\n```\n", strings.Join(sk.FinalState, "\n"))
	}
	if len(sk.Related) > 0 {
		b.WriteString("\n## Related\n\n")
		for _, r := range sk.Related {
			fmt.Fprintf(&b, "- [[%s]]\n", strings.Trim(r, "[]"))
		}
	}
	return b.String()
}

// Note is the skill as a vault note (frontmatter without id: the store adds it).
func (sk Skill) Note() string {
	fm := markdown.FrontmatterBlock(map[string]any{"title": sk.Title, "description": sk.Description, "category": sk.Category, "tags": sk.Tags},
		"title", "description", "category", "tags")
	return fm + sk.Body()
}

// SkillFile is the skill in the Agent Skills format; hermes adds its own keys.
func (sk Skill) SkillFile(target string) string {
	m := map[string]any{"name": sk.Name, "description": sk.Description}
	keys := []string{"name", "description"}
	if target == "hermes" {
		m["version"] = "1.0.0"
		m["metadata"] = map[string]any{"hermes": map[string]any{"tags": sk.Tags, "related_skills": []string{}}}
		keys = append(keys, "version", "metadata")
	}
	return markdown.FrontmatterBlock(m, keys...) + sk.Body()
}

// SkillPath is where target keeps the skill, for the user running lore.
func (sk Skill) SkillPath(target string, getenv func(string) string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil && getenv("HERMES_HOME") == "" && getenv("PI_CODING_AGENT_DIR") == "" {
		return "", err
	}
	switch target {
	case "hermes":
		base := getenv("HERMES_HOME")
		if base == "" {
			base = filepath.Join(home, ".hermes")
		}
		cat := skillName(sk.Category)
		return filepath.Join(base, "skills", cat, sk.Name, "SKILL.md"), nil
	case "omp":
		base := getenv("PI_CODING_AGENT_DIR")
		if base == "" {
			base = filepath.Join(home, ".omp", "agent")
		}
		return filepath.Join(base, "skills", sk.Name, "SKILL.md"), nil
	}
	return "", vault.Errorf(vault.CodeInvalid, "target %q is not default, hermes or omp", target)
}
