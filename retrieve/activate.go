package retrieve

import (
	"context"
	"iter"
	"maps"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Pipeline constants (see the package doc for how they were chosen).
const (
	rrfK          = 60   // reciprocal-rank fusion constant (fusion: rrf)
	vectorBeta    = 0.3  // weight of cosine similarity in score fusion, unless lore.yaml sets one
	stageDepth    = 40   // candidates taken from each stage and kept after fusion
	rerankDepth   = 24   // fused candidates a reranker sees
	linkBonus     = 0.05 // one-hop link bonus per linked top note, as a fraction of the top fused score
	linkTop       = 5    // the notes at the top whose links count
	statusPenalty = 0.5  // superseded/deprecated resources' score factor
	// Profile names the shape of an activation response.
	Profile = "agent_activation.v2"
)

// stages are a candidate's ranks and scores at every stage, and its fate;
// retrieval runs record them as they are.
type stages struct {
	ExactRank   int     `json:"exact_rank,omitempty"`
	BM25Rank    int     `json:"bm25_rank,omitempty"`
	BM25Score   float64 `json:"bm25_score,omitempty"`
	VectorRank  int     `json:"vector_rank,omitempty"`
	VectorScore float64 `json:"vector_score,omitempty"`
	Fused       float64 `json:"fused"`
	LinkBonus   float64 `json:"link_bonus,omitempty"`
	CoverBonus  float64 `json:"cover_bonus,omitempty"` // its note's coverage of the query (the note stage)
	Rerank      float64 `json:"rerank_score,omitempty"`
	// SectionScore is how well the unit's own heading and body match the
	// query among its note's candidates (sections.go).
	SectionScore float64 `json:"section_score,omitempty"`
	Final        float64 `json:"final"`
	Outcome      string  `json:"outcome"` // delivered:add|replace|reuse, cut:weak|budget|per_resource|total|drafts|overlap|template|copy|empty|draft|irrelevant
}

// candidate is one unit as it moves through the stages.
type candidate struct {
	fts.Unit
	stages
	template bool       // a short text another note's candidate shares (shared.go)
	label    float64    // the query's words in its own heading, within its note (sections.go)
	copyOf   *candidate // the candidate kept in its stead: another note's copy of its text (shared.go)
	readable *string    // its text as a reader reads it, once a stage asked (readableText)
}

// readableText is the candidate's text as a reader reads it and the index
// indexed it (markdown.ReadableText), read once for the stages that need
// it (shared, cover), not once each.
func (c *candidate) readableText() string {
	if c.readable == nil {
		s := markdown.ReadableText(c.Content)
		c.readable = &s
	}
	return *c.readable
}

// Activate runs the whole retrieval pipeline for an agent's task description
// and returns the fragments to deliver, as deltas against req.State. Failures:
// an empty query is invalid_input; a state that does not verify is
// invalid_activation_state; a configured model that is not ready is
// search_model_preparing. Every valid call records a retrieval run.
func (p *Pipeline) Activate(ctx context.Context, req vault.ActivateRequest) (*vault.Activation, error) {
	start := p.clock()
	timings := map[string]int64{}

	q := tokenize.CutQuery(req.Query)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty: describe the task in a few words")
	}
	if req.Limits == (vault.Limits{}) {
		req.Limits = vault.LimitsFrom(p.ix.Vault().Config.Retrieval)
	}
	key, err := p.stateKey()
	if err != nil {
		return nil, err
	}
	var held []stateEntry
	if req.State != "" {
		if held, err = p.loadState(ctx, key, req.State); err != nil {
			return nil, err
		}
	}
	mode := req.Mode
	if mode == "" {
		mode = p.DefaultMode()
	}
	view := req.Project
	if req.PublishedOnly {
		// Reviewed memory alone: no Draft's text, and no Draft deciding
		// what ranks or what counts as removed (a Delete Draft must not
		// make reviewed memory read as gone).
		view = fts.PublishedView(req.Project)
	}
	ranked, err := p.rank(ctx, q, mode, view, stageDepth, timings)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	act, err := p.assemble(ctx, ranked, held, req, key)
	if err != nil {
		return nil, err
	}
	timings["assemble"] = time.Since(t).Microseconds()
	if req.Code != nil {
		t = time.Now()
		p.markStale(ctx, req.Code, act, ranked)
		timings["stale"] = time.Since(t).Microseconds()
	}
	total := time.Since(start).Microseconds()
	runID, err := p.recordRun(ctx, runRecord{
		Query: q, Project: req.Project, Mode: mode, IndexRevision: act.IndexRevision,
		StateUnits: len(held), Candidates: ranked, Fragments: act.Fragments,
		Removed: act.Removed, TimingsUS: timings, TotalUS: total, Limits: req.Limits,
	}, start)
	if err != nil {
		// A run is a diagnostic record: the activation is answered without
		// one when the index cannot keep it (a read-only or full disk).
		return act, nil
	}
	act.RunID = runID
	return act, nil
}

