package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/vault"

	"github.com/lore-memory/lore/eval"
)

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "eval", "DATASET_DIR [--mode lexical] [--keep DIR]", `Measure ranking quality on a BEIR-format data set (corpus.jsonl[.gz],
queries.jsonl, qrels/test.tsv): builds a temporary vault and index from the
corpus, runs every judged query, and prints nDCG@10, Recall@100 and MRR@10
as BEIR computes them.

With --cases, it scores the bound vault instead on the evaluation cases people
made from retrieval runs (Recall@20, nDCG@10, MRR).

Examples:
  lore eval ~/data/scifact
  lore eval --cases --mode hybrid`)
	mode := fs.String("mode", "lexical", "retrieval mode: lexical, vector or hybrid (the last two use the built-in model)")
	keep := fs.String("keep", "", "build the vault in DIR and keep it (default: a temporary folder, removed)")
	cases := fs.Bool("cases", false, "score the bound vault on its evaluation cases (made with \"Report inaccurate\" in lore serve) instead of a data set")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if *cases {
		return evalCases(ctx, e, *mode)
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"eval needs one data set folder"}
	}
	if *mode != "lexical" && *mode != "vector" && *mode != "hybrid" {
		return usageError{fmt.Sprintf("--mode %s: want lexical, vector or hybrid", *mode)}
	}
	ds, err := eval.LoadBEIR(pos[0])
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "read data set %s: %v", pos[0], err)
	}
	dir, cleanup, err := scratchVault(*keep, "lore-eval-*")
	if err != nil {
		return err
	}
	defer cleanup()
	if err := ds.WriteVault(dir); err != nil {
		return err
	}
	v, err := vault.Open(dir)
	if err != nil {
		return err
	}
	defer v.Close()
	ix, err := fts.Open(ctx, v)
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	if _, err := ix.Refresh(ctx, progressPrinter(e.stderr, "indexing")); err != nil {
		return err
	}
	indexTime := time.Since(start)
	if *mode != "lexical" {
		dir, err := embed.DefaultModelDir()
		if err != nil {
			return err
		}
		if err := ix.UseEmbedder(ctx, &embed.Builtin{Dir: dir}); err != nil {
			return err
		}
		t := time.Now()
		n, err := ix.EmbedPending(ctx, progressPrinter(e.stderr, "embedding"))
		if err != nil {
			return notReadyAsSetup(err)
		}
		if n > 0 {
			fmt.Fprintf(e.stderr, "embedded %d unit texts in %s (%.1f/s)\n", n, time.Since(t).Round(time.Second), float64(n)/time.Since(t).Seconds())
		}
	}
	// Queries run as lore mcp runs them: postings and sign bits in memory
	// (the same BM25 scores as FTS5's; see fts/memindex.go).
	if err := ix.KeepInMemory(ctx); err != nil {
		return err
	}
	byPath := map[string]string{}
	for _, d := range ds.Docs {
		byPath[eval.DocPath(d.ID)] = d.ID
	}
	m, err := ds.Evaluate(ctx, func(ctx context.Context, q string) ([]string, error) {
		units, err := ix.Rank(ctx, q, *mode, "", 300)
		if err != nil {
			return nil, err
		}
		var ids []string
		seen := map[string]bool{}
		for _, u := range units {
			if !seen[u.Path] {
				seen[u.Path] = true
				ids = append(ids, byPath[u.Path])
			}
		}
		return ids, nil
	})
	if err != nil {
		return err
	}
	name := pos[0]
	name = name[strings.LastIndex(strings.TrimRight(name, "/"), "/")+1:]
	fmt.Fprintf(e.stdout, "data set   %s: %d documents, %d judged queries\n", strings.TrimRight(name, "/"), len(ds.Docs), m.Queries)
	fmt.Fprintf(e.stdout, "mode       %s\n", *mode)
	fmt.Fprintf(e.stdout, "nDCG@10    %.4f\nRecall@100 %.4f\nMRR@10     %.4f\n", m.NDCG10, m.Recall100, m.MRR10)
	fmt.Fprintf(e.stderr, "index      %s; queries %s (%.1f ms each)\n", indexTime.Round(time.Millisecond), m.QueryTime.Round(time.Millisecond),
		float64(m.QueryTime.Microseconds())/1000/float64(max(m.Queries, 1)))
	return nil
}

// notReadyAsSetup turns a missing model into a setup error that says what to run.
func notReadyAsSetup(err error) error {
	if errors.Is(err, embed.ErrNotReady) {
		return vault.Errorf(vault.CodeModelPreparing, "%v", err)
	}
	return err
}

func evalCases(ctx context.Context, e *env, mode string) error {
	ix, _, err := e.openIndexWithModels(ctx)
	if err != nil {
		return err
	}
	defer e.closeIndex(ix)
	cs, err := eval.CasesOf(ix.Vault()).All()
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		fmt.Fprintln(e.stdout, "no evaluation cases yet: make some with \"Report inaccurate\" in lore serve")
		return nil
	}
	m, err := eval.ScoreCases(ctx, ix, cs, mode)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "cases      %d\nmode       %s\nRecall@20  %.4f\nnDCG@10    %.4f\nMRR        %.4f\n", m.Cases, mode, m.Recall20, m.NDCG10, m.MRR)
	return nil
}
