package retrieve

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// weakFraction: with score fusion, a candidate scoring under this fraction of
// the best one is not worth the agent's tokens (cut:weak).
const weakFraction = 0.3

// assemble picks the fragments to deliver from the ranked candidates — at most
// PerResource per resource and MaxFragments in all, no two overlapping, within
// the token budget — and computes the deltas against what the caller holds.
// Each candidate's Outcome records why it was delivered or cut.
func (p *Pipeline) assemble(ctx context.Context, ranked []*candidate, held []stateEntry, req vault.ActivateRequest, key []byte) (*vault.Activation, error) {
	a := newAssembly(req.Limits, held)
	a.expand = func(u fts.Unit) (string, error) { return p.withEmbeds(ctx, u, req.Project, req.PublishedOnly) }
	a.published, a.relevant = req.PublishedOnly, req.RelevantOnly
	if a.relevant {
		a.qterms = tokenize.ContentTerms(req.Query)
	}
	floor := 0.0
	if len(ranked) > 0 && p.fusion != "rrf" && ranked[0].ExactRank == 0 {
		floor = weakFraction * bestPublished(ranked).Final
	}
	for _, c := range ranked { // rank marked the templates (markShared)
		if err := a.take(c, floor); err != nil {
			return nil, err
		}
	}
	view := req.Project
	if req.PublishedOnly {
		view = fts.PublishedView(req.Project)
	}
	gone, err := p.settleHeld(ctx, a, held, view)
	if err != nil {
		return nil, err
	}
	if a.act.NextState, err = p.saveState(ctx, key, nextState(a.act.Fragments, held, gone)); err != nil {
		return nil, err
	}
	g, err := p.look.Revision(ctx)
	if err != nil {
		return nil, err
	}
	a.act.IndexRevision = "search_" + g
	return a.act, nil
}

// assembly is an activation being put together: what is delivered so far
// and what it has used of the limits.
type assembly struct {
	lim         vault.Limits
	holds       map[string][8]byte // the caller's units: key → hash prefix
	labels      map[string]string  // the caller's units: key → "path › headings"
	act         *vault.Activation
	used        int // tokens
	drafts      int // fragments from Drafts
	draftTokens int // their tokens
	perResource map[string]int
	ranges      map[int64][][2]int // delivered byte ranges, by resource row
	texts       map[string]bool    // delivered content hashes
	sections    map[string]bool    // delivered sections (vault.KeySection of their unit keys)
	// expand is a unit's text as delivered (its embeds' text added).
	expand func(fts.Unit) (string, error)
	// published: no Draft's text; relevant: only what clears the bar
	// (relevant), for the query's content terms qterms.
	published, relevant bool
	qterms              map[string]bool
}

func newAssembly(lim vault.Limits, held []stateEntry) *assembly {
	a := &assembly{
		lim: lim, holds: make(map[string][8]byte, len(held)), labels: make(map[string]string, len(held)),
		act:         &vault.Activation{Profile: Profile, Fragments: []vault.Fragment{}, Removed: []string{}},
		perResource: map[string]int{}, ranges: map[int64][][2]int{}, texts: map[string]bool{}, sections: map[string]bool{},
	}
	for _, e := range held {
		a.holds[e.key], a.labels[e.key] = e.hash, e.label
	}
	return a
}

// bestPublished is the best of ranked that no Draft holds, or the best of
// all when Drafts hold every one: the weak cut's bar is set by published
// memory. An agent's Draft stuffed with the query's words scored above
// every published note, and the bar, a fraction of the best score, cut
// the published answers from every activation of the Draft's project
// (TestAttack_ADraftCannotRaiseTheWeakCutOverPublishedAnswers).
func bestPublished(ranked []*candidate) *candidate {
	for _, c := range ranked {
		if c.DraftID == "" {
			return c
		}
	}
	return ranked[0]
}

