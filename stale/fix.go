package stale

import (
	"strings"

	"github.com/lore-memory/lore/vault"
)

// RenameFix returns the replacements that point a note's citation of a
// renamed path at its new name, in the exact-text form a store update
// takes: each line of the note that holds the citation as a code span,
// with the old path replaced by the new. ok is false when there is nothing
// to fix mechanically: the finding is not a rename, the citation is a link
// or a frontmatter entry, or a line that holds it is not unique in the
// note (an exact replacement needs one occurrence).
func RenameFix(raw []byte, f vault.CodeFinding) (reps []vault.Replacement, ok bool) {
	if f.Problem != vault.ProblemRenamed || f.RenamedTo == "" || f.Path == "" || f.Line == 0 || strings.Contains(f.Cites, "://") {
		return nil, false
	}
	span := "`" + f.Cites + "`"
	fixed := "`" + strings.Replace(f.Cites, strings.TrimSuffix(f.Path, "/"), strings.TrimSuffix(f.RenamedTo, "/"), 1) + "`"
	if fixed == span {
		return nil, false
	}
	text := string(raw)
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, span) || seen[line] {
			continue
		}
		seen[line] = true
		if strings.Count(text, line) != 1 {
			return nil, false
		}
		reps = append(reps, vault.Replacement{OldText: line, NewText: strings.ReplaceAll(line, span, fixed)})
	}
	return reps, len(reps) > 0
}