// addVectorHits loads the units the vector stage found into the candidates.
func (p *Pipeline) addVectorHits(ctx context.Context, vh []fts.Neighbor, cands map[int64]*candidate) error {
	if len(vh) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(vh))
	for _, h := range vh {
		if _, ok := cands[h.UID]; !ok {
			ids = append(ids, h.UID)
		}
	}
	units, err := p.look.Units(ctx, ids)
	if err != nil {
		return err
	}
	guide := p.ix.Vault().Config.Guidelines
	for _, h := range units {
		if h.Path != guide { // never a candidate (candidates)
			cands[h.UID] = &candidate{Unit: h}
		}
	}
	var rank, pub stageRank // all hits, and published ones (stageRank)
	for _, h := range vh {
		if h.Similarity <= 0 {
			break // orthogonal or opposite: no evidence at all
		}
		c := cands[h.UID]
		if c == nil {
			continue // the guidelines: no candidate, and no rank
		}
		r := rank.next(h.Similarity) // units sharing a text share its rank
		if c.DraftID == "" {
			r = pub.next(h.Similarity)
		}
		if c.VectorRank == 0 {
			c.VectorRank, c.VectorScore = r, h.Similarity
		}
	}
	return nil
}

// stageRank numbers a stage's hits in its order, hits of one score sharing
// a number. A Draft is numbered among all hits and a published unit among
// published hits alone, as in a project without Drafts: five Draft notes
// stuffed with a question's words took a stage's top three in their
// project, and a published section there lost the place among an
// activation's plausible answers it held everywhere else
// (TestAttack_DraftsCannotPushPublishedSectionsOffAStagesTop).
type stageRank struct {
	n    int
	last float64
}

func (r *stageRank) next(score float64) int {
	if r.n == 0 || score != r.last {
		r.n++
		r.last = score
	}
	return r.n
}

// fuseRRF scores candidates by reciprocal-rank fusion (k = 60) and returns
// the best depth, exact matches first.
func fuseRRF(cands map[int64]*candidate, depth int) []*candidate {
	out := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		for _, r := range []int{c.BM25Rank, c.VectorRank} {
			if r > 0 {
				c.Fused += 1 / float64(rrfK+r)
			}
		}
		if c.ExactRank > 0 {
			c.Fused += 1 / float64(rrfK+c.ExactRank)
		}
		c.Final = c.Fused
		out = append(out, c)
	}
	return best(out, depth)
}

// fuseScores scores each candidate by its BM25 score over the best BM25 score
// among the candidates plus vectorBeta × its cosine similarity to the query
// (lexical or vector mode use one term), and returns the best depth, exact
// matches first. Unlike RRF it keeps how far apart BM25 scores are, so a
// weak vector stage nudges the order instead of overturning it (see the
// package doc for the measurements).
//
// The best BM25 score is published memory's, when a published candidate
// has one: a Draft stuffed with the question's words set it in its
// project, every published section's share shrank beside the vector and
// coverage terms, and published memory took another order there
// (TestAttack_ADraftCannotRescalePublishedMemory). A Draft's share may
// then pass 1; only the Drafts' own order among themselves shows it.
func fuseScores(cands map[int64]*candidate, depth int, mode string, beta float64) []*candidate {
	top := scaleOf(maps.Values(cands), func(c *candidate) float64 { return c.BM25Score })
	out := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		if top > 0 && mode != "vector" {
			c.Fused += c.BM25Score / top
		}
		if mode != "lexical" {
			w := beta
			if mode == "vector" {
				w = 1
			}
			c.Fused += w * c.VectorScore
		}
		c.Final = c.Fused
		out = append(out, c)
	}
	return best(out, depth)
}

