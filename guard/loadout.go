package guard

import (
	"fmt"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// LoadoutBudget is the loadout's size limit in tokens.
const LoadoutBudget = 300

// Recent is a dated log or decision note for the loadout's recent section.
type Recent struct {
	Date        string // YYYY-MM-DD
	Path        string
	Description string
}

// Extra is what the loadout shows besides the rule sources: the project's
// root note and its recent logs (the spec's "Root" line and "Recent L2 Logs").
type Extra struct {
	Root   string
	Recent []Recent
}

// Loadout is LoadoutWith without a root line or recent logs.
func Loadout(sources []Source, project string, changed []string) string {
	return LoadoutWith(sources, project, changed, Extra{})
}

// LoadoutWith is the short context an agent reads at the start of a
// session, in the shape spec 003 gives it: a root line (the project's root
// note), then the project's vision (tier L1), its stack (notes tagged
// stack), its invariants (tier L3) with the decisions that hold rules, and
// its recent logs (dated log notes and tier L2), within LoadoutBudget
// tokens. With changed paths, the resources whose rules cover them come
// first ("Active for this change"). Superseded and deprecated resources,
// and other projects' folders, are left out. Lines that do not fit are
// counted at the end.
func LoadoutWith(sources []Source, project string, changed []string, extra Extra) string {
	var live []Source
	for _, s := range sources {
		if s.Status == "superseded" || s.Status == "deprecated" {
			continue
		}
		if owner := vault.ProjectOf(s.Path); owner != "" && owner != project {
			continue
		}
		live = append(live, s)
	}
	name := project
	if name == "" {
		name = "shared memory"
	}
	secs := loadoutSections(live, changed, extra.Recent)
	return renderLoadout(name, extra.Root, secs)
}

// section is one heading of the loadout and its lines.
type section struct {
	title string
	lines []string
}

// loadoutSections sorts the live notes into the loadout's sections: those
// covering the changed files first, then vision, stack, invariants and
// decisions, each note once; then the recent logs.
func loadoutSections(live []Source, changed []string, recent []Recent) []section {
	used := map[string]bool{}
	line := func(s Source) string {
		used[s.Path] = true
		d := s.Description
		if d == "" {
			d = s.Title
		}
		l := fmt.Sprintf("- [[%s]]: %s", s.Path, oneLine(d))
		if ids := ruleIDs(s); ids != "" {
			l += " (rules: " + ids + ")"
		}
		return l
	}
	var secs []section
	if len(changed) > 0 {
		var sec section
		sec.title = "## Active for this change"
		for _, s := range live {
			if coversAny(s, changed) {
				sec.lines = append(sec.lines, line(s))
			}
		}
		secs = append(secs, sec)
	}
	pick := func(title string, keep func(Source) bool) {
		sec := section{title: title}
		for _, s := range live {
			if !used[s.Path] && keep(s) {
				sec.lines = append(sec.lines, line(s))
			}
		}
		secs = append(secs, sec)
	}
	pick("## Vision", func(s Source) bool { return strings.EqualFold(s.Tier, "L1") })
	pick("## Stack", func(s Source) bool { return hasTag(s, "stack") })
	pick("## L3 Invariants & Decisions", func(s Source) bool { return strings.EqualFold(s.Tier, "L3") || len(s.Rules) > 0 })
	if len(recent) > 0 {
		sec := section{title: "## Recent L2 Logs"}
		for _, r := range recent {
			d := r.Description
			if d == "" {
				d = strings.TrimSuffix(r.Path[strings.LastIndexByte(r.Path, '/')+1:], ".md")
			}
			sec.lines = append(sec.lines, fmt.Sprintf("- %s: %s ([[%s]])", r.Date, oneLine(d), r.Path))
		}
		secs = append(secs, sec)
	}
	return secs
}

// renderLoadout writes the sections within LoadoutBudget tokens, counting
// the lines left out.
func renderLoadout(name, root string, secs []section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context Loadout: %s\n", name)
	if root != "" {
		fmt.Fprintf(&b, "- Root: `%s`\n", root)
	}
	header := b.Len()
	left := 0
	for _, sec := range secs {
		if len(sec.lines) == 0 {
			continue
		}
		head := sec.title + "\n"
		if vault.EstimateTokens(b.String()+head+sec.lines[0]) > LoadoutBudget-8 {
			left += len(sec.lines)
			continue
		}
		b.WriteString(head)
		for _, l := range sec.lines {
			if vault.EstimateTokens(b.String()+l+"\n") > LoadoutBudget-8 {
				left++
				continue
			}
			b.WriteString(l + "\n")
		}
	}
	if b.Len() == header {
		b.WriteString("(no vision, stack or invariant notes yet: give notes tier: L1 or L3, or guard: rules)\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "(+%d more; load them by path)\n", left)
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 140 {
		s = string(r[:140]) + "…"
	}
	return s
}

func ruleIDs(s Source) string {
	var ids []string
	for _, r := range s.Rules {
		if r.Form != "body" {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > 3 {
		ids = append(ids[:3], "…")
	}
	return strings.Join(ids, ", ")
}

func hasTag(s Source, tag string) bool {
	for _, t := range s.Tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

// coversAny reports whether one of s's rules names a path glob that covers
// one of the changed paths.
func coversAny(s Source, changed []string) bool {
	for _, r := range s.Rules {
		for _, g := range r.Paths {
			for _, p := range changed {
				if Match(g, p) {
					return true
				}
			}
		}
	}
	return false
}
