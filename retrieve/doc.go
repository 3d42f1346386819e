// Package retrieve is the retrieval pipeline: what search, activate and
// recall do with the lookups of the index (package fts) to choose what an
// agent receives. A change to ranking — a stage, a weight, fusion, the
// section order, the budget, the activation state — is a change to this
// package and its tests.
//
// Pipeline holds the pipeline's settings (fusion, the vector weight, the
// reranker, the clock, the state key); Memory joins it to the index it runs
// over, and is what the edges (mcp, web, journal, guard, activity, cmd) are
// handed: it implements every port of package vault. The split from fts
// keeps SQL there: every read here is a named lookup (fts.Lookups), every
// write a record (fts.Records).
//
// Activate's stages, in order: freshness check → exact (id, path, title,
// alias, file name) → BM25 (top 40) → query embedding and vector k-NN (top
// 40) → fusion → optional rerank → notes: what a section's note earns,
// added to its score and sorted once (scoreNotes): votes from the five top
// notes that link to it (a list of links votes up to twice), its share of
// the query's terms held between its candidate sections, and for a
// superseded note half its score and a place below its successor →
// sections: a text several notes hold (a short one held word for word is a
// template, any other a copy, shared.go), then each note's sections by
// their own words (an acronym of the query's words counts as them;
// templates last), and a copy's original takes the best place of its
// copies → assembly (no overlaps, no templates, nothing
// of only comments and pictures from the web, a copy once, a per-note cap
// and a weak cut that a plausible answer passes, a token budget; embeds
// delivered with their text) → deltas against the caller's state → a
// retrieval run. Search is the lexical part of it: exact → BM25 →
// templates left out → section order. Ranking is deterministic for a given vault, index and model. When the index cannot keep a state or a run (a read-only or full
// disk), the activation is still answered: the state travels in the token
// itself, and the run is left out.
//
// Each decision, with the figures it was made on, is in docs/decisions:
// activate-stages.md, score-fusion.md, vector-weight.md, section-order.md,
// acronyms-within-a-note.md, assembly.md, templates-are-not-answers.md, copies-delivered-once.md, shared-text.md, link-bonus.md, note-coverage.md, one-note-stage.md, embeds-at-delivery.md, activation-state.md,
// retrieval-runs.md and
// search-beside-freshness.md; what was tried and not kept is in the
// not-kept-*.md files there.
package retrieve
