package retrieve

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

// Search refreshes the index and returns the best units for query: an exact
// id, path or title match first, then units ranked by BM25 over an OR of the
// query's terms; a project's Drafts take at most half of the hits while a
// published one is left (halfDrafts). An empty query is a CodeInvalid
// error.
//
// Without the postings in memory (a one-shot command), the query runs while
// the freshness check walks the vault: each is a large part of a one-shot
// search (docs/BENCHMARKS.md, "One warm lore"), and they share nothing. Its answer is kept only when the check found
// nothing to change and the index's revision did not move meanwhile (no
// other process wrote); otherwise the query runs again, after the check,
// so the answer is always one the sequential order would give.
func (p *Pipeline) Search(ctx context.Context, query string, opt vault.SearchOptions) ([]vault.Hit, error) {
	if p.ix.Resident().On() {
		if _, err := p.ix.Refresh(ctx, nil); err != nil {
			return nil, err
		}
		return p.SearchFresh(ctx, query, opt)
	}
	rev, revErr := p.look.Revision(ctx)
	type answer struct {
		hits []vault.Hit
		err  error
	}
	early := make(chan answer, 1)
	go func() {
		var a answer
		if err := safe.Do(func() { a.hits, a.err = p.SearchFresh(ctx, query, opt) }); err != nil {
			a.err = err
		}
		early <- a
	}()
	st, err := p.ix.Refresh(ctx, nil)
	a := <-early
	if err != nil {
		return nil, err
	}
	if st.Unchanged && a.err == nil && revErr == nil {
		if now, err := p.look.Revision(ctx); err == nil && now == rev {
			p.early.Add(1)
			return a.hits, nil
		}
	}
	return p.SearchFresh(ctx, query, opt)
}

// searchDepth is how deep search looks for hits that are not templates: a
// query that matches the Hub's footers (6,591 of them say "note") looks
// past them to the sections that say it.
const searchDepth = 160

// withoutTemplates drops the hits whose short text another note's hit
// shares (markShared): the Obsidian Hub's footer, its badge rows, empty
// headings held seven of the first nine hits for "encrypt secrets inside
// my notes"; and the hits that give nothing (bare, showing no file of the
// vault: markdown.ShowsVaultFile; one note's badges alone), as activate's
// assembly does. The first exact of
// them are the exact stage's, which neither takes out.
func withoutTemplates(hits []fts.Unit, exact int) []fts.Unit {
	cs := make([]*candidate, len(hits))
	for i, h := range hits {
		cs[i] = &candidate{Unit: h}
		if i < exact {
			cs[i].ExactRank = i + 1
		}
	}
	markShared(cs)
	kept := hits[:0]
	for i, c := range cs {
		if !c.template && (i < exact || !c.Bare || markdown.ShowsVaultFile(c.Content)) {
			kept = append(kept, hits[i])
		}
	}
	return kept
}

// orderHits gives the places each note's hits hold to its sections, best
// first by their own heading and body (orderSections, as activate orders
// its candidates): every unit of a note carries the note's path and title
// in its row, so BM25 put a note's shortest section first whenever the
// query matched the note rather than a section ("what must I check before
// shipping a new version?" found "After the release" before "Before the
// release"). Each place keeps its score, so the hits stay sorted.
func orderHits(q string, hits []fts.Unit) {
	notes := make(map[int64]bool, len(hits))
	for _, h := range hits {
		notes[h.RID] = true
	}
	if len(notes) == len(hits) {
		return // each note holds one place: nothing to order
	}
	cs := make([]*candidate, len(hits))
	for i, h := range hits {
		cs[i] = &candidate{Unit: h}
		cs[i].Final = h.Score
	}
	orderSections(q, cs)
	for i, c := range cs {
		hits[i] = c.Unit
		hits[i].Score = c.Final
	}
}

// SearchFresh is Search without the freshness check (for callers that just
// refreshed, and for benchmarks of the query path alone).
func (p *Pipeline) SearchFresh(ctx context.Context, query string, opt vault.SearchOptions) ([]vault.Hit, error) {
	q := tokenize.CutQuery(query)
	if q == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "query is empty: describe the task or name what to find")
	}
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	exact, err := p.look.Exact(ctx, q, opt.Project)
	if err != nil {
		return nil, err
	}
	ts := tokenize.QueryTerms(q)
	// hitsTo is the exact hits and BM25's first depth, templates left out,
	// and whether BM25 may have more.
	hitsTo := func(depth int) ([]fts.Unit, bool, error) {
		var lex []fts.Unit
		more := false
		if len(ts) > 0 {
			var err error
			if lex, err = p.look.BM25(ctx, ts, opt.Project, depth); err != nil {
				return nil, false, err
			}
			more = len(lex) == depth
			if slices.ContainsFunc(lex, fromDraft) { // the published view's best too (withPublished)
				if lex, err = p.withPublished(ctx, lex, ts, opt.Project, depth); err != nil {
					return nil, false, err
				}
			}
		}
		hits := append([]fts.Unit(nil), exact...)
		seen := map[string]bool{}
		for _, h := range exact {
			seen[h.UnitKey] = true
		}
		for _, h := range lex {
			if !seen[h.UnitKey] {
				hits = append(hits, h)
			}
		}
		return withoutTemplates(hits, len(exact)), more, nil
	}
	// The limit's worth first; while templates leave it short and BM25 has
	// more, four times as deep, to searchDepth at most.
	depth := opt.Limit + len(exact)
	hits, more, err := hitsTo(depth)
	for err == nil && more && len(hits) < opt.Limit && depth < searchDepth {
		depth = min(4*depth, searchDepth)
		hits, more, err = hitsTo(depth)
	}
	if err != nil {
		return nil, err
	}
	hits = halfDrafts(hits, opt.Limit, fromDraft)
	// The exact stage's hits keep their places, first; the others are
	// ordered within their notes. An exact hit scores just above the best
	// of the rest, so every score is finite and comparable (a section that
	// took an exact hit's place once showed its 1e9).
	nExact := 0
	for nExact < len(hits) && hits[nExact].Stage == "exact" {
		nExact++
	}
	orderHits(q, hits[nExact:])
	top := 0.0
	if nExact < len(hits) {
		top = hits[nExact].Score
	}
	for i := range hits[:nExact] {
		hits[i].Score = top + float64(nExact-i)
	}
	snip := tokenize.SnippetTerms(q)
	out := make([]vault.Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
		out[i].HeadingPath = markdown.ShownHeadings(h.HeadingPath)
		out[i].Snippet = Snippet(markdown.ReadableText(h.Content), snip, 200)
	}
	return out, nil
}

// Snippet returns about width runes of content around the first of the words it
// finds (case-insensitively), on one line; the start of content when none is found.
// Search and recall give it a section's readable text (markdown.ReadableText):
// the words a reader reads, not link destinations or comments.
func Snippet(content string, words []string, width int) string {
	lower := strings.ToLower(content)
	at := -1
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	rs := []rune(content)
	start := 0
	if at > 0 && len(lower) == len(content) {
		start = max(utf8.RuneCountInString(content[:at])-width/4, 0)
	}
	end := min(start+width, len(rs))
	s := strings.Join(strings.Fields(string(rs[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}
