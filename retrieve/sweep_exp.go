package retrieve

// EXPERIMENT (not kept): the prompt hook's bar swept. With LORE_EXP_SWEEP
// set to a file, every RelevantOnly activation assembles its ranked
// candidates again under each bar of a grid and appends what each would
// deliver, one JSON line a (bar, threshold). An exact match passes every
// bar, as it passes the kept one.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

var sweepMu sync.Mutex

type sweepFeat struct {
	cov, idfcov, bits float64 // share of content words held; idf-weighted share; Σ ln(N/df) held / ln N
	held              int
}

func (p *Pipeline) sweep(ctx context.Context, ranked []*candidate, held []stateEntry, req vault.ActivateRequest, qterms map[string]bool, floor float64) error {
	path := os.Getenv("LORE_EXP_SWEEP")
	if path == "" {
		return nil
	}
	var ts []string
	for t := range qterms {
		ts = append(ts, t)
	}
	n, df, err := p.look.TermStats(ctx, ts)
	if err != nil {
		return err
	}
	idf := func(t string) float64 {
		d := df[t]
		if d == 0 {
			d = 1
		}
		return math.Log(float64(n+1) / float64(d))
	}
	all := 0.0
	for t := range qterms {
		all += idf(t)
	}
	feat := map[*candidate]sweepFeat{}
	for _, c := range ranked {
		have := map[string]bool{}
		count := func(s string) {
			tokenize.EachToken(s, func(t string, _ bool) {
				if qterms[t] {
					have[t] = true
				}
			})
		}
		count(c.Title)
		for _, h := range c.HeadingPath {
			count(h)
		}
		count(c.Content)
		f := sweepFeat{held: len(have)}
		w := 0.0
		for t := range have {
			w += idf(t)
		}
		if len(qterms) > 0 {
			f.cov = float64(len(have)) / float64(len(qterms))
		}
		if all > 0 {
			f.idfcov = w / all
		}
		f.bits = w / math.Log(float64(n+1))
		feat[c] = f
	}
	need2 := func(f sweepFeat) bool { return f.held >= min(2, len(qterms)) }
	type bar struct {
		name string
		taus []float64
		pass func(c *candidate, f sweepFeat, tau float64) bool
	}
	grid := []float64{0.3, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 0.9, 1.0}
	bars := []bar{
		{"cov", grid, func(c *candidate, f sweepFeat, tau float64) bool {
			return need2(f) && f.cov >= tau-1e-9 || c.VectorScore >= relevantSimilarity
		}},
		{"idfcov", grid, func(c *candidate, f sweepFeat, tau float64) bool {
			return need2(f) && f.idfcov >= tau-1e-9 || c.VectorScore >= relevantSimilarity
		}},
		{"bits", []float64{0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3}, func(c *candidate, f sweepFeat, tau float64) bool {
			return need2(f) && f.cov >= 0.5 && f.bits >= tau || c.VectorScore >= relevantSimilarity
		}},
		{"vec", []float64{0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9}, func(c *candidate, f sweepFeat, tau float64) bool {
			return c.VectorScore >= tau
		}},
		{"covvec", []float64{0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7}, func(c *candidate, f sweepFeat, tau float64) bool {
			return need2(f) && f.cov >= 0.5 && c.VectorScore >= tau || c.VectorScore >= relevantSimilarity
		}},
		{"none", []float64{0}, func(*candidate, sweepFeat, float64) bool { return true }},
	}
	for _, cv := range []float64{0.5, 0.6, 0.67, 0.75} {
		cv := cv
		bars = append(bars, bar{fmt.Sprintf("cov%.2f+bits", cv), []float64{0.75, 1, 1.25, 1.5, 2}, func(c *candidate, f sweepFeat, tau float64) bool {
			return need2(f) && f.cov >= cv-1e-9 && f.bits >= tau || c.VectorScore >= relevantSimilarity
		}})
	}
	type line struct {
		Root      string     `json:"root"`
		Query     string     `json:"query"`
		Bar       string     `json:"bar"`
		Tau       float64    `json:"tau"`
		Delivered [][]string `json:"delivered"`
	}
	var out []byte
	{ // every ranked candidate, in order: the ceiling of any bar over this ranking
		l := line{Root: p.ix.Vault().Root, Query: req.Query, Bar: "ranked", Delivered: [][]string{}}
		for _, c := range ranked {
			l.Delivered = append(l.Delivered, append([]string{c.Path}, markdown.ShownHeadings(c.HeadingPath)...))
		}
		j, _ := json.Marshal(l)
		out = append(append(out, j...), '\n')
	}
	for _, b := range bars {
		for _, tau := range b.taus {
			a := newAssembly(req.Limits, held)
			a.expand = func(u fts.Unit) (string, error) { return p.withEmbeds(ctx, u, req.Project, req.PublishedOnly) }
			a.published = req.PublishedOnly
			for _, c := range ranked {
				if c.ExactRank == 0 && !b.pass(c, feat[c], tau) {
					c.Outcome = "cut:irrelevant"
					continue
				}
				if err := a.take(c, floor); err != nil {
					return err
				}
			}
			l := line{Root: p.ix.Vault().Root, Query: req.Query, Bar: b.name, Tau: tau, Delivered: [][]string{}}
			for _, f := range a.act.Fragments {
				l.Delivered = append(l.Delivered, append([]string{f.Path}, f.HeadingPath...))
			}
			j, _ := json.Marshal(l)
			out = append(append(out, j...), '\n')
		}
	}
	sweepMu.Lock()
	defer sweepMu.Unlock()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	_, err = fh.Write(out)
	return err
}
