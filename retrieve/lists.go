package retrieve

import "github.com/lore-memory/lore/markdown"

// A list of links points: a roundup's "- [[obsidian-dropbox-backups|Obsidian
// Dropbox Backups]] can now be automated", a category's "- [[calendar|
// Calendar]]: Calendar view of your daily notes". Its items are what it is
// about, so the link bonus counts its vote for the notes it links to more
// than a prose paragraph's aside. See link-bonus.md; an exception for a list
// the question names by a plural paid only on the question set it was made
// for, and was taken out.

// voteWeight is how many votes the note of c, a note at the top of the list,
// gives each note it links to: 1, and up to 2 when c is a list of links
// (markdown.LinkListShare).
func voteWeight(c *candidate) float64 {
	return 1 + markdown.LinkListShare(c.Content)
}