// take delivers c if it is strong enough (floor), fits the limits and
// overlaps nothing delivered, and records its outcome either way.
func (a *assembly) take(c *candidate, floor float64) error {
	plausible := c.plausible()
	switch {
	case a.published && c.DraftID != "":
		c.Outcome = "cut:draft"
		return nil
	case a.relevant && !relevant(c, a.qterms):
		c.Outcome = "cut:irrelevant"
		return nil
	case c.template:
		c.Outcome = "cut:template"
		return nil
	case c.Bare && !markdown.ShowsVaultFile(c.Content):
		c.Outcome = "cut:empty" // only comments and pictures from the web
		return nil
	case c.copyOf != nil && strings.HasPrefix(c.copyOf.Outcome, "delivered:"):
		c.Outcome = "cut:copy" // shared.go
		return nil
	case c.ExactRank == 0 && c.Final < floor && !plausible:
		c.Outcome = "cut:weak"
		return nil
	case len(a.act.Fragments) >= a.lim.MaxFragments:
		c.Outcome = "cut:total"
		return nil
	case c.DraftID != "" && a.drafts >= max(1, a.lim.MaxFragments/2):
		// Drafts take at most half of an activation's places, and half its
		// token budget (below): an agent's Draft is its project's to read,
		// not to fill. Twenty Draft notes stuffed with a question's words
		// took every place of their project's activations, six long ones its
		// whole budget, and the published answer was cut
		// (TestAttack_DraftsCannotCrowdOutPublishedMemory).
		c.Outcome = "cut:drafts"
		return nil
	case a.perResource[c.ResourceID] >= a.lim.PerResource && !(plausible && c.SectionScore > 0 && !a.sections[vault.KeySection(c.UnitKey)]):
		// A note's further section passes the cap only when it is likely an
		// answer by its own text (its heading and body match the query,
		// sections.go), not by the title every section of the note shares;
		// a further part of a section already delivered is no further
		// section (a long list's parts took five places of one query).
		c.Outcome = "cut:per_resource"
		return nil
	case a.texts[c.ContentHash] || overlaps(a.ranges[c.RID], c.Start, c.End):
		c.Outcome = "cut:overlap"
		return nil
	}
	action := "add"
	if h, ok := a.holds[c.UnitKey]; ok {
		action = "replace"
		if h == hashPrefix(c.ContentHash) {
			action = "reuse"
		}
	}
	cost, content := c.Tokens, c.Content
	if action == "reuse" {
		cost = 0 // no body is sent
	} else if a.expand != nil {
		var err error
		if content, err = a.expand(c.Unit); err != nil {
			return err
		}
		if content != c.Content {
			cost = vault.EstimateTokens(content)
		}
	}
	if a.used+cost > a.lim.TokenBudget {
		c.Outcome = "cut:budget"
		return nil
	}
	if c.DraftID != "" {
		if a.draftTokens+cost > a.lim.TokenBudget/2 {
			c.Outcome = "cut:drafts"
			return nil
		}
		a.drafts++
		a.draftTokens += cost
	}
	a.used += cost
	a.perResource[c.ResourceID]++
	a.ranges[c.RID] = append(a.ranges[c.RID], [2]int{c.Start, c.End})
	a.texts[c.ContentHash] = true
	a.sections[vault.KeySection(c.UnitKey)] = true
	c.Outcome = "delivered:" + action
	f := fragment(action, c.Unit)
	f.Content = content
	if action == "reuse" {
		f.Content = ""
	}
	a.act.Fragments = append(a.act.Fragments, f)
	return nil
}

// fragment is the fragment that delivers u.
func fragment(action string, u fts.Unit) vault.Fragment {
	return vault.Fragment{
		Action: action, UnitKey: u.UnitKey, ContentHash: u.ContentHash, ResourceID: u.ResourceID,
		Scope: u.Scope, Kind: "memory", Path: u.Path, HeadingPath: markdown.ShownHeadings(u.HeadingPath), DraftID: u.DraftID,
		Content: u.Content, Status: noteStatus(u.Status),
	}
}

