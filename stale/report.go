package stale

import (
	"context"
	"fmt"
	"sort"

	"github.com/lore-memory/lore/vault"
)

// Entry is a finding with the note it is in and the edit that would mend
// the note.
type Entry struct {
	Note string `json:"note"`
	vault.CodeFinding
	Edit string `json:"edit"`
}

// Report is what checking a set of notes found.
type Report struct {
	Code   string // the code repository checked against
	Notes  int    // notes checked
	Citing int    // notes that cite code
	Broken int    // broken citations
	// Unchecked names the notes that could not be checked, and why; the
	// others are checked all the same.
	Unchecked []string
	// Entries: the broken first, oldest evidence first (a missing commit,
	// which has no date, first of all); then the changed ones.
	Entries []Entry
}

// Report checks notes (a Draft's are left aside: they are not reviewed
// memory).
func (c *Checker) Report(ctx context.Context, notes []vault.Loaded) (Report, error) {
	r := Report{Code: c.code}
	for _, n := range notes {
		if n.DraftID != "" {
			continue
		}
		r.Notes++
		fs, cites, err := c.checkNote(ctx, n.Path, []byte(n.Content))
		if err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			r.Unchecked = append(r.Unchecked, fmt.Sprintf("%s: %v", n.Path, err))
			continue
		}
		if cites > 0 {
			r.Citing++
		}
		for _, f := range fs {
			if f.Broken() {
				r.Broken++
			}
			r.Entries = append(r.Entries, Entry{Note: n.Path, CodeFinding: f, Edit: Edit(f)})
		}
	}
	sort.SliceStable(r.Entries, func(i, j int) bool {
		a, b := r.Entries[i], r.Entries[j]
		if a.Broken() != b.Broken() {
			return a.Broken()
		}
		return a.Date < b.Date
	})
	return r, nil
}

// Edit is the edit a person would make to the note.
func Edit(f vault.CodeFinding) string {
	at := ""
	if f.Commit != "" {
		at = " (git show " + vault.ShortCommit(f.Commit) + " shows the change)"
	}
	switch f.Problem {
	case vault.ProblemRenamed:
		return fmt.Sprintf("replace %s with %s in `%s`", f.Path, f.RenamedTo, f.Cites)
	case vault.ProblemRemoved:
		return "the file is gone: cite what replaced it, or drop `" + f.Cites + "` and the text that relies on it" + at
	case vault.ProblemIdentifier:
		where := "the code"
		if f.Path != "" {
			where = f.Path
		}
		return "`" + f.Cites + "` is no longer in " + where + ": name what replaced it, or drop the sentence" + at
	case vault.ProblemLines:
		return "re-read " + f.Path + " and update the section, or cite the lines where they are now" + at
	case vault.ProblemCommit:
		return "cite a commit that a branch or tag holds (the history was rewritten?), or drop `" + f.Cites + "`"
	case vault.ProblemChanged:
		return "check the section still says what " + f.Path + " does" + at
	}
	return ""
}