// similarities fills in the cosine similarity to the query of every
// candidate that has a vector (lexical candidates the vector stage did not
// reach included). Units not embedded yet keep 0.
func (p *Pipeline) similarities(ctx context.Context, qv []float32, cands map[int64]*candidate) error {
	var ids []int64
	for uid, c := range cands {
		if c.VectorRank == 0 {
			ids = append(ids, uid)
		}
	}
	sims, err := p.look.Similarities(ctx, qv, ids)
	for uid, sim := range sims {
		cands[uid].VectorScore = sim
	}
	return err
}

// scaleOf is the largest score of cs, published memory's when a published
// candidate has one above 0: the scale published scores are shares of is
// never a Draft's (fuseScores, scoreNotes).
func scaleOf(cs iter.Seq[*candidate], score func(*candidate) float64) float64 {
	top, pub := 0.0, 0.0
	for c := range cs {
		top = max(top, score(c))
		if c.DraftID == "" {
			pub = max(pub, score(c))
		}
	}
	if pub > 0 {
		return pub
	}
	return top
}

// fromDraft reports whether a hit is a Draft's.
func fromDraft(h fts.Unit) bool { return h.DraftID != "" }

// best sorts candidates and keeps the first depth, and the first depth
// published ones among them or after them.
func best(cs []*candidate, depth int) []*candidate {
	sortCandidates(cs)
	if len(cs) <= depth {
		return cs
	}
	// The best depth published candidates are kept too: Drafts cannot push
	// published memory out of the list (withPublished).
	published := 0
	for _, c := range cs[:depth] {
		if c.DraftID == "" {
			published++
		}
	}
	if published == depth {
		return cs[:depth] // no Draft among them
	}
	out := append([]*candidate(nil), cs[:depth]...)
	for _, c := range cs[depth:] {
		if published >= depth {
			break
		}
		if c.DraftID == "" {
			out = append(out, c)
			published++
		}
	}
	return out
}

// withPublished adds to hits, the project's BM25 list, the best depth
// published units the project sees as they are (fts.PublishedUnshadowed:
// none that one of its Drafts shadows), in score order: more of a Draft's
// sections matching a question than the list's depth pushed every
// published note out of the project's candidates, and its activation
// delivered Drafts alone (TestAttack_DraftsCannotFloodPublishedMemoryOut).
// It is asked only when a Draft is among hits: without one, those
// published units are among hits already.
func (p *Pipeline) withPublished(ctx context.Context, hits []fts.Unit, ts []string, project string, depth int) ([]fts.Unit, error) {
	pub, err := p.look.BM25(ctx, ts, fts.PublishedUnshadowed(project), depth)
	if err != nil {
		return nil, err
	}
	have := make(map[int64]bool, len(hits))
	for _, h := range hits {
		have[h.UID] = true
	}
	out := append([]fts.Unit(nil), hits...)
	for _, h := range pub {
		if !have[h.UID] {
			out = append(out, h)
		}
	}
	fts.SortHits(out)
	return out, nil
}

// sortCandidates orders exact matches first, then by final score, then by
// unit key (so equal scores give the same order every time).
func sortCandidates(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if (a.ExactRank > 0) != (b.ExactRank > 0) {
			return a.ExactRank > 0
		}
		if a.ExactRank > 0 && a.ExactRank != b.ExactRank {
			return a.ExactRank < b.ExactRank
		}
		if a.Final != b.Final {
			return a.Final > b.Final
		}
		if (a.BM25Rank > 0) != (b.BM25Rank > 0) { // on a tie, term matches win
			return a.BM25Rank > 0
		}
		return a.UnitKey < b.UnitKey
	})
}

