package fts

import (
	"context"
	"strings"
)

// weakFraction: with score fusion, a candidate scoring under this fraction of
// the best one is not worth the agent's tokens (cut:weak).
const weakFraction = 0.3

// assemble picks the fragments to deliver from the ranked candidates — at most
// PerResource per resource and MaxFragments in all, no two overlapping, within
// the token budget — and computes the deltas against what the caller holds.
// Each candidate's Outcome records why it was delivered or cut.
func (ix *Index) assemble(ctx context.Context, ranked []*candidate, held []stateEntry, req ActivateRequest, key []byte) (*Activation, error) {
	lim := req.Limits
	holds := make(map[string][8]byte, len(held))
	for _, e := range held {
		holds[e.key] = e.hash
	}
	act := &Activation{Profile: Profile, Fragments: []Fragment{}, Removed: []string{}}
	perResource := map[string]int{}
	ranges := map[int64][][2]int{}
	texts := map[string]bool{}
	used := 0
	floor := 0.0
	if len(ranked) > 0 && ix.fusion != "rrf" && ranked[0].ExactRank == 0 {
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
		f := Fragment{
			Action: action, UnitKey: c.UnitKey, ContentHash: c.ContentHash, ResourceID: c.ResourceID,
			Scope: c.Scope, Kind: "memory", Path: c.Path, HeadingPath: c.HeadingPath, DraftID: c.DraftID,
		}
		if action != "reuse" {
			f.Content = c.Content
		}
		act.Fragments = append(act.Fragments, f)
	}
	// removed: held units that no longer resolve in this project's memory —
	// never units that merely were not selected this time.
	current, err := ix.currentUnits(ctx, held, req.Project)
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	for _, e := range held {
		if !current[e.key] {
			gone[e.key] = true
			act.Removed = append(act.Removed, e.key)
		}
	}
	// next_state: this call's fragments first, then what the caller still holds.
	var next []stateEntry
	seen := map[string]bool{}
	for _, f := range act.Fragments {
		next = append(next, stateEntry{f.UnitKey, hashPrefix(f.ContentHash)})
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
	act.NextState = encodeState(key, next)
	g, err := ix.generation(ctx)
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

// currentUnits reports which of the held unit keys resolve in the project's
// Effective Memory now.
func (ix *Index) currentUnits(ctx context.Context, held []stateEntry, project string) (map[string]bool, error) {
	out := map[string]bool{}
	for lo := 0; lo < len(held); lo += 200 {
		batch := held[lo:min(lo+200, len(held))]
		vis, qargs := visibleTo(project)
		ids := map[string]bool{}
		var idMarks, keyMarks []string
		var idArgs []any
		for _, e := range batch {
			keyMarks = append(keyMarks, "?")
			qargs = append(qargs, e.key)
			if id := keyResourceID(e.key); !ids[id] {
				ids[id] = true
				idMarks, idArgs = append(idMarks, "?"), append(idArgs, id)
			}
		}
		// Through the resources' id index: units have no index of keys.
		keys, err := queryColumn[string](ctx, ix.db, `SELECT u.unit_key FROM resources r CROSS JOIN units u ON u.rid = r.rid
			WHERE `+vis+` AND u.unit_key IN (`+strings.Join(keyMarks, ",")+`) AND r.resource_id IN (`+strings.Join(idMarks, ",")+`)`,
			append(qargs, idArgs...)...)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			out[k] = true
		}
	}
	return out, nil
}

// keyResourceID is the resource id a unit_key starts with: the key without
// its last three parts (heading slug, section, chunk; see vault.Unit).
func keyResourceID(key string) string {
	for i := 0; i < 3; i++ {
		j := strings.LastIndexByte(key, '/')
		if j < 0 {
			return key
		}
		key = key[:j]
	}
	return key
}
