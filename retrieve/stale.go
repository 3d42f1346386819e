package retrieve

import (
	"context"

	"github.com/lore-memory/lore/vault"
)

// equallyRelevant is how close two fragments' scores are for the one whose
// citations of code hold to go first: within 2 % of each other.
const equallyRelevant = 0.98

// markStale gives each delivered fragment the findings of its section's
// citations of code that broke (req.Code checks them against the bound
// workspace's repository), and puts a fragment whose citations hold before
// an equally relevant one whose citations broke. A Draft's fragment is not
// checked: it is not reviewed memory, and says so already. A note that
// cannot be read or checked is left unmarked: marking is advice, and
// activate answers without it.
func (p *Pipeline) markStale(ctx context.Context, code vault.CodeChecker, act *vault.Activation, ranked []*candidate) {
	byNote := map[string][]vault.CodeFinding{}
	for i := range act.Fragments {
		f := &act.Fragments[i]
		if f.DraftID != "" {
			continue
		}
		all, ok := byNote[f.Path]
		if !ok {
			if raw, err := p.ix.Vault().ReadFile(f.Path); err == nil {
				all, _ = code.CheckNote(ctx, f.Path, raw)
			}
			byNote[f.Path] = all
		}
		for _, fd := range vault.SectionFindings(all, f.HeadingPath) {
			if fd.Broken() {
				f.Stale = append(f.Stale, fd)
			}
		}
	}
	score := map[string]float64{}
	for _, c := range ranked {
		score[c.UnitKey] = c.Final
	}
	fr := act.Fragments
	for i := 0; i+1 < len(fr); i++ {
		a, b := fr[i], fr[i+1]
		if len(a.Stale) > 0 && len(b.Stale) == 0 && a.Action != "reuse" && b.Action != "reuse" &&
			score[b.UnitKey] >= score[a.UnitKey]*equallyRelevant {
			fr[i], fr[i+1] = b, a
			i++
		}
	}
}