// linkVotes sets each candidate's LinkBonus, the one-hop term of the note
// stage: a note linked from a note at the top of the list (the linkTop
// best by fused score; wikilinks and Markdown links, supersedes; resolved
// as vault/linknames.go says, as Obsidian would) gains, for each such top
// note, a vote in proportion to that note's score. A flat bonus for any
// link between any two candidates did nothing on a well-linked vault (the
// Obsidian Hub: 40 of 40 candidates got it): here a note the best
// candidates point to rises, and one linked only from the tail of the
// list, or linking to the top itself (as every index note does), does
// not. A top note whose best candidate is a list of links votes up to
// twice (voteWeight, lists.go). No note gains more than linkTop notes'
// votes, 2 × linkTop × linkBonus of the top fused score; a cap on how many
// of them count (the three strongest) changed no figure of the table and
// was taken out (link-bonus.md). Final is left as it is (scoreNotes adds).
func (p *Pipeline) linkVotes(ctx context.Context, cs []*candidate, project string) error {
	if len(cs) < 2 {
		return nil
	}
	bestOf := map[int64]*candidate{} // each note's best candidate: its score is the note's
	var rids []int64
	for _, c := range cs {
		if b, ok := bestOf[c.RID]; !ok {
			rids = append(rids, c.RID)
			bestOf[c.RID] = c
		} else if c.Fused > b.Fused {
			bestOf[c.RID] = c
		}
	}
	sorted := make([]int64, len(rids))
	copy(sorted, rids)
	sort.SliceStable(sorted, func(i, j int) bool { return bestOf[sorted[i]].Fused > bestOf[sorted[j]].Fused })
	var published []int64
	for _, r := range sorted {
		if bestOf[r].DraftID == "" {
			published = append(published, r)
		}
	}
	if bestOf[sorted[0]].Fused <= 0 {
		return nil
	}
	pairs, err := p.look.LinkPairs(ctx, rids, project)
	if err != nil || len(pairs) == 0 {
		return err
	}
	// tally is each note's votes from the top notes of sorted, and the top
	// score they are a share of.
	tally := func(sorted []int64) (map[int64]float64, float64) {
		if len(sorted) == 0 {
			return nil, 0
		}
		top := sorted[:min(len(sorted), linkTop)]
		best := bestOf[top[0]].Fused
		if best <= 0 {
			return nil, 0
		}
		vote := map[int64]float64{} // a top note's vote: its score over the best, times its weight
		for _, r := range top {
			vote[r] = bestOf[r].Fused / best * voteWeight(bestOf[r])
		}
		votes := map[int64]float64{} // each note's votes, from the top notes that link to it
		for _, pr := range pairs {
			votes[pr[1]] += vote[pr[0]] // 0 from a note not at the top
		}
		return votes, best
	}
	// A published note's votes are counted as if no Draft were there: an
	// agent's Draft cannot reorder published memory by linking to it, nor
	// by taking a top note's place (TestAttack_DraftsCannotReorderPublishedMemoryByLinks).
	all, bestAll := tally(sorted)
	pub, bestPub := all, bestAll
	if len(published) < len(sorted) {
		pub, bestPub = tally(published)
	}
	for _, c := range cs {
		votes, best := all, bestAll
		if c.DraftID == "" {
			votes, best = pub, bestPub
		}
		if w := votes[c.RID]; w > 0 {
			c.LinkBonus = linkBonus * w * best
		}
	}
	return nil
}

// rerank orders the top rerankDepth candidates by the reranker's scores; the
// rest keep their fused order below them.
func (p *Pipeline) rerank(ctx context.Context, q string, cs []*candidate) error {
	n := min(rerankDepth, len(cs))
	docs := make([]string, n)
	for i := 0; i < n; i++ {
		docs[i] = cs[i].Content
	}
	scores, err := p.reranker.Rerank(ctx, q, docs)
	if err != nil {
		return err
	}
	floor := math.Inf(1)
	for i := 0; i < n; i++ {
		cs[i].Rerank = scores[i]
		floor = math.Min(floor, scores[i])
	}
	// Rerank scores replace fused ones for the top n; the rest stay below.
	for i, c := range cs {
		if i < n {
			c.Final = 1000 + c.Rerank
		} else {
			c.Final = 1000 + floor - 1 - float64(i)
		}
	}
	sortCandidates(cs)
	return nil
}

// applyStatus ranks superseded and deprecated resources below what replaced
// them: their score is halved, a successor that is not among the candidates
// is brought in (its most substantial unit) just above the old note, and the
// order is then made to keep every successor above every note it replaces,
// exact matches included — in whatever language the query matched the old
// note's words.
func (p *Pipeline) applyStatus(ctx context.Context, cs []*candidate, project string) []*candidate {
	best := map[string]float64{}
	for _, c := range cs {
		best[c.ResourceID] = math.Max(best[c.ResourceID], c.Final)
	}
	type pair struct{ old, successor string }
	var pairs []pair
	pulled := map[string]bool{}
	for _, c := range cs {
		if c.Status != "superseded" && c.Status != "deprecated" {
			continue
		}
		c.Final *= statusPenalty
		for _, s := range p.look.Successors(ctx, c.RID, c.ResourceID) {
			pairs = append(pairs, pair{c.ResourceID, s})
			if b, ok := best[s]; ok {
				if c.Final >= b {
					c.Final = b * 0.99
				}
				continue
			}
			if pulled[s] {
				continue
			}
			if h, ok := p.look.LeadUnit(ctx, s, project); ok {
				pulled[s] = true
				n := &candidate{Unit: h}
				n.Final, n.Fused = c.Final*1.01+1e-9, c.Final*1.01+1e-9
				cs = append(cs, n)
			}
		}
	}
	sortCandidates(cs)
	// Enforce the order: a successor's first unit comes before the first
	// unit of what it replaces (bounded: a cycle of supersedes cannot loop).
	for round := 0; round < len(pairs)+1; round++ {
		first := map[string]int{}
		for i, c := range cs {
			if _, ok := first[c.ResourceID]; !ok {
				first[c.ResourceID] = i
			}
		}
		moved := false
		for _, p := range pairs {
			i, okOld := first[p.old]
			j, okNew := first[p.successor]
			if !okOld || !okNew || j < i {
				continue
			}
			c := cs[j]
			copy(cs[i+1:j+1], cs[i:j])
			cs[i] = c
			moved = true
			break
		}
		if !moved {
			break
		}
	}
	return cs
}

