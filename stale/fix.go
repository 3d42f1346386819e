package stale

import (
	"context"
	"fmt"
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

// ProposeRename makes the Draft that points a note's citation of a renamed
// path (e, a finding of a report) at its new name: the note is read anew
// (an earlier fix of it may already be in its Draft) and updated against
// its hash, as any proposal is, for a person to review and merge. ok is
// false, with no Draft made, when RenameFix finds no mechanical fix.
func ProposeRename(ctx context.Context, load vault.Loader, propose vault.Proposer, project string, e Entry) (res vault.StoreResult, ok bool, err error) {
	notes, err := load.Load(ctx, []string{e.Note}, project)
	if err != nil {
		return res, false, err
	}
	n := notes[0]
	reps, ok := RenameFix([]byte(n.Content), e.CodeFinding)
	if !ok {
		return res, false, nil
	}
	desc := RenameDescription(e)
	res, err = propose.Apply(ctx, project, vault.Op{Update: &vault.UpdateOp{ID: n.ResourceID, ExpectedHash: n.ContentHash, Replacements: reps, Description: &desc}})
	return res, err == nil, err
}

// RenameDescription is the description of a rename's fix Draft.
func RenameDescription(e Entry) string {
	return fmt.Sprintf("Point %s at %s, renamed in %s", e.Path, e.RenamedTo, vault.ShortCommit(e.Commit))
}

// NoFix says why a renamed path's citation has no mechanical fix.
const NoFix = "no mechanical fix (a link, the frontmatter, or a line written twice): edit the note"
