package hook

import (
	"fmt"
	"strings"

	"github.com/lore-memory/lore/internal/lazyre"
	"github.com/lore-memory/lore/vault"
)

// What lore's hooks add to a model's context begins with one of these
// lines, so a session log's reader (lore activity) knows lore's text from
// any other hook's.
const (
	// PromptLead begins what a submitted prompt gets; the run id follows
	// in parentheses, joining the delivery to its retrieval run.
	PromptLead = "lore: reviewed project memory relevant to this prompt"
	// StartLead begins what a session start gets (the loadout).
	StartLead = "lore: this project's reviewed memory"
	// GuardLead begins the reason a pre-tool hook refuses a command with;
	// a client puts it in the tool's result, where lore activity finds it.
	GuardLead = "lore guard: the project's rules in memory refuse this"
)

const noLongerLead = "No longer current (stop relying on it): "

var (
	memoryHead = lazyre.New(`^` + PromptLead + ` \((?:run (run_[0-9a-z]+); )?the memory tool has more\):$`)
	memoryFrag = lazyre.New(`^\[(add|replace)\] (\S.*)$`)
)

// Memory renders what a prompt's activation adds to the context: each
// fragment with text (added or replaced) under a header line "[action]
// path › headings", then what is no longer current; "" when nothing is
// new. A reused fragment is already in the context and a Draft's fragment
// is not reviewed: neither goes in (a warm server of an older lore may not
// know PublishedOnly). ParseMemory reads it back.
func Memory(act *vault.Activation) string {
	var b strings.Builder
	for _, f := range act.Fragments {
		b.WriteString(MemoryFragment(f))
	}
	if len(act.Removed) > 0 {
		labels := act.RemovedLabels
		if len(labels) != len(act.Removed) {
			labels = act.Removed
		}
		fmt.Fprintf(&b, "\n%s%s\n", noLongerLead, strings.Join(labels, "; "))
	}
	if b.Len() == 0 {
		return ""
	}
	return MemoryLead(act.RunID) + b.String()
}

// MemoryLead is the first line of Memory's text.
func MemoryLead(runID string) string {
	run := ""
	if runID != "" {
		run = "run " + runID + "; "
	}
	return PromptLead + " (" + run + "the memory tool has more):\n"
}

// MemoryFragment is one fragment's part of Memory's text: "" for a reused
// fragment or a Draft's.
func MemoryFragment(f vault.Fragment) string {
	if f.Content == "" || f.DraftID != "" {
		return ""
	}
	loc := f.Path
	for _, h := range f.HeadingPath {
		loc += " › " + h
	}
	return "\n[" + f.Action + "] " + loc + "\n" + strings.TrimRight(f.Content, "\n") + "\n"
}

// ParseMemory reads a text Memory made: the run id, the fragments (action,
// path, headings, text without trailing newlines) and the removed labels.
// ok is false when s is not such a text. A client may wrap what a hook
// printed (Claude Code keeps it as given; Codex as a developer message), so
// leading and trailing space is ignored.
func ParseMemory(s string) (act *vault.Activation, ok bool) {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")), "\n")
	m := memoryHead().FindStringSubmatch(lines[0])
	if m == nil {
		return nil, false
	}
	act = &vault.Activation{RunID: m[1], Fragments: []vault.Fragment{}, Removed: []string{}}
	var cur *vault.Fragment
	var text []string
	flush := func() {
		if cur != nil {
			cur.Content = strings.TrimRight(strings.Join(text, "\n"), "\n")
			act.Fragments = append(act.Fragments, *cur)
		}
		cur, text = nil, nil
	}
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		// A fragment or the removed line starts after a blank line.
		if lines[i-1] == "" {
			if fm := memoryFrag().FindStringSubmatch(l); fm != nil {
				flush()
				parts := strings.Split(fm[2], " › ")
				cur = &vault.Fragment{Action: fm[1], Path: parts[0], HeadingPath: append([]string{}, parts[1:]...)}
				continue
			}
			if rest, isRemoved := strings.CutPrefix(l, noLongerLead); isRemoved && i == len(lines)-1 {
				flush()
				act.Removed = strings.Split(rest, "; ")
				continue
			}
		}
		if cur != nil {
			text = append(text, l)
		}
	}
	flush()
	return act, len(act.Fragments) > 0 || len(act.Removed) > 0
}
