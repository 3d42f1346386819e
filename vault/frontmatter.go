package vault

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Frontmatter holds the keys lore reads. Every key is optional; keys lore does
// not know are left in the file as they are and ignored here.
type Frontmatter struct {
	ID           string     `yaml:"id"`
	Title        string     `yaml:"title"`
	Description  string     `yaml:"description"`
	Tags         StringList `yaml:"tags"`
	Status       string     `yaml:"status"`
	Supersedes   StringList `yaml:"supersedes"`
	SupersededBy StringList `yaml:"superseded_by"`
	Tier         string     `yaml:"tier"`
	Keywords     StringList `yaml:"keywords"`
	Aliases      StringList `yaml:"aliases"` // other names wikilinks may use (as Obsidian reads them)
	OccurredAt   string     `yaml:"occurred_at"`
	Importance   string     `yaml:"importance"`
	Source       string     `yaml:"source"`
	// Code lists code the note is about that its text does not cite
	// (paths, path:line ranges, identifiers, commit ids), for lore stale.
	Code StringList `yaml:"code"`
	// Guard is kept as a raw node; the guard package decodes it.
	Guard yaml.Node `yaml:"guard"`
}

// StringList accepts a YAML list of scalars or a single scalar (a comma-separated
// string is split), so `tags: a, b` and `tags: [a, b]` mean the same.
type StringList []string

// UnmarshalYAML implements yaml.Unmarshaler.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*l = nil
			return nil
		}
		var out []string
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		*l = out
		return nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a list of strings", c.Line)
			}
			if c.Tag != "!!null" && strings.TrimSpace(c.Value) != "" {
				out = append(out, strings.TrimSpace(c.Value))
			}
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: expected a string or a list of strings", n.Line)
}
