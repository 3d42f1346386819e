package retrieve

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"
)

// Pipeline is the retrieval pipeline over one vault's index: search,
// activate, recall and the ranking lore eval measures, and the retrieval runs
// they record. It is safe for concurrent use.
type Pipeline struct {
	ix   *fts.Index
	look fts.Lookups
	rec  fts.Records

	reranker     embed.Reranker // nil: no rerank
	fusion       string         // "score" (default) or "rrf"
	vectorWeight float64        // cosine similarity's weight in score fusion
	clock        func() time.Time

	keyOnce sync.Once // the activation-state signing key, read once
	key     []byte
	keyErr  error

	early atomic.Int64 // searches answered by the query run beside the freshness check (tests count them)

	off map[string]bool // ranking stages' parts turned off (Without; lore eval's ablation)
}

// rankingStages are the ranking stages activate runs after it found its
// candidates (exact matches, BM25 and the vector stage) and fused their
// scores, in their order, each with its parts; lore eval's ablation turns
// a stage off, or one of its parts (Without):
//
//   - exact: ids, paths, titles and names matched whole, pinned first;
//   - notes: what a section's note earns, added to its fused score and
//     sorted once (scoreNotes): the votes of the top notes that link to it
//     (links), its coverage of the query's terms (cover), halved and below
//     its successor when superseded (status);
//   - sections: a note's places given to its best sections: a text several
//     notes hold kept once, a short one last (shared, shared.go), then each
//     note's sections in the order of their own words (order, sections.go).
var rankingStages = []struct {
	name  string
	parts []string
}{
	{"exact", []string{"exact"}},
	{"notes", []string{"links", "cover", "status"}},
	{"sections", []string{"shared", "order"}},
}

// Without turns the named ranking stages, or parts of one, off (rankingStages),
// for lore eval's ablation; nothing else calls it.
func (p *Pipeline) Without(names ...string) error {
	for _, name := range names {
		parts := partsOf(name)
		if parts == nil {
			return vault.Errorf(vault.CodeInvalid, "no ranking stage or part %q: the stages are %s", name, StageList())
		}
		if p.off == nil {
			p.off = map[string]bool{}
		}
		for _, part := range parts {
			p.off[part] = true
		}
	}
	return nil
}

// partsOf is the parts a stage's or a part's name turns off, or nil.
func partsOf(name string) []string {
	for _, st := range rankingStages {
		if st.name == name {
			return st.parts
		}
		if slices.Contains(st.parts, name) {
			return []string{name}
		}
	}
	return nil
}

// StageList names the stages and their parts, as "notes (links, cover,
// status)", for errors and a command's help.
func StageList() string {
	var out []string
	for _, st := range rankingStages {
		s := st.name
		if len(st.parts) > 1 {
			s += " (" + strings.Join(st.parts, ", ") + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// New returns the pipeline over ix, lexical and vector stages fused by score
// with the default weights, no reranker.
func New(ix *fts.Index) *Pipeline {
	return &Pipeline{ix: ix, look: ix.Lookups(), rec: ix.Records(), clock: time.Now, vectorWeight: vectorBeta}
}

// UseReranker attaches a reranker for activate (nil: none).
func (p *Pipeline) UseReranker(r embed.Reranker) { p.reranker = r }

// UseFusion chooses how the lexical and vector stages combine, from
// lore.yaml's retrieval section: fusion "score" (default) or "rrf", and the
// weight of cosine similarity in score fusion (0: the default, 0.3).
// Anything else is an invalid_config error.
func (p *Pipeline) UseFusion(c vault.RetrievalConfig) error {
	switch c.Fusion {
	case "", "score", "rrf":
	default:
		return vault.Errorf(vault.CodeConfig, "retrieval.fusion %q: want score or rrf", c.Fusion)
	}
	if c.VectorWeight < 0 || c.VectorWeight > 10 || c.VectorWeight != c.VectorWeight {
		return vault.Errorf(vault.CodeConfig, "retrieval.vector_weight %v: want a number from 0 to 10", c.VectorWeight)
	}
	p.fusion, p.vectorWeight = c.Fusion, c.VectorWeight
	if p.vectorWeight == 0 {
		p.vectorWeight = vectorBeta
	}
	return nil
}

// Runs lists the most recent retrieval runs, newest first.
func (p *Pipeline) Runs(ctx context.Context, limit int) ([]fts.RunSummary, error) {
	return p.rec.Runs(ctx, limit)
}

// Run returns one retrieval run's full record as JSON; a missing id is
// CodeNotFound.
func (p *Pipeline) Run(ctx context.Context, id string) (json.RawMessage, error) {
	return p.rec.Run(ctx, id)
}

// RunsByQuery returns the ids of a project's runs whose query is exactly q
// (for joining old agent logs that carry no run_id).
func (p *Pipeline) RunsByQuery(ctx context.Context, project, q string) ([]string, error) {
	return p.rec.RunsByQuery(ctx, project, q)
}

// Memory is one vault's memory as the edges (mcp, web, journal, guard,
// activity, cmd) see it: the index, for storage and whole-resource reads, and
// the pipeline over it. It implements every read port of package vault,
// each method named in retrieve/ports.go; what only cmd needs (refreshing,
// the in-memory copies, the models) it reaches through Index and Pipeline.
type Memory struct {
	Index    *fts.Index
	Pipeline *Pipeline
}

// The read ports Memory implements, which the edges hold.
var (
	_ vault.Searcher   = (*Memory)(nil)
	_ vault.Loader     = (*Memory)(nil)
	_ vault.Lister     = (*Memory)(nil)
	_ vault.Activator  = (*Memory)(nil)
	_ vault.RuleReader = (*Memory)(nil)
	_ vault.RunReader  = (*Memory)(nil)
)

// Open opens the index of v (fts.Open) with a pipeline over it.
func Open(ctx context.Context, v *vault.Vault) (*Memory, error) {
	ix, err := fts.Open(ctx, v)
	if err != nil {
		return nil, err
	}
	return &Memory{Index: ix, Pipeline: New(ix)}, nil
}