// scoreNotes is the note stage: each candidate's Final becomes its own
// score (the fused one, or the reranker's) plus two terms its note earns,
// each a share of the best fused score: the votes of the top notes that
// link to it (linkVotes) and its coverage of the query's terms (coverage);
// then a superseded or deprecated note's score is halved and kept below
// its successor's (applyStatus). Every term is read from the fused
// scores, so none depends on the order another left, and the list is
// sorted once.
func (p *Pipeline) scoreNotes(ctx context.Context, q string, cs []*candidate, project string) ([]*candidate, error) {
	if !p.off["links"] {
		if err := p.linkVotes(ctx, cs, project); err != nil {
			return nil, err
		}
	}
	var held map[int64]float64
	if !p.off["cover"] {
		held = coverage(q, cs)
	}
	top := scaleOf(slices.Values(cs), func(c *candidate) float64 { return c.Fused })
	for _, c := range cs {
		c.CoverBonus = coverWeight * top * held[c.RID]
		c.Final += c.LinkBonus + c.CoverBonus
	}
	if p.off["status"] {
		sortCandidates(cs)
		return cs, nil
	}
	return p.applyStatus(ctx, cs, project), nil
}

// DefaultMode is the retrieval mode when a caller names none: hybrid, or
// lexical when the vault has no embedding model.
func (p *Pipeline) DefaultMode() string {
	if p.ix.Vectors().Embedder() == nil {
		return "lexical"
	}
	return "hybrid"
}

// rank runs the stages before assembly — freshness, exact, BM25, vectors,
// fusion, rerank, the note stage (scoreNotes), the section stage (shared
// text, the order within each note) — keeping depth candidates per stage.
// mode is hybrid, lexical or vector.
func (p *Pipeline) rank(ctx context.Context, q, mode, project string, depth int, timings map[string]int64) ([]*candidate, error) {
	lap := func(name string, from time.Time) { timings[name] = time.Since(from).Microseconds() }
	t := time.Now()
	if _, err := p.ix.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	lap("refresh", t)
	if mode != "lexical" && p.ix.Vectors().Embedder() == nil {
		return nil, vault.Errorf(vault.CodeInvalid, "mode %s needs an embedding model; lore.yaml has none", mode)
	}
	found, err := p.find(ctx, q, mode, project, depth, lap)
	if err != nil {
		return nil, err
	}
	cands, err := p.candidates(ctx, found)
	if err != nil {
		return nil, err
	}

	t = time.Now()
	var ranked []*candidate
	if p.fusion == "rrf" {
		ranked = fuseRRF(cands, depth)
	} else {
		if found.qv != nil {
			if err := p.similarities(ctx, found.qv, cands); err != nil {
				return nil, err
			}
		}
		ranked = fuseScores(cands, depth, mode, p.vectorWeight)
	}
	lap("fuse", t)
	if p.reranker != nil && len(ranked) > 0 {
		t = time.Now()
		if err := p.rerank(ctx, q, ranked); err != nil {
			return nil, err
		}
		lap("rerank", t)
	}
	t = time.Now()
	if ranked, err = p.scoreNotes(ctx, q, ranked, project); err != nil {
		return nil, err
	}
	lap("notes", t)
	t = time.Now()
	var copies [][]*candidate
	if !p.off["shared"] {
		copies = markShared(ranked) // templates, for the section order and the assembly's cut
	}
	if !p.off["order"] {
		orderSections(q, ranked)
	}
	if err := p.keepOriginals(ctx, ranked, copies, project); err != nil {
		return nil, err
	}
	lap("sections", t)
	return ranked, nil
}

