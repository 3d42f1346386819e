package markdown

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/vault"
)

// splitFrontmatter finds a leading YAML block delimited by "---" lines. It
// returns the YAML bytes, the offset where the body starts, and whether a block
// was found. An opening line without a closing one is reported as unclosed.
func splitFrontmatter(data []byte) (yml []byte, bodyStart int, found bool, unclosed bool) {
	start := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	first, _, ok := cutLine(data[start:])
	if !ok || strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, 0, false, false
	}
	off := start + len(first) + 1
	pos := off
	for pos <= len(data) {
		line, _, more := cutLine(data[pos:])
		t := strings.TrimRight(string(line), " \t\r")
		if t == "---" || t == "..." {
			end := pos + len(line)
			if more {
				end++
			}
			return data[off:pos], end, true, false
		}
		if !more {
			break
		}
		pos += len(line) + 1
	}
	return nil, 0, false, true
}

// cutLine returns the first line of b (without '\n'), the rest, and whether a
// newline was found.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// parseFrontmatter decodes the YAML block. A syntax error returns an empty
// Frontmatter and the error; a type error in one key keeps the other keys.
func parseFrontmatter(yml []byte) (vault.Frontmatter, error) {
	var fm vault.Frontmatter
	var doc yaml.Node
	if err := yaml.Unmarshal(yml, &doc); err != nil {
		return fm, fmt.Errorf("frontmatter is not valid YAML: %v", err)
	}
	if doc.Kind == 0 { // empty block
		return fm, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		if len(doc.Content) == 1 && doc.Content[0].Tag == "!!null" {
			return fm, nil
		}
		return fm, fmt.Errorf("frontmatter is not a YAML mapping of keys to values")
	}
	var problems []string
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i], m.Content[i+1]
		one := yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{key, val}}
		if err := one.Decode(&fm); err != nil {
			problems = append(problems, fmt.Sprintf("frontmatter key %q (line %d): %s", key.Value, key.Line, cleanYAMLError(err)))
		}
	}
	if len(problems) > 0 {
		return fm, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return fm, nil
}

func cleanYAMLError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: unmarshal errors:\n")
	return strings.TrimSpace(s)
}

// FrontmatterBlock renders a "---" YAML block with the given keys of m in
// that order (keys m lacks are skipped), for notes lore generates.
func FrontmatterBlock(m map[string]any, keys ...string) string {
	var n yaml.Node
	n.Kind = yaml.MappingNode
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		var vn yaml.Node
		if err := vn.Encode(v); err != nil {
			continue
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &vn)
	}
	out, _ := yaml.Marshal(&n)
	return "---\n" + string(out) + "---\n"
}

// Body returns a note's text after its frontmatter block (the whole text
// when it has none).
func Body(data []byte) []byte {
	if _, start, found, _ := splitFrontmatter(data); found {
		return data[start:]
	}
	return data
}
