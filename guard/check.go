package guard

import (
	"fmt"
	"path"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

// Source is a rule-bearing resource of the Effective Memory (the domain's
// RuleSource), as the checks and the loadout read it.
type Source = vault.RuleSource

// Rule is a compiled rule.
type Rule struct {
	vault.RuleSpec
	ResourceID   string `json:"resource_id"`
	ResourcePath string `json:"resource_path"`
	re           *regexp.Regexp
	lit          string     // a string every match contains ("" when none is known)
	grams        []uint16   // hashes of lit's 4-byte windows (see gramSet)
	globs        [][]string // Paths, split at "/" (nil entry: matched on the base name)
}

// Broken is a rule that cannot be checked, and why.
type Broken struct {
	Rule         string `json:"rule"`
	ResourceID   string `json:"resource_id"`
	ResourcePath string `json:"resource_path"`
	Line         int    `json:"line,omitempty"`
	Problem      string `json:"problem"`
	// Blocks: the rules of a note that cannot be read at all; the guard
	// fails closed on it, strict or not (a broken YAML took its rules
	// with it, and "no violations (3 rules)" let the change through).
	Blocks bool `json:"blocks,omitempty"`
}

// RuleSet is the rules that apply to one project.
type RuleSet struct {
	Rules  []*Rule
	Broken []Broken
	// Notes say where the rules differ from the vault's work tree
	// (Committed); every report prints them.
	Notes []string
}

// Compile turns the rules of sources into the RuleSet of project. Rules of
// superseded or deprecated resources do not apply, nor those under another
// project's folder (with no project, only shared ones); a rule that does not
// compile (or is written wrong) is kept in Broken, never dropped silently.
func Compile(sources []Source, project string) *RuleSet {
	rs := &RuleSet{}
	for _, s := range sources {
		if s.Status == "superseded" || s.Status == "deprecated" {
			continue
		}
		if owner := vault.ProjectOf(s.Path); owner != "" && owner != project {
			continue
		}
		for _, spec := range s.Rules {
			broken := func(problem string) {
				rs.Broken = append(rs.Broken, Broken{Rule: spec.ID, ResourceID: s.ResourceID, ResourcePath: s.Path, Line: spec.Line, Problem: problem, Blocks: spec.Unreadable})
			}
			if spec.Problem != "" {
				broken(spec.Problem)
				continue
			}
			r := &Rule{RuleSpec: spec, ResourceID: s.ResourceID, ResourcePath: s.Path}
			// A zero-width or other invisible character makes a pattern
			// that looks right and never matches, and a diff whose removed
			// and added lines look the same: such a rule is broken, and
			// the report shows where the character is.
			if termtext.HasInvisible(spec.Pattern) {
				broken(fmt.Sprintf("pattern %s holds an invisible or control character; write only the characters it means", termtext.Mark(strconv.Quote(spec.Pattern))))
				continue
			}
			bad := false
			for _, g := range spec.Paths {
				if termtext.HasInvisible(g) {
					broken(fmt.Sprintf("path glob %s holds an invisible or control character", termtext.Mark(strconv.Quote(g))))
					bad = true
					continue
				}
				if err := validGlob(g); err != nil {
					broken(fmt.Sprintf("path glob %q: %v", g, err))
					bad = true
				}
			}
			if bad {
				continue
			}
			if spec.Literal {
				r.lit = spec.Pattern
			} else {
				re, err := regexp.Compile(spec.Pattern)
				if err != nil {
					broken(fmt.Sprintf("pattern %q does not compile: %v", spec.Pattern, err))
					continue
				}
				r.re, r.lit = re, requiredLiteral(spec.Pattern)
			}
			r.grams = litGrams(r.lit)
			for _, g := range spec.Paths {
				g = strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/")
				if strings.Contains(g, "/") {
					r.globs = append(r.globs, strings.Split(g, "/"))
				} else {
					r.globs = append(r.globs, []string{"", g}) // "": match the base name
				}
			}
			rs.Rules = append(rs.Rules, r)
		}
	}
	return rs
}

// gramSet is a 65,536-bit set of the hashes of every 4-byte window of a
// text: a rule whose literal has a window missing from it cannot match, and
// that is known without searching the text for the literal.
type gramSet [1024]uint64

func gramHash(s string) uint16 {
	return uint16((uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24) * 0x9E3779B1 >> 16)
}

func (g *gramSet) fill(s string) {
	*g = gramSet{}
	for i := 0; i+4 <= len(s); i++ {
		h := gramHash(s[i : i+4])
		g[h>>6] |= 1 << (h & 63)
	}
}

func (g *gramSet) mayContain(grams []uint16) bool {
	for _, h := range grams {
		if g[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// litGrams returns the hashes of up to 8 windows spread over lit.
func litGrams(lit string) []uint16 {
	if len(lit) < 4 {
		return nil
	}
	n := len(lit) - 3
	step := max(1, n/8)
	var out []uint16
	for i := 0; i < n; i += step {
		out = append(out, gramHash(lit[i:i+4]))
	}
	return out
}

// requiredLiteral returns a string that every match of the expression must
// contain (the longest one found at the top level of a concatenation), so
// most lines are ruled out with a substring search before any regexp runs.
func requiredLiteral(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	best := ""
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(string(r.Rune)) > len(best) {
			best = string(r.Rune)
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture {
				sub = sub.Sub[0]
			}
			consider(sub)
		}
	}
	return best
}

// applies reports whether a rule's globs cover a path, given as its
// segments (no globs: every file).
func (r *Rule) applies(parts []string) bool {
	if len(r.globs) == 0 {
		return true
	}
	for _, g := range r.globs {
		if g[0] == "" && len(g) == 2 {
			if ok, _ := path.Match(g[1], parts[len(parts)-1]); ok {
				return true
			}
		} else if matchParts(g, parts) {
			return true
		}
	}
	return false
}

// Violation is one broken rule at one place.
type Violation struct {
	Rule         string `json:"rule"`
	Kind         string `json:"kind"`
	Severity     string `json:"severity"`
	File         string `json:"file"`
	Line         int    `json:"line,omitempty"` // 0 for a require rule (the whole file)
	Text         string `json:"text,omitempty"`
	Pattern      string `json:"pattern"`
	Message      string `json:"message,omitempty"`
	ResourceID   string `json:"resource_id"`
	ResourcePath string `json:"resource_path"`
}

// Report is the outcome of a check.
type Report struct {
	OK         bool        `json:"ok"` // nothing blocks (no error violation; with strict, none at all)
	Strict     bool        `json:"strict"`
	Violations []Violation `json:"violations"`
	// Total counts every violation found, Blocks those that block; at most
	// MaxViolations are listed and Omitted says how many more there were.
	Total     int      `json:"total_violations"`
	Blocks    int      `json:"blocking_violations"`
	Omitted   int      `json:"omitted_violations,omitempty"`
	Broken    []Broken `json:"broken_rules"`
	Files     int      `json:"files"`
	Rules     int      `json:"rules"`
	Notes     []string `json:"notes,omitempty"`
	ElapsedUS int64    `json:"elapsed_us"`
}

// MaxViolations bounds the violations a report lists: a rule that matches
// every line of a huge diff must not take the memory and the output with it
// (20 such rules on 100,000 lines once made 2 M violations and 373 MB of
// output). The rest are counted, not kept.
const MaxViolations = 200

// add records a violation (or only counts it, past MaxViolations).
func (r *Report) add(rule *Rule, file string, line int, text string) {
	r.Total++
	if rule.Severity == "error" || r.Strict {
		r.Blocks++
	}
	if len(r.Violations) >= MaxViolations {
		r.Omitted++
		return
	}
	r.Violations = append(r.Violations, rule.violation(file, line, text))
}

// blocking counts the violations that block: errors, and with strict also warnings.
func (r Report) blocking() int { return r.Blocks }

// Content returns a touched file's content after the change (false when it
// cannot be read: deleted, binary, outside the repository).
type Content func(path string) ([]byte, bool)

// maxText bounds the offending text a violation quotes.
const maxText = 200

// Check holds the changed files against the rules: deny patterns against the
// added lines of the files their globs cover, require patterns against the
// whole content of the touched (not deleted) files their globs cover.
func (rs *RuleSet) Check(files []FileDiff, content Content, strict bool) Report {
	start := time.Now()
	rep := Report{Strict: strict, Violations: []Violation{}, Broken: rs.Broken, Files: len(files), Rules: len(rs.Rules), Notes: rs.Notes}
	if rep.Broken == nil {
		rep.Broken = []Broken{}
	}
	var buf strings.Builder
	grams := new(gramSet)
	for _, f := range files {
		p := f.Path()
		if f.Binary || p == "" {
			continue
		}
		parts := strings.Split(p, "/")
		var deny, require []*Rule
		for _, r := range rs.Rules {
			if r.applies(parts) {
				if r.Kind == "deny" {
					deny = append(deny, r)
				} else if f.Status != "deleted" {
					require = append(require, r)
				}
			}
		}
		if len(deny) > 0 && len(f.Added) > 0 {
			rep.checkDenied(deny, p, f.Added, &buf, grams)
		}
		if len(require) > 0 && content != nil {
			data, ok := content(p)
			if !ok {
				continue
			}
			text := string(data)
			for _, r := range require {
				if !r.matches(text) {
					rep.add(r, p, 0, "")
				}
			}
		}
	}
	sort.SliceStable(rep.Violations, func(i, j int) bool {
		a, b := rep.Violations[i], rep.Violations[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	rep.OK = rep.blocking() == 0 && !(strict && len(rep.Broken) > 0) && !rs.failsClosed()
	rep.ElapsedUS = time.Since(start).Microseconds()
	return rep
}

// failsClosed reports whether a rule note cannot be read at all.
func (rs *RuleSet) failsClosed() bool {
	for _, b := range rs.Broken {
		if b.Blocks {
			return true
		}
	}
	return false
}

// checkDenied checks the deny rules against a file's added lines. One
// buffer holds the added lines: a rule whose required literal is not in it
// is ruled out with one substring search (buf and grams are reused).
func (rep *Report) checkDenied(deny []*Rule, p string, added []Line, buf *strings.Builder, grams *gramSet) {
	buf.Reset()
	for _, l := range added {
		buf.WriteString(l.Text)
		buf.WriteByte('\n')
	}
	all := buf.String()
	grams.fill(all)
	for _, r := range deny {
		if r.lit != "" && (!grams.mayContain(r.grams) || !strings.Contains(all, r.lit)) {
			continue
		}
		for _, l := range added {
			if r.matches(l.Text) {
				rep.add(r, p, l.N, l.Text)
			}
		}
	}
}

func (r *Rule) matches(s string) bool {
	if r.re == nil {
		return strings.Contains(s, r.lit)
	}
	if r.lit != "" && !strings.Contains(s, r.lit) {
		return false
	}
	return r.re.MatchString(s)
}

func (r *Rule) violation(file string, line int, text string) Violation {
	text = strings.TrimSpace(text)
	if rs := []rune(text); len(rs) > maxText {
		text = string(rs[:maxText]) + "…"
	}
	return Violation{Rule: r.ID, Kind: r.Kind, Severity: r.Severity, File: file, Line: line, Text: text,
		Pattern: r.Pattern, Message: r.Message, ResourceID: r.ResourceID, ResourcePath: r.ResourcePath}
}

// Blocking reports whether the report should stop a commit.
func (r Report) Blocking() bool { return !r.OK }

// FormatADR writes the report in the shape of the vault contract's audit
// report (spec 003): the count, then for each violation the rule id, the
// file and line, the offending text, the rule, the fix and the note that
// holds the rule as a wikilink.
func (r Report) FormatADR() string {
	var b strings.Builder
	ms := float64(r.ElapsedUS) / 1000
	switch {
	case r.Total == 0:
		fmt.Fprintf(&b, "✅ Living ADR Guard: no violations (%d files, %d rules, %.1f ms)\n", r.Files, r.Rules, ms)
	case r.OK:
		fmt.Fprintf(&b, "⚠️ Living ADR Guard: %d warning(s), nothing blocks (%.1f ms)\n", r.Total, ms)
	default:
		fmt.Fprintf(&b, "❌ Living ADR Guard Failure: %d violation(s) detected (%.1f ms)\n", r.Blocks, ms)
	}
	for _, v := range r.Violations {
		where := v.File
		if v.Line > 0 {
			where += fmt.Sprintf(" Line %d", v.Line)
		}
		sev := ""
		if v.Severity == "warn" {
			sev = " (warning)"
		}
		if v.Kind == "deny" {
			fmt.Fprintf(&b, "- [%s] %s: '%s' violates the rule 'deny: %s'%s.\n", v.Rule, where, v.Text, v.Pattern, sev)
		} else {
			fmt.Fprintf(&b, "- [%s] %s: does not contain what the rule requires, 'require: %s'%s.\n", v.Rule, where, v.Pattern, sev)
		}
		if v.Message != "" {
			fmt.Fprintf(&b, "  Fix: %s\n", v.Message)
		}
		fmt.Fprintf(&b, "  Rule: [[%s]] (%s)\n", v.ResourcePath, v.ResourceID)
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "… and %d more violation(s) not listed (the first %d are shown)\n", r.Omitted, MaxViolations)
	}
	for _, br := range r.Broken {
		fmt.Fprintf(&b, "⚠️ broken rule [%s] in [[%s]]: %s — it is not checked until it is fixed\n", br.Rule, br.ResourcePath, br.Problem)
	}
	return b.String()
}

// Format writes the report for people.
func (r Report) Format() string {
	var b strings.Builder
	ms := float64(r.ElapsedUS) / 1000
	unreadable := 0
	for _, br := range r.Broken {
		if br.Blocks {
			unreadable++
		}
	}
	switch {
	case unreadable > 0 && r.blocking() == 0:
		fmt.Fprintf(&b, "❌ lore guard: %d rule note(s) cannot be read, so this change cannot be checked (%.1f ms)\n", unreadable, ms)
	case r.Total == 0 && r.OK:
		fmt.Fprintf(&b, "✅ lore guard: no violations (%d files, %d rules, %.1f ms)\n", r.Files, r.Rules, ms)
	case r.OK:
		fmt.Fprintf(&b, "⚠️  lore guard: %d warning(s), nothing blocks (%.1f ms)\n", r.Total, ms)
	default:
		fmt.Fprintf(&b, "❌ lore guard: %d violation(s) block this change (%.1f ms)\n", r.blocking(), ms)
	}
	for _, v := range r.Violations {
		mark := "error"
		if v.Severity == "warn" {
			mark = "warn"
		}
		if v.Kind == "deny" {
			fmt.Fprintf(&b, "- [%s] %s %s:%d: %q matches 'deny: %s'\n", v.Rule, mark, v.File, v.Line, v.Text, v.Pattern)
		} else {
			fmt.Fprintf(&b, "- [%s] %s %s: does not contain 'require: %s'\n", v.Rule, mark, v.File, v.Pattern)
		}
		if v.Message != "" {
			fmt.Fprintf(&b, "  fix: %s\n", v.Message)
		}
		fmt.Fprintf(&b, "  rule: [[%s]] (%s)\n", v.ResourcePath, v.ResourceID)
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "… and %d more violation(s) not listed (the first %d are shown)\n", r.Omitted, MaxViolations)
	}
	for _, br := range r.Broken {
		if br.Blocks {
			fmt.Fprintf(&b, "❌ unreadable rule note %s: %s — every change is refused until it is fixed\n", br.ResourcePath, br.Problem)
			continue
		}
		fmt.Fprintf(&b, "⚠️  broken rule [%s] in %s: %s — it is not checked until it is fixed\n", br.Rule, br.ResourcePath, br.Problem)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
