package vault

import (
	"fmt"
	"strings"
)

// ConfigTemplate is the lore.yaml that `lore init` writes when there is none.
const ConfigTemplate = `# lore.yaml — settings of this memory vault. Every key is optional; unknown
# keys are an error, so a typo never silently falls back to a default.

# The branch that holds published memory. Only a person's merge advances it.
org_ref: main

# The vault's conventions for agents (an ordinary note).
guidelines: LORE.md

# Projects that use this vault. Notes under projects/<name>/ belong to that
# project; everything else is shared by all.
projects: {}
`

// Folder is one top-level folder of a vault and how many notes it holds.
type Folder struct {
	Name  string
	Notes int
}

// Guidelines returns the LORE.md that ` + "`lore init`" + ` writes when there is
// none: its layout section names the folders the vault has (agents are told
// to follow it, so it must not name folders that do not exist), or, for a
// vault with none yet, the layout lore suggests.
func Guidelines(folders []Folder) string {
	var layout strings.Builder
	if len(folders) == 0 {
		layout.WriteString(suggestedLayout)
	} else {
		layout.WriteString("The notes live in these folders; put a new note in the folder of its kind,\nand ask before making a new folder.\n\n")
		for _, f := range folders {
			fmt.Fprintf(&layout, "- `%s/` — %d note(s)\n", f.Name, f.Notes)
		}
		layout.WriteString("- `projects/<name>/` — notes that only one project needs.\n")
	}
	return guidelinesHead + layout.String() + guidelinesTail
}

const guidelinesHead = `---
title: Memory guidelines
description: How this vault is laid out, and when and how agents may propose changes to it.
---
# Memory guidelines

These are the conventions of this memory vault. Agents read this file before
they propose a change to memory; people edit it like any other note.

## Layout

`

const suggestedLayout = "This vault has no folders yet. A layout that works:\n\n" +
	"- `decisions/` — architecture decision records (ADRs), one decision per note,\n" +
	"  named `NNNN-short-title.md`. A decision that replaces another says so with\n" +
	"  `supersedes:` in its frontmatter, and the old one gets `status: superseded`.\n" +
	"- `howto/` — short, tested procedures: how to release, how to run the tests.\n" +
	"- `incidents/` — what broke, why, and what changed so it does not happen again.\n" +
	"- `projects/<name>/` — notes that only one project needs.\n"

const guidelinesTail = `
## Naming and writing

- One topic per note, a title that says what it is about, and a one-line
  ` + "`description`" + ` in the frontmatter.
- Use headings: each section is retrieved on its own, so a section should make
  sense without the rest of the note.
- Link related notes with ` + "`[[wikilinks]]`" + `.

## When to propose a change

- Only when a person asks for memory to be created or maintained, or when a
  task settled something the next task must know (a decision, a pitfall, a
  procedure that was verified).
- Load the whole note before changing it, and change the smallest text that
  makes it right. Every change is a Draft a person reviews.

## Never store

- Secrets: passwords, tokens, keys, connection strings with credentials.
- Personal data about customers or colleagues.
- Things the code or git history already says better (long diffs, logs).
`