// found is what the first stages found: the exact and BM25 lists, and the
// query's vector with its nearest units.
type found struct {
	exact, lexical []fts.Unit
	qv             []float32
	near           []fts.Neighbor
}

// find runs the lexical stages (exact, BM25) and the vector stages (query
// embedding, k-NN) of mode at once, on separate connections: they are
// independent. lap records each stage's time.
func (p *Pipeline) find(ctx context.Context, q, mode, project string, depth int, lap func(string, time.Time)) (found, error) {
	var (
		f              found
		lexErr, vecErr error
		tm             sync.Mutex
		wg             sync.WaitGroup
	)
	record := func(name string, from time.Time) {
		tm.Lock()
		lap(name, from)
		tm.Unlock()
	}
	if mode != "vector" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := safe.Do(func() {
				t := time.Now()
				if !p.off["exact"] {
					if f.exact, lexErr = p.look.Exact(ctx, q, project); lexErr != nil {
						return
					}
				}
				record("exact", t)
				t = time.Now()
				if ts := tokenize.QueryTerms(q); len(ts) > 0 {
					f.lexical, lexErr = p.look.BM25(ctx, ts, project, depth)
					if lexErr == nil && slices.ContainsFunc(f.lexical, fromDraft) {
						f.lexical, lexErr = p.withPublished(ctx, f.lexical, ts, project, depth)
					}
				}
				record("bm25", t)
			}); err != nil {
				lexErr = err
			}
		}()
	}
	if mode != "lexical" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := safe.Do(func() {
				t := time.Now()
				vs, err := p.ix.Vectors().Embedder().Embed(ctx, []string{q})
				if err != nil {
					vecErr = fts.NotReady(err) // a model that is not ready is an answer of its own
					return
				}
				f.qv = vs[0]
				record("embed_query", t)
				t = time.Now()
				f.near, vecErr = p.look.Nearest(ctx, f.qv, project, depth)
				record("vector", t)
			}); err != nil {
				vecErr = err
			}
		}()
	}
	wg.Wait()
	if vecErr != nil {
		return f, vecErr
	}
	return f, lexErr
}

// candidates joins what the stages found into one candidate per unit, with
// its rank (and score) in each list.
//
// The vault's guidelines (lore.yaml's guidelines, LORE.md) are never a
// candidate: they say how to write memory, and agents load them by name
// before they store anything (the start hook and the MCP instructions say
// so). As candidates they matched everyday prompts by the words of their
// advice ("line", "README", "store") and took answers' places
// (docs/decisions/guidelines-are-not-answers.md).
func (p *Pipeline) candidates(ctx context.Context, f found) (map[int64]*candidate, error) {
	guide := p.ix.Vault().Config.Guidelines
	cands := map[int64]*candidate{}
	get := func(h fts.Unit) *candidate {
		if c, ok := cands[h.UID]; ok {
			return c
		}
		c := &candidate{Unit: h}
		cands[h.UID] = c
		return c
	}
	rank := 0
	for _, h := range f.exact {
		if h.Path != guide {
			rank++
			get(h).ExactRank = rank
		}
	}
	all, pub := 0, 0 // a Draft's rank among all hits, a published unit's among published ones (stageRank)
	for _, h := range f.lexical {
		if h.Path != guide {
			all++
			c := get(h)
			c.BM25Rank, c.BM25Score = all, h.Score
			if h.DraftID == "" {
				pub++
				c.BM25Rank = pub
			}
		}
	}
	return cands, p.addVectorHits(ctx, f.near, cands)
}

// Rank returns the pipeline's ranking for q before assembly (no budget, no
// per-resource cap), depth candidates per stage. lore eval uses it.
func (p *Pipeline) Rank(ctx context.Context, q, mode, project string, depth int) ([]vault.RankedUnit, error) {
	q = tokenize.CutQuery(q)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty")
	}
	cs, err := p.rank(ctx, q, mode, project, depth, map[string]int64{})
	if err != nil {
		return nil, err
	}
	out := make([]vault.RankedUnit, len(cs))
	for i, c := range cs {
		out[i] = vault.RankedUnit{UnitKey: c.UnitKey, ResourceID: c.ResourceID, Path: c.Path, Score: c.Final}
	}
	return out, nil
}
