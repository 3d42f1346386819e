package retrieve

import (
	"context"
	"strings"

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
	lim := req.Limits
	holds := make(map[string][8]byte, len(held))
	labels := make(map[string]string, len(held))
	for _, e := range held {
		holds[e.key], labels[e.key] = e.hash, e.label
	}
	act := &vault.Activation{Profile: Profile, Fragments: []vault.Fragment{}, Removed: []string{}}
	perResource := map[string]int{}
	ranges := map[int64][][2]int{}
	texts := map[string]bool{}
	used := 0
	floor := 0.0
	if len(ranked) > 0 && p.fusion != "rrf" && ranked[0].ExactRank == 0 {
		floor = weakFraction * ranked[0].Final
	}
	for _, c := range ranked {
		if c.ExactRank == 0 && c.Final < floor {
			c.Outcome = "cut:weak"
			continue
		}
		if len(act.Fragments) >= lim.MaxFragments {
			c.Outcome = "cut:total"
			continue
		}
		if perResource[c.ResourceID] >= lim.PerResource {
			c.Outcome = "cut:per_resource"
			continue
		}
		if texts[c.ContentHash] || overlaps(ranges[c.RID], c.Start, c.End) {
			c.Outcome = "cut:overlap"
			continue
		}
		action := "add"
		if h, ok := holds[c.UnitKey]; ok {
			action = "replace"
			if h == hashPrefix(c.ContentHash) {
				action = "reuse"
			}
		}
		cost := c.Tokens
		if action == "reuse" {
			cost = 0 // no body is sent
		}
		if used+cost > lim.TokenBudget {
			c.Outcome = "cut:budget"
			continue
		}
		used += cost
		perResource[c.ResourceID]++
		ranges[c.RID] = append(ranges[c.RID], [2]int{c.Start, c.End})
		texts[c.ContentHash] = true
		c.Outcome = "delivered:" + action
		f := vault.Fragment{
			Action: action, UnitKey: c.UnitKey, ContentHash: c.ContentHash, ResourceID: c.ResourceID,
			Scope: c.Scope, Kind: "memory", Path: c.Path, HeadingPath: c.HeadingPath, DraftID: c.DraftID, Status: noteStatus(c.Status),
		}
		if action != "reuse" {
			f.Content = c.Content
		}
		act.Fragments = append(act.Fragments, f)
	}
	// removed: held units that no longer resolve in this project's memory —
	// never units that merely were not selected this time.
	heldKeys := make([]string, len(held))
	for i, e := range held {
		heldKeys[i] = e.key
	}
	current, err := p.look.UnitHashes(ctx, heldKeys, req.Project)
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	delivered := map[string]bool{}
	for _, f := range act.Fragments {
		delivered[f.UnitKey] = true
	}
	var changed []string
	for _, e := range held {
		switch h, ok := current[e.key]; {
		case !ok:
			gone[e.key] = true
			act.Removed = append(act.Removed, e.key)
			act.RemovedLabels = append(act.RemovedLabels, e.label)
		case hashPrefix(h) != e.hash && !delivered[e.key]:
			changed = append(changed, e.key)
		}
	}
	// A unit the caller holds that changed since it was delivered comes back
	// as replace even when this query did not select it: the agent must
	// never keep stale text without being told. One that does not fit the
	// token budget is listed in removed instead (what the caller holds of it
	// is no longer current), so it is never silently stale.
	if len(changed) > 0 {
		units, err := p.look.UnitsByKey(ctx, changed, req.Project)
		if err != nil {
			return nil, err
		}
		for _, k := range changed {
			u, ok := units[k]
			if !ok || used+u.Tokens > lim.TokenBudget {
				gone[k] = true
				act.Removed = append(act.Removed, k)
				act.RemovedLabels = append(act.RemovedLabels, labels[k])
				continue
			}
			used += u.Tokens
			act.Fragments = append(act.Fragments, vault.Fragment{Action: "replace", UnitKey: u.UnitKey, ContentHash: u.ContentHash,
				ResourceID: u.ResourceID, Scope: u.Scope, Kind: "memory", Path: u.Path, HeadingPath: u.HeadingPath,
				DraftID: u.DraftID, Content: u.Content, Status: noteStatus(u.Status)})
		}
	}
	// next_state: this call's fragments first, then what the caller still holds.
	var next []stateEntry
	seen := map[string]bool{}
	for _, f := range act.Fragments {
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
	if act.NextState, err = p.saveState(ctx, key, next); err != nil {
		return nil, err
	}
	g, err := p.look.Revision(ctx)
	if err != nil {
		return nil, err
	}
	act.IndexRevision = "search_" + g
	return act, nil
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
