package vault

import (
	"context"
	"fmt"
	"strings"
)

// What a note's citation of code can have become (CodeFinding.Problem).
// Every problem but ProblemChanged means the citation is broken: what the
// note names is no longer what the code has.
const (
	ProblemRemoved    = "removed"       // the cited path is gone
	ProblemRenamed    = "renamed"       // the cited path was renamed (git's rename detection)
	ProblemLines      = "lines_changed" // the cited lines are no longer in the file
	ProblemIdentifier = "identifier_removed"
	ProblemCommit     = "commit_missing" // the code repository has no such commit on any branch or tag
	ProblemChanged    = "changed"        // the cited file changed since the section did: worth a look, not broken
)

// maxShownCitationLen bounds a citation in a Sentence (a link can be long).
const maxShownCitationLen = 80

// CodeFinding is what checking one citation of code against the bound
// workspace's repository found. Evidence names the commit that removed,
// renamed or changed what the note cites, its author and its date.
type CodeFinding struct {
	Cites   string `json:"cites"`   // the citation as the note writes it: "sync/retry.go:40-60", "backoffFor"
	Kind    string `json:"kind"`    // path, lines, identifier or commit
	Problem string `json:"problem"` // one of the Problem constants
	// Path is the cited file (the file an identifier was looked for in;
	// "" for an identifier looked for everywhere and for a commit).
	Path      string `json:"path,omitempty"`
	RenamedTo string `json:"renamed_to,omitempty"`
	Commit    string `json:"commit,omitempty"` // the evidence: the commit that did it (full id)
	Author    string `json:"author,omitempty"`
	Date      string `json:"date,omitempty"`    // the commit's author date, YYYY-MM-DD
	Commits   int    `json:"commits,omitempty"` // changed: how many commits touched the file since
	// HeadingPath is the section that cites it (empty: the preamble, or
	// the frontmatter's code: list); Line is the note's line.
	HeadingPath []string `json:"heading_path"`
	Line        int      `json:"line"`
}

// Broken reports whether the citation no longer holds.
func (f CodeFinding) Broken() bool { return f.Problem != ProblemChanged }

// Sentence says the finding in one line, as a fragment's marker and lore
// stale show it: "cites `backoffFor` in sync/retry.go, removed in 3f2a1c9
// on 2026-11-02".
func (f CodeFinding) Sentence() string {
	cite := f.Cites
	if len(cite) > maxShownCitationLen {
		cite = cite[:maxShownCitationLen] + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cites `%s`", cite)
	if f.Kind == "identifier" && f.Path != "" {
		b.WriteString(" in " + f.Path)
	}
	switch f.Problem {
	case ProblemRemoved:
		b.WriteString(", deleted")
	case ProblemRenamed:
		b.WriteString(", renamed to " + f.RenamedTo)
	case ProblemLines:
		b.WriteString(", lines changed")
	case ProblemIdentifier:
		b.WriteString(", removed")
	case ProblemCommit:
		b.WriteString(", a commit no branch or tag of the code repository holds")
	case ProblemChanged:
		fmt.Fprintf(&b, ", changed by %d commit", f.Commits)
		if f.Commits != 1 {
			b.WriteString("s")
		}
		b.WriteString(" since this section was written; last")
	}
	if f.Commit != "" {
		fmt.Fprintf(&b, " in %s", ShortCommit(f.Commit))
		if f.Date != "" {
			b.WriteString(" on " + f.Date)
		}
		if f.Author != "" {
			b.WriteString(" by " + f.Author)
		}
	}
	return b.String()
}

// ShortCommit is a commit id as people read it: its first 7 digits.
func ShortCommit(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// StaleLead begins the line under a fragment's header that says its
// citations of code broke (Activation.Text).
const StaleLead = "⚠ may be stale (check the code before relying on this): "

// CodeChecker checks a note's citations of code against the code
// repository of the bound workspace. path is the note's vault path and raw
// its bytes in the working tree; the findings are in note order. A note
// that cites nothing has none. Checking changes nothing: no note, no
// commit.
type CodeChecker interface {
	CheckNote(ctx context.Context, path string, raw []byte) ([]CodeFinding, error)
}

// SectionFindings returns the findings of the section hp (and of the
// note's frontmatter, which speaks for every section).
func SectionFindings(all []CodeFinding, hp []string) []CodeFinding {
	var out []CodeFinding
	for _, f := range all {
		if f.Line == 0 || sameHeadings(f.HeadingPath, hp) {
			out = append(out, f)
		}
	}
	return out
}

func sameHeadings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
