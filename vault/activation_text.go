package vault

import (
	"strings"

	"github.com/lore-memory/lore/internal/lazyre"
)

// Text is the activation as an agent reads it (the MCP text content of
// activate; structuredContent carries the spec's JSON). Each fragment is a
// header line — "[action] path › headings", a Draft's marked first
// ("[add · Draft drf_…, not reviewed] path › …"), " · status: …" after
// when it applies — and its text as written; a reuse
// fragment is the header alone. A text that starts with its own heading
// line is not given that heading again in the header. The footer names
// removed units by where they were (RemovedLabels; the unit key when that
// is unknown) and ends with next_state. load and store take the path, and
// a fragment is known by its path and headings, so unit_key, resource_id,
// scope, kind, the fragment's content_hash (which no operation takes), the
// index revision and the run id are left to the structured form: on the
// demo questions that made the notes' own text about half of the tokens,
// against under a fifth when the text repeated the JSON.
// A fragment whose section cites code that changed has a marker line under
// its header (StaleLead, then each finding's Sentence).
// ParseActivationText reads it back (the activity view reads agents' logs,
// which may hold only this text).
func (a *Activation) Text() string {
	var b strings.Builder
	if len(a.Fragments) == 0 {
		b.WriteString("No memory matched this task.\n")
	}
	for i, f := range a.Fragments {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + f.Action)
		if f.DraftID != "" {
			// first, before the path: a Draft is never read as memory
			b.WriteString(" · Draft " + f.DraftID + ", not reviewed")
		}
		b.WriteString("] " + f.Path)
		hp := f.HeadingPath
		if n := len(hp); n > 0 && firstHeading(f.Content) == hp[n-1] {
			hp = hp[:n-1]
		}
		for _, h := range hp {
			b.WriteString(" › " + h)
		}
		if f.Status != "" {
			b.WriteString(" · status: " + f.Status)
		}
		b.WriteByte('\n')
		if len(f.Stale) > 0 || f.Action != "reuse" && strings.HasPrefix(f.Content, StaleLead) {
			// (a text that starts as a marker does gets one, empty or not, so
			// it reads back as text)
			b.WriteString(StaleText(f.Stale) + "\n")
		}
		if f.Action != "reuse" && f.Content != "" {
			b.WriteString(strings.TrimRight(f.Content, "\n"))
			b.WriteByte('\n')
		}
	}
	if len(a.Removed) > 0 {
		names := make([]string, len(a.Removed))
		for i, k := range a.Removed {
			names[i] = k
			if i < len(a.RemovedLabels) && a.RemovedLabels[i] != "" {
				names[i] = a.RemovedLabels[i]
			}
		}
		b.WriteString("\n" + removedLead + strings.Join(names, "; ") + "\n")
	}
	b.WriteString("\nnext_state: " + a.NextState + "\n")
	return b.String()
}

// StaleText is the marker under a fragment's header: its broken
// citations of code, each with the commit that broke it.
func StaleText(fs []CodeFinding) string {
	var b strings.Builder
	b.WriteString(StaleLead)
	for i, f := range fs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Sentence())
	}
	return b.String()
}

// firstHeading returns the text of s's first line when it is an ATX
// heading, else "".
func firstHeading(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	t := strings.TrimLeft(line, "#")
	if t == line || len(line)-len(t) > 6 || !strings.HasPrefix(t, " ") {
		return ""
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "#"))
}

var (
	// The Draft stands first ("[add · Draft drf_…, not reviewed]"); a text
	// of an older lore has it after the headings, and still reads.
	fragmentHeader = lazyre.New(`^\[(add|replace|reuse)(?: · Draft (drf_[^,\s]+), not reviewed)?\] (\S.*?)(?: · Draft (drf_\S+))?(?: · status: (\S+))?$`)
	stateFooter    = lazyre.New(`^next_state: (\S*)$`)
)

const removedLead = "removed (no longer current; stop relying on them): "

// ParseActivationText reads a text made by Text back: the fragments (path,
// headings — the one the header left to the text restored —, Draft,
// status, text), the removed units as the text names them, and next_state.
// ok is false when s is not such a text. A fragment's text comes back
// without its trailing newlines.
func ParseActivationText(s string) (a *Activation, ok bool) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	n := len(lines)
	if n == 0 {
		return nil, false
	}
	m := stateFooter().FindStringSubmatch(lines[n-1])
	if m == nil {
		return nil, false
	}
	a = &Activation{NextState: m[1], Fragments: []Fragment{}, Removed: []string{}}
	end := n - 1
	if end > 0 && lines[end-1] == "" {
		end--
	}
	if end > 0 && strings.HasPrefix(lines[end-1], removedLead) {
		a.Removed = strings.Split(strings.TrimPrefix(lines[end-1], removedLead), "; ")
		end--
		if end > 0 && lines[end-1] == "" {
			end--
		}
	}
	body := lines[:end]
	if len(body) == 1 && body[0] == "No memory matched this task." {
		return a, true
	}
	var cur *Fragment
	var text []string
	marked := false // the fragment's stale marker was read
	flush := func() {
		if cur == nil {
			return
		}
		if k := len(text); k > 0 && text[k-1] == "" {
			text = text[:k-1] // the blank line between fragments
		}
		cur.Content = strings.Join(text, "\n")
		if h := firstHeading(cur.Content); h != "" {
			if k := len(cur.HeadingPath); k == 0 || cur.HeadingPath[k-1] != h {
				cur.HeadingPath = append(cur.HeadingPath, h)
			}
		}
		a.Fragments = append(a.Fragments, *cur)
	}
	for i, line := range body {
		h := fragmentHeader().FindStringSubmatch(line)
		if h == nil || (i > 0 && body[i-1] != "") { // a header follows a blank line
			if cur != nil && text == nil && !marked && strings.HasPrefix(line, StaleLead) {
				marked = true // the marker under the header, not the note's text
				continue
			}

			if cur == nil {
				return nil, false
			}
			text = append(text, line)
			continue
		}
		flush()
		parts := strings.Split(h[3], " › ")
		draft := h[2]
		if draft == "" {
			draft = h[4]
		}
		cur = &Fragment{Action: h[1], Path: parts[0], HeadingPath: parts[1:], DraftID: draft, Status: h[5], Kind: "memory"}
		text, marked = nil, false
	}
	flush()
	return a, true
}
