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
// Decisions recorded here:
//
//   - Search: an exact id, path or title match first, then BM25 over an OR
//     of the query's tokens (fts's package doc has the tokens, the weights
//     and their SciFact figures), each hit with a snippet around the first
//     query word it holds.
//     Without the postings in memory (a one-shot command), the query runs
//     beside the freshness check, and its answer is kept only when the
//     check changed nothing and the index's revision did not move
//     meanwhile; otherwise it runs again. On 10,000 notes, alternating with
//     the sequential order: `lore search` p50 52 → 39–49 ms (this 2-core
//     machine's walk already keeps both cores busy). The same overlap for
//     activate's query embedding showed no gain here, so it is not done
//     (tried again on a slower machine: activate p50 121.8 → 131.2 ms,
//     31 alternating rounds, slower). A third try ran all of find beside the
//     check, the query embedded first, the lists kept as Search keeps its
//     answer: on the same slow 2-core kind, on 10,000 notes with a vector
//     for every unit, two builds of each binary in turn, 40 rounds each,
//     p50 174.2 and 165.6 → 171.8 and 170.5 ms: within the noise, so not
//     kept either. Both cores are busy already (the walk is in the kernel;
//     the first query embedding streams ~24 MB of weights from memory).
//
// Activate (activate.go, assemble.go, sections.go, state.go, runs.go):
//
//   - Stages: freshness check → exact id/path/title → BM25 (top 40) → query
//     embedding and sqlite-vec k-NN over vec0 with cosine distance (top 40;
//     hits with similarity ≤ 0 are no evidence and dropped) → fusion, exact
//     matches pinned first, top 40 kept → one-hop link bonus: a candidate whose
//     resource links to or from another candidate's (wikilink by
//     title/id/path, Markdown link, supersedes, superseded_by) gains 0.05 × the
//     top fused score → optional HTTP rerank of the top 24 (its scores replace
//     fused ones there) → status: superseded and deprecated resources' scores
//     are halved and kept below their successor's → section order → assembly.
//     Ties go to units
//     with a term match, then by unit key, so ranking is deterministic for a
//     given vault, index and model.
//   - Fusion departs from DESIGN.md's reciprocal-rank fusion by default, on
//     measurement. The default ("score") is BM25 over the best BM25 among the
//     candidates plus 0.3 × cosine similarity, the similarity computed for
//     every candidate that has a vector. On SciFact with the built-in model
//     (vector alone: nDCG@10 0.218) RRF with k = 60 gave 0.444 — rank fusion
//     lets a weak list overturn a strong one — and weighted RRF never beat
//     lexical (0.699); score fusion gives 0.707 (β 0.2–0.6 all 0.700–0.707).
//     lore.yaml `retrieval: {fusion: rrf}` selects RRF (k = 60), which suits a
//     strong embedding endpoint.
//   - Section order (sections.go): every unit of a note carries the note's
//     path, title and description in its row, so sections of one note tie on
//     them and BM25's length normalization favoured the shortest one; the
//     per-note cap then kept whichever two sorted first. Now the places a
//     note's candidates hold in the ranking go, best first, to the sections
//     whose own heading (weight 4) and body match the query best, scored as
//     BM25 over that note's candidate sections as a collection of their own
//     (a term in every section tells nothing), English stop words included
//     at weight 0.25 ("before" tells "Before the release" from "After");
//     ties go to vector similarity, then to the note's order. Documents
//     keep their places, so SciFact is unchanged by construction. On the 40
//     questions of testdata/demo-questions.jsonl (written before this
//     change; `lore eval --questions testdata/demo-questions.jsonl
//     testdata/demo-vault --mode M`): lexical success@1 0.725 → 0.750,
//     success@3 0.925 → 0.925, MRR 0.823 → 0.829; hybrid success@1 0.750 →
//     0.750, success@3 0.925 → 0.950, MRR 0.840 → 0.846. The README's
//     question ("what must I check before shipping a new version?") went
//     from second (lexical) and not delivered (hybrid) to first in both;
//     "fix the sync retry budget" from the ADR's Why to its Decision.
//   - Assembly: at most 12 fragments, 2 per resource, 2,400 tokens (lore.yaml
//     retrieval: overrides), counted with vault.EstimateTokens (within 10% of
//     cl100k_base). A candidate is cut as overlap when its text (content_hash)
//     was already delivered or its byte range overlaps a delivered one. reuse
//     fragments carry no body and cost no tokens.
//   - State: next_state is "las2." + base64url(16-byte id + 12-byte
//     HMAC-SHA256 tag of the id under a random per-vault key kept in the
//     data folder, state.key): 43 characters. The id names a row of
//     activation_states holding at most 256 (unit_key, first 8 bytes of
//     content_hash, "path › headings") entries, most recently delivered
//     first; rows are kept 7 days after their last use. Before, the token
//     carried the entries itself ("las1.", still read): on the 40 demo
//     questions its median was 82 tokens (lexical) and 119 (hybrid), about
//     80 bytes more per held unit, now 16. Tokens over 32 KiB, damaged,
//     edited, from another vault or whose row is gone are
//     invalid_activation_state. removed lists held units that no longer
//     resolve in the project's memory (deleted, renamed away, or now
//     invisible), never units merely not selected; the text rendering names
//     them by their stored "path › headings".
//   - Fusion weight: lore.yaml retrieval.vector_weight (default 0.3). On the
//     generated conversational set (testdata/convo) 0.6 gives nDCG@10
//     0.4939 against 0.4850 (0.4893 against 0.4804 since short texts' last
//     rows are embedded with the kernel's rounding); on SciFact 0.2–0.6 all
//     gave 0.700–0.707: the default stays. Measured again at 78a4baa, weight
//     0.3 / 0.4 / 0.5 / 0.6 (`lore eval … --vector-weight W`): SciFact
//     hybrid nDCG@10 0.7060 / 0.7047 / 0.7042 / 0.7024 (0.6 falls below
//     lexical's 0.7035); testdata/convo 0.4804 / 0.4804 / 0.4815 / 0.4893;
//     the 40 demo questions success@1 0.750 / 0.750 / 0.775 / 0.775. Each
//     gain is a question or two; SciFact's loss is steady: 0.3 stays. A
//     higher weight only when the lexical stage returned fewer than its 40
//     candidates gave convo 0.4893 with SciFact unchanged, but on a small
//     vault every query returns fewer than 40, so that rule measures the
//     vault's size rather than the query: not kept.
//   - Tried and not kept: pseudo-relevance feedback in the vector space
//     (adding W × the cosine similarity to the centroid of the M best BM25
//     candidates' vectors). SciFact hybrid, `lore eval --mode hybrid` with
//     the built-in model, against 0.7060 without it: M 3, W 0.3 / 0.6:
//     0.7053 / 0.7076; M 5: 0.7067 / 0.7054; M 10: 0.7053 / 0.7020. Within
//     ±0.002, with no setting better on both sides of it: the built-in
//     model's neighbourhoods add little the lexical stage has not found.
//   - Tried and not kept: more than one vector a unit. The built-in model
//     reads 128 tokens, so of a SciFact abstract (one unit) it sees the
//     title and the first sentences. Measured outside lore over the 300
//     queries, vector alone, title on every window's first line: one vector
//     of the whole unit 0.2121; the best of its ~80-word windows' vectors
//     0.2280; the normalized mean of the windows' vectors 0.2426. Three
//     points of vector-alone nDCG@10 at three times the embedding work;
//     with fusion's 0.3 weight that is not where 0.720 lies.
//   - Tried and not kept, measured outside lore's pipeline on the lexical
//     top 100 of each SciFact query (`lore eval --keep`, then a throwaway
//     program reranking Rank's list with lore's own tokens), nDCG@10
//     against 0.7035:
//     term proximity (BM25TP: for each pair of query terms, Σ 1/d² over
//     their occurrences within 5 or 10 tokens, saturated and weighted by
//     the smaller idf), added at weight 0.001 … 1 to the normalized BM25
//     score: 0.7026 at 0.001, falling to 0.5957 at 1, never above;
//     RM3-like expansion (the 10 or 20 terms of the top 3, 5 or 10 hits
//     weighted by score × tf / length × idf, their BM25 normalized and
//     added at 0.05 … 0.5): best 0.7009, most settings 0.66–0.70. SciFact's
//     claims are precise; what their top hits add drifts from them.
//   - Every valid activate writes a retrieval run (table runs): the query, every
//     candidate with its rank and score at every stage and its outcome
//     (delivered:add|replace|reuse, cut:budget|per_resource|total|overlap),
//     a stored copy of each delivered text with its byte range, and timings.
//     The index keeps the newest 20,000, each compressed (fts/records.go).
package retrieve