// settleHeld lists in removed the held units that no longer resolve in the
// project's memory — never units that merely were not selected this time —
// and returns them. A unit the caller holds that changed since it was
// delivered comes back as replace even when this query did not select it:
// the agent must never keep stale text without being told. One that does
// not fit the token budget is listed in removed instead (what the caller
// holds of it is no longer current), so it is never silently stale.
func (p *Pipeline) settleHeld(ctx context.Context, a *assembly, held []stateEntry, project string) (map[string]bool, error) {
	keys := make([]string, len(held))
	for i, e := range held {
		keys[i] = e.key
	}
	current, err := p.look.UnitHashes(ctx, keys, project)
	if err != nil {
		return nil, err
	}
	delivered := map[string]bool{}
	for _, f := range a.act.Fragments {
		delivered[f.UnitKey] = true
	}
	gone := map[string]bool{}
	remove := func(k string) {
		gone[k] = true
		a.act.Removed = append(a.act.Removed, k)
		a.act.RemovedLabels = append(a.act.RemovedLabels, a.labels[k])
	}
	var changed []string
	for _, e := range held {
		switch h, ok := current[e.key]; {
		case !ok:
			remove(e.key)
		case hashPrefix(h) != e.hash && !delivered[e.key]:
			changed = append(changed, e.key)
		}
	}
	if len(changed) == 0 {
		return gone, nil
	}
	units, err := p.look.UnitsByKey(ctx, changed, project)
	if err != nil {
		return nil, err
	}
	for _, k := range changed {
		u, ok := units[k]
		if ok && a.published && u.DraftID != "" {
			continue // what changed is a Draft's text, which this delivery leaves out
		}
		if !ok || a.used+u.Tokens > a.lim.TokenBudget {
			remove(k)
			continue
		}
		f := fragment("replace", u)
		if a.expand != nil {
			if f.Content, err = a.expand(u); err != nil {
				return nil, err
			}
		}
		if cost := vault.EstimateTokens(f.Content); a.used+cost <= a.lim.TokenBudget {
			a.used += cost
		} else {
			f.Content, a.used = u.Content, a.used+u.Tokens
		}
		a.act.Fragments = append(a.act.Fragments, f)
	}
	return gone, nil
}

// nextState is what the next state remembers: this call's fragments first,
// then what the caller still holds, at most MaxStateUnits.
func nextState(frags []vault.Fragment, held []stateEntry, gone map[string]bool) []stateEntry {
	var next []stateEntry
	seen := map[string]bool{}
	for _, f := range frags {
		next = append(next, stateEntry{f.UnitKey, hashPrefix(f.ContentHash), fragmentLabel(f)})
		seen[f.UnitKey] = true
	}
	for _, e := range held {
		if !seen[e.key] && !gone[e.key] {
			next = append(next, e)
			seen[e.key] = true
		}
	}
	if len(next) > MaxStateUnits {
		next = next[:MaxStateUnits]
	}
	return next
}

func overlaps(rs [][2]int, start, end int) bool {
	for _, r := range rs {
		if start < r[1] && r[0] < end {
			return true
		}
	}
	return false
}

// noteStatus is a fragment's status field: empty for an active note.
func noteStatus(s string) string {
	if s == "active" {
		return ""
	}
	return s
}

// fragmentLabel is where a fragment is, "path › headings", as the text of a
// later activation names it if it is removed.
func fragmentLabel(f vault.Fragment) string {
	return strings.Join(append([]string{f.Path}, f.HeadingPath...), " › ")
}

// plausible reports whether a candidate is likely an answer, which the
// per-note cap and the weak cut must not drop while the budget has room:
// its own evidence puts it at the top of a stage (BM25 or vectors), or the
// notes at the top of the list link to it.
func (c *candidate) plausible() bool {
	return (c.BM25Rank >= 1 && c.BM25Rank <= plausibleRank) || (c.VectorRank >= 1 && c.VectorRank <= plausibleRank) ||
		c.LinkBonus > 0
}

const plausibleRank = 3

// The relevance bar of RelevantOnly: an exact match; a section whose own
// text (heading, body, and the note's title) holds at least half the
// query's distinct content words, and two when it has two or more; or a
// vector at least relevantSimilarity close. BM25 over an OR of the words
// finds something for almost any query; this says whether it is about it.
// The built-in model puts a short everyday prompt ("run the tests") at
// 0.5 or more from some section of most vaults, so at 0.5 the hook spoke
// for four of five off-topic prompts once the model was installed; 0.7 is
// calibrated on the table's sets (docs/BENCHMARKS.md, the prompt hook).
const relevantSimilarity = 0.7

func relevant(c *candidate, qterms map[string]bool) bool {
	if c.ExactRank > 0 || c.VectorScore >= relevantSimilarity {
		return true
	}
	if len(qterms) == 0 {
		return false
	}
	have := map[string]bool{}
	count := func(s string) {
		tokenize.EachToken(s, func(t string, _ bool) {
			if qterms[t] {
				have[t] = true
			}
		})
	}
	count(c.Title)
	count(strings.Join(c.HeadingPath, " "))
	count(c.Content)
	need := (len(qterms) + 1) / 2
	if len(qterms) >= 2 {
		need = max(need, 2)
	}
	return len(have) >= need
}
