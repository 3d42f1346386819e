// Package stale checks the code a note cites against the code repository
// of the workspace bound to the vault, so memory that no longer matches the
// code is marked where people and agents read it.
//
// Cite reads what a note cites (cite.go says what counts: code spans, links
// into the code repository's remote, the frontmatter's code: list, and
// commit ids called commits); a Checker asks the code repository with the
// git CLI whether each citation still holds: a path deleted or renamed, an
// identifier removed, cited lines changed, a commit no branch or tag holds,
// and (not broken, worth a look) a file changed since the section citing it
// was last changed. Each finding names the commit that did it.
//
// A path or identifier the code repository never had is no citation of it
// and raises nothing: that rule, not a list of exceptions, keeps prose
// from turning into false alarms.
//
// Checking is reading: it changes no note and makes no commit.
package stale
