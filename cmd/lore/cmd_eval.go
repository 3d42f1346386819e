package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/mcp"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "eval", "DATASET_DIR [--mode lexical] [--keep DIR] | --cases | --questions FILE VAULT_DIR | --table FILE [--data DIR] [--misses] [--unjudged DIR] [--hold-out SEED]", `Measure ranking quality on a BEIR-format data set (corpus.jsonl[.gz],
queries.jsonl, qrels/test.tsv): builds a temporary vault and index from the
corpus, runs every judged query, and prints nDCG@10, Recall@100 and MRR@10
as BEIR computes them.

With --cases, it scores the bound vault instead on the evaluation cases people
made from retrieval runs (Recall@20, nDCG@10, MRR).

With --table FILE, it runs every question set of the table on its vault
(a folder, or an archive in the --data folder; a vault whose archive is
absent is named and left out) and prints one table: note@1, note@3,
section@1 and section@3 for activate, and plain FTS5's on the same
questions beside them (one row per note, and one per heading section, an
OR of the query's words, bm25); a vault of several sets ends with a row of
all their questions pooled. With --misses it then lists each question
whose answering section was not first and what came first instead: another
section of the right note, the answer's own text from a copy in another
note, another note, or nothing; the question's words the answering
section holds and the first does not ("none": nothing in which words they
hold prefers the answer); the section plain FTS5 put first; and counts
them by vault, with how many of them plain FTS5 put first and how many
questions lore put first that plain FTS5 did not. A vault whose entry
names a judgments file ("judged": JSON Lines of query, a note or a
section, and answers true or false) gets a second reading under the
table: a place also counts when it was judged to answer the question
(docs/decisions/judged-reading.md); --unjudged DIR writes the places that
reading needed and nobody judged, lore's and plain FTS5's together, to
DIR/<vault>.jsonl (a vault with none has no file there, an earlier
run's removed); with --misses, the questions whose first three notes
hold no answer in that reading are listed too, with how many of those
notes have a section holding every question word the answer holds.
--hold-out SEED sets half of each vault's questions aside, by the seed
and each question's text: --misses lists only the other half, and the
held-out half's figures (strict and judged) are printed on their own, so
a change designed from the misses is judged on questions nobody read for
it.

With --questions FILE VAULT_DIR, it copies the vault into a temporary one,
asks each question of FILE (JSON Lines: query, project, expected
"path#Heading") through activate, and prints success@1/@3 (the answering
section delivered first / among the first three) and what the agent was
sent: the median share of the text content's tokens that are memory, the
median next_state tokens and bytes on the wire.

Examples:
  lore eval ~/data/scifact
  lore eval --cases --mode hybrid
  lore eval --questions testdata/demo-questions.jsonl testdata/demo-vault
  lore eval --table testdata/eval/table.json --data DIR --misses`)
	mode := fs.String("mode", "lexical", "retrieval mode: lexical, vector or hybrid (the last two use the built-in model)")
	keep := fs.String("keep", "", "build the vault in DIR and keep it (default: a temporary folder, removed)")
	cases := fs.Bool("cases", false, "score the bound vault on its evaluation cases (made with \"Report inaccurate\" in lore serve) instead of a data set")
	questions := fs.String("questions", "", "score activate on the questions in FILE over the vault VAULT_DIR")
	table := fs.String("table", "", "score every question set of the table FILE on its vault, beside plain FTS5 (testdata/eval/table.json)")
	data := fs.String("data", os.Getenv("LORE_DATA"), "--table: the folder holding the vault archives the table names (default $LORE_DATA)")
	var without stringList
	fs.Var(&without, "without", "--table: turn a ranking `stage`, or a part of one, off, to measure what it pays ("+retrieve.StageList()+"); may be given more than once")
	asJSON := fs.Bool("json", false, "--questions: print every answer as JSON")
	misses := fs.Bool("misses", false, "--table: also list each question whose answering section was not first, and what came first instead")
	unjudged := fs.String("unjudged", "", "--table: write, for each vault, the places its judged reading needed that nobody judged to `DIR`/<vault>.jsonl")
	holdOut := fs.String("hold-out", "", "--table: set half of each vault's questions aside by `SEED`: --misses does not list them, and their figures are printed on their own")
	weight := fs.Float64("vector-weight", 0, "the weight of cosine similarity in score fusion (default: lore.yaml's retrieval.vector_weight, else 0.3)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if *mode != "lexical" && *mode != "vector" && *mode != "hybrid" {
		return usageError{fmt.Sprintf("--mode %s: want lexical, vector or hybrid", *mode)}
	}
	switch {
	case *cases:
		return evalCases(ctx, e, *mode)
	case *table != "":
		return evalTable(ctx, e, tableRun{data: *data, mode: *mode, weight: *weight, without: without, misses: *misses, unjudged: *unjudged, holdOut: *holdOut}, *table)
	case *questions != "":
		if len(pos) != 1 {
			return usageError{"eval --questions FILE needs one vault folder"}
		}
		return evalQuestions(ctx, e, *questions, pos[0], *mode, *keep, *weight, *asJSON)
	case len(pos) != 1:
		fs.Usage()
		return usageError{"eval needs one data set folder"}
	}
	return evalBEIR(ctx, e, pos[0], *mode, *keep, *weight)
}

// evalBEIR scores a BEIR data set written into a scratch vault.
func evalBEIR(ctx context.Context, e *env, dataDir, mode, keep string, weight float64) error {
	ds, err := eval.LoadBEIR(dataDir)
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "read data set %s: %v", dataDir, err)
	}
	dir, cleanup, err := scratchVault(keep, "lore-eval-*")
	if err != nil {
		return err
	}
	defer cleanup()
	if err := ds.WriteVault(dir); err != nil {
		return err
	}
	ix, indexTime, err := evalIndex(ctx, e, dir, mode, weight, func(cfg vault.EmbeddingConfig, modelDir string) (embed.Embedder, error) {
		return &embed.Builtin{Dir: modelDir}, nil
	})
	if err != nil {
		return err
	}
	defer closeEvalIndex(ix)
	byPath := map[string]string{}
	for _, d := range ds.Docs {
		byPath[eval.DocPath(d.ID)] = d.ID
	}
	m, err := ds.Evaluate(ctx, func(ctx context.Context, q string) ([]string, error) {
		units, err := ix.Pipeline.Rank(ctx, q, mode, "", 300)
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
	name := strings.TrimRight(dataDir, "/")
	name = name[strings.LastIndex(name, "/")+1:]
	fmt.Fprintf(e.stdout, "data set   %s: %d documents, %d judged queries\n", name, len(ds.Docs), m.Queries)
	fmt.Fprintf(e.stdout, "mode       %s\n", mode)
	fmt.Fprintf(e.stdout, "nDCG@10    %.4f\nRecall@10  %.4f\nRecall@100 %.4f\nMRR@10     %.4f\n", m.NDCG10, m.Recall10, m.Recall100, m.MRR10)
	fmt.Fprintf(e.stderr, "index      %s; queries %s (%.1f ms each)\n", indexTime.Round(time.Millisecond), m.QueryTime.Round(time.Millisecond),
		float64(m.QueryTime.Microseconds())/1000/float64(max(m.Queries, 1)))
	return nil
}

// evalIndex opens and indexes the scratch vault dir and, unless mode is
// lexical, embeds it with the embedder newEmbedder gives; queries then run
// as lore mcp runs them, postings and sign bits in memory (the same BM25
// scores as FTS5's; see package fts/internal/memindex).
func evalIndex(ctx context.Context, e *env, dir, mode string, weight float64, newEmbedder func(vault.EmbeddingConfig, string) (embed.Embedder, error)) (*retrieve.Memory, time.Duration, error) {
	v, err := vault.Open(dir)
	if err != nil {
		return nil, 0, err
	}
	ix, err := openIndexOf(ctx, v)
	if err != nil {
		v.Close()
		return nil, 0, err
	}
	fail := func(err error) (*retrieve.Memory, time.Duration, error) {
		closeEvalIndex(ix)
		return nil, 0, err
	}
	cfg := v.Config.Retrieval
	if weight != 0 {
		cfg.VectorWeight = weight
	}
	if err := ix.Pipeline.UseFusion(cfg); err != nil {
		return fail(err)
	}
	start := time.Now()
	if _, err := ix.Index.Refresh(ctx, progressPrinter(e.stderr, "indexing")); err != nil {
		return fail(err)
	}
	indexTime := time.Since(start)
	if mode != "lexical" {
		modelDir, err := embed.DefaultModelDir()
		if err != nil {
			return fail(err)
		}
		em, err := newEmbedder(v.Config.Embedding, modelDir)
		if err == nil {
			err = ix.Index.Vectors().Use(ctx, em)
		}
		if err != nil {
			return fail(err)
		}
		t := time.Now()
		n, err := ix.Index.Vectors().Embed(ctx, progressPrinter(e.stderr, "embedding"))
		if err != nil {
			return fail(notReadyAsSetup(err))
		}
		if n > 0 {
			fmt.Fprintf(e.stderr, "embedded %d unit texts in %s (%.1f/s)\n", n, time.Since(t).Round(time.Second), float64(n)/time.Since(t).Seconds())
		}
	}
	if err := ix.Index.Resident().Keep(ctx); err != nil {
		return fail(err)
	}
	return ix, indexTime, nil
}

func closeEvalIndex(ix *retrieve.Memory) {
	v := ix.Vault()
	ix.Close()
	v.Close()
}

// evalQuestions copies the vault at src into a scratch vault and scores
// activate on the questions in file.
func evalQuestions(ctx context.Context, e *env, file, src, mode, keep string, weight float64, asJSON bool) error {
	qs, err := eval.LoadQuestions(file)
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "read questions: %v", err)
	}
	dir, cleanup, err := scratchVault(keep, "lore-eval-*")
	if err != nil {
		return err
	}
	defer cleanup()
	if err := copyNotes(src, dir); err != nil {
		return err
	}
	ix, _, err := evalIndex(ctx, e, dir, mode, weight, embed.FromConfig)
	if err != nil {
		return err
	}
	defer closeEvalIndex(ix)
	m, err := eval.ScoreQuestions(ctx, eval.InMode(ix, mode), qs, mcp.RenderActivation)
	if err != nil {
		return err
	}
	sm, err := eval.ScoreSearch(ctx, ix, qs, 10)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"activate": m, "search": sm})
	}
	fmt.Fprintf(e.stdout, "questions  %d over %s\nmode       %s (activate; search is lexical)\n", m.Questions, src, mode)
	fmt.Fprintf(e.stdout, "           section@1  section@3  note@1  note@3\n")
	fmt.Fprintf(e.stdout, "activate   %9.3f  %9.3f  %6.3f  %6.3f\n", m.Success1, m.Success3, m.Note1, m.Note3)
	fmt.Fprintf(e.stdout, "search     %9.3f  %9.3f  %6.3f  %6.3f\n", sm.Success1, sm.Success3, sm.Note1, sm.Note3)
	fmt.Fprintf(e.stdout, "success@1  %.3f\nsuccess@3  %.3f\ndelivered  %.3f\nMRR        %.3f\n", m.Success1, m.Success3, m.Delivered, m.MRR)
	fmt.Fprintf(e.stdout, "content share of the text (median)  %.2f\ntext tokens (median)                %d\nnext_state tokens (median)          %d\nwire bytes (median)                 %d\n",
		m.Share, m.Text, m.State, m.Wire)
	fmt.Fprintf(e.stdout, "the model reads (chars median/p95, tokens median/p95)\n  structuredContent  %d / %d, %d / %d\n  text content       %d / %d, %d / %d\n  structuredContent after the prompt hook  %d / %d, %d / %d\n",
		m.Structured.CharsMedian, m.Structured.CharsP95, m.Structured.TokensMedian, m.Structured.TokensP95,
		m.TextRead.CharsMedian, m.TextRead.CharsP95, m.TextRead.TokensMedian, m.TextRead.TokensP95,
		m.AfterHook.CharsMedian, m.AfterHook.CharsP95, m.AfterHook.TokensMedian, m.AfterHook.TokensP95)
	for _, a := range m.Answers {
		if a.Rank != 1 {
			fmt.Fprintf(e.stderr, "rank %d  %q wants %s; first: %s\n", a.Rank, a.Query, a.Expected, strings.Join(a.Delivered[:min(3, len(a.Delivered))], ", "))
		}
	}
	return nil
}

// copyNotes copies the Markdown notes and lore.yaml of the vault at src
// (dot-folders left out) into dst.
func copyNotes(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || !(strings.HasSuffix(p, ".md") || rel == "lore.yaml") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
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
	a, err := e.open(ctx, withModels)
	if err != nil {
		return err
	}
	defer a.Close()
	ix := a.mem
	cs, err := eval.CasesOf(ix.Vault()).All()
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		fmt.Fprintln(e.stdout, "no evaluation cases yet: make some with \"Report inaccurate\" in lore serve")
		return nil
	}
	m, err := eval.ScoreCases(ctx, ix.Pipeline, cs, mode)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "cases      %d\nmode       %s\nRecall@20  %.4f\nnDCG@10    %.4f\nMRR        %.4f\n", m.Cases, mode, m.Recall20, m.NDCG10, m.MRR)
	return nil
}

// tableRun is how lore eval --table runs: the folder of the archives, the
// retrieval mode, the vector weight, the stages turned off, and whether to
// list the misses.
type tableRun struct {
	data, mode string
	weight     float64
	without    []string
	misses     bool
	unjudged   string // a folder to write each vault's unjudged places to
	// holdOut is the seed of a held-out half (eval.HeldOut): --misses
	// lists only the other half, and the held-out half's figures are
	// printed on their own ("": none).
	holdOut string
}

// evalTable scores every question set of a table on its vault, beside
// plain FTS5, and prints one Markdown table; with misses, then each
// question whose answering section was not first.
func evalTable(ctx context.Context, e *env, run tableRun, file string) error {
	t, err := eval.LoadTable(file)
	if err != nil {
		return vault.Errorf(vault.CodeInvalid, "read table: %v", err)
	}
	stages := ""
	if len(run.without) > 0 {
		stages = "; without " + strings.Join(run.without, ", ")
	}
	fmt.Fprintf(e.stdout, "mode %s%s; plain FTS5 beside each figure (lore / FTS5)\n\n", run.mode, stages)
	fmt.Fprintln(e.stdout, "| vault | set | questions | note@1 | note@3 | section@1 | section@3 |")
	fmt.Fprintln(e.stdout, "|---|---|---|---|---|---|---|")
	var off [][]string
	var offNames []string
	for _, f := range t.OffTopic {
		ps, err := eval.LoadPrompts(f)
		if err != nil {
			return err
		}
		off = append(off, ps)
		offNames = append(offNames, fmt.Sprintf("%s (%d)", filepath.Base(f), len(ps)))
	}
	var missing, hookRows, judgedRows, heldRows []string
	var missed []tableMisses
	for _, tv := range t.Vaults {
		got, err := evalTableVault(ctx, e, tv, run, off)
		if errors.Is(err, fs.ErrNotExist) && tv.Archive != "" {
			missing = append(missing, fmt.Sprintf("%s (%s)", tv.Name, filepath.Join(run.data, tv.Archive)))
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tv.Name, err)
		}
		for _, r := range got.rows {
			fmt.Fprintln(e.stdout, r)
		}
		hookRows = append(hookRows, got.hook)
		missed = append(missed, got.misses)
		if got.judged != "" {
			judgedRows = append(judgedRows, got.judged)
		}
		if got.held != "" {
			heldRows = append(heldRows, got.held)
		}
		if run.unjudged != "" {
			if err := eval.WritePlaces(filepath.Join(run.unjudged, tv.Name+".jsonl"), got.unjudged); err != nil {
				return err
			}
		}
	}
	printTable(e.stdout, "judged: a place counts when it is the question's own answer or was judged to answer it (the vault's judgments file); places nobody judged count as misses (lore / FTS5)",
		[]string{"vault", "questions", "note@1", "note@3", "section@1", "places not judged"}, judgedRows)
	printTable(e.stdout, fmt.Sprintf("held out (--hold-out %s): the half of each vault's questions --misses does not list, strict and judged (lore / FTS5); judge a design made from the misses here", run.holdOut),
		[]string{"vault", "questions held out", "note@1", "note@3", "section@1", "judged note@1", "judged note@3", "judged section@1"}, heldRows)
	if len(off) > 0 {
		printTable(e.stdout, fmt.Sprintf("the prompt hook (reviewed memory that clears the relevance bar, 6 fragments in 600 tokens): on-topic prompts are the vault's questions, off-topic those of %s", strings.Join(offNames, ", ")),
			[]string{"vault", "on-topic: answering section sent / sent first", "off-topic: nothing sent, by file", "off-topic prompts that got something"}, hookRows)
	}
	if run.misses {
		printMisses(e.stdout, missed)
	}
	for _, m := range missing {
		fmt.Fprintf(e.stdout, "\nleft out, its archive is absent (--data names the folder that holds it): %s\n", m)
	}
	return nil
}

// printTable writes a table under the main one: a line that says what it
// is, then its header and rows (each a Markdown row already); nothing when
// it has no rows.
func printTable(w io.Writer, intro string, header, rows []string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n\n| %s |\n|%s\n", intro, strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
}

// tableVault is what one vault of the table gave: its rows of the main
// table, its row of the hook's, and the questions whose answering section
// was not first.
type tableVault struct {
	rows   []string
	hook   string
	misses tableMisses
	// judged is the vault's row of the judged reading ("" without a
	// judgments file); unjudged the places it needed that nobody judged.
	judged   string
	unjudged []eval.Judgment
	// held is the vault's row of the held-out half (--hold-out; "" without).
	held string
}

// evalTableVault indexes one vault of the table and asks it each set.
func evalTableVault(ctx context.Context, e *env, tv eval.TableVault, run tableRun, off [][]string) (out tableVault, err error) {
	out.misses.vault = tv.Name
	dir, cleanup, err := scratchVault("", "lore-eval-*")
	if err != nil {
		return out, err
	}
	defer cleanup()
	root := dir
	if tv.Archive != "" {
		if run.data == "" {
			return out, fmt.Errorf("%s: %w", tv.Archive, fs.ErrNotExist)
		}
		if err := extractInto(filepath.Join(run.data, tv.Archive), dir); err != nil {
			return out, err
		}
	} else if err := copyNotes(tv.Dir, dir); err != nil {
		return out, err
	}
	ref, err := eval.OpenFTS5(root)
	if err != nil {
		return out, err
	}
	defer ref.Close()
	ix, _, err := evalIndex(ctx, e, root, run.mode, run.weight, embed.FromConfig)
	if err != nil {
		return out, err
	}
	defer closeEvalIndex(ix)
	if err := ix.Pipeline.Without(run.without...); err != nil {
		return out, err
	}
	judgments := eval.Judgments{}
	if tv.Judged != "" {
		if judgments, err = eval.LoadJudgments(tv.Judged); err != nil {
			return out, vault.Errorf(vault.CodeInvalid, "read judgments: %v", err)
		}
	}
	var all []eval.Question
	var total pooled
	var lore, fts5 eval.JudgedTotals
	// The held-out half (--hold-out), strict and judged, lore's and FTS5's.
	var held struct{ lore, fts5, loreJudged, fts5Judged eval.JudgedTotals }
	for _, set := range tv.Sets {
		qs, err := eval.LoadQuestions(set)
		if err != nil {
			return out, vault.Errorf(vault.CodeInvalid, "read questions %s: %v", set, err)
		}
		all = append(all, qs...)
		m, err := eval.ScoreQuestions(ctx, eval.InMode(ix, run.mode), qs, mcp.RenderActivation)
		if err != nil {
			return out, err
		}
		r, err := ref.Score(ctx, qs)
		if err != nil {
			return out, err
		}
		figs := [8]float64{m.Note1, r.Note1, m.Note3, r.Note3, m.Success1, r.Section1, m.Success3, r.Section3}
		out.rows = append(out.rows, tableRow(tv.Name, filepath.Base(set), len(qs), figs))
		total.add(len(qs), figs)
		var read []eval.Answer // the answers --misses may list
		var readFirst []string
		first := r.First()
		for i, q := range qs {
			ranked := eval.RankedFromSections(m.Answers[i].Delivered)
			f, u := judgments.Read(q, ranked)
			lore.Add(f, len(u))
			out.unjudged = append(out.unjudged, u...)
			heldOut := run.holdOut != "" && eval.HeldOut(run.holdOut, q.Query)
			if heldOut {
				held.lore.Add(eval.Strict(q, ranked), 0)
				held.loreJudged.Add(f, len(u))
				held.fts5.Add(eval.Strict(q, r.Ranked[i]), 0)
			} else {
				read = append(read, m.Answers[i])
				readFirst = append(readFirst, first[i])
			}
			if run.misses && tv.Judged != "" && !heldOut {
				if err := out.misses.addJudged(ctx, ix, filepath.Base(set), m.Answers[i], f); err != nil {
					return out, err
				}
			}
			f, u = judgments.Read(q, r.Ranked[i])
			fts5.Add(f, len(u))
			out.unjudged = append(out.unjudged, u...)
			if heldOut {
				held.fts5Judged.Add(f, len(u))
			}
		}
		if run.misses {
			if err := out.misses.add(ctx, ix, filepath.Base(set), read, readFirst); err != nil {
				return out, err
			}
		}
	}
	if len(tv.Sets) > 1 {
		out.rows = append(out.rows, tableRow(tv.Name, fmt.Sprintf("**all %d sets**", len(tv.Sets)), total.n, total.figures()))
	}
	out.unjudged = eval.Pool(out.unjudged)
	if tv.Judged != "" {
		l, f := lore.Shares(), fts5.Shares()
		out.judged = fmt.Sprintf("| %s | %d | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %d / %d |", tv.Name, lore.Questions, l[0], f[0], l[1], f[1], l[2], f[2], lore.Unjudged, fts5.Unjudged)
	}
	if run.holdOut != "" {
		pair := func(l, f eval.JudgedTotals, i int) string {
			return fmt.Sprintf("%.3f / %.3f", l.Shares()[i], f.Shares()[i])
		}
		judged := []string{"", "", ""}
		if tv.Judged != "" {
			for i := range judged {
				judged[i] = pair(held.loreJudged, held.fts5Judged, i)
			}
		}
		out.held = fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s | %s |", tv.Name, held.lore.Questions,
			pair(held.lore, held.fts5, 0), pair(held.lore, held.fts5, 1), pair(held.lore, held.fts5, 2), judged[0], judged[1], judged[2])
	}
	if len(off) > 0 {
		h, err := eval.ScoreHook(ctx, eval.InMode(ix, run.mode), all, off)
		if err != nil {
			return out, err
		}
		var silent, sent []string
		for _, o := range h.Off {
			silent = append(silent, fmt.Sprintf("%.3f", o.Silent))
			sent = append(sent, o.Sent...)
		}
		if len(sent) == 0 {
			sent = []string{"none"}
		}
		out.hook = fmt.Sprintf("| %s | %.3f / %.3f (%d) | %s | %s |", tv.Name, h.Answered, h.First, h.On, strings.Join(silent, " · "), strings.Join(sent, "; "))
	}
	return out, nil
}

// tableRow is one row of the table: lore's figure and plain FTS5's beside
// it, for note@1, note@3, section@1 and section@3 (figs in that order,
// lore's first in each pair).
func tableRow(vaultName, set string, questions int, figs [8]float64) string {
	pair := func(i int) string { return fmt.Sprintf("%.3f / %.3f", figs[i], figs[i+1]) }
	return fmt.Sprintf("| %s | %s | %d | %s | %s | %s | %s |", vaultName, set, questions, pair(0), pair(2), pair(4), pair(6))
}

// pooled sums a vault's sets into one figure each over all their
// questions, as issue 62's goals are set for a vault: each set's figure
// weighed by its questions.
type pooled struct {
	n   int
	sum [8]float64
}

func (p *pooled) add(questions int, figs [8]float64) {
	p.n += questions
	for i, f := range figs {
		p.sum[i] += f * float64(questions)
	}
}

func (p *pooled) figures() (out [8]float64) {
	if p.n == 0 {
		return out
	}
	for i, s := range p.sum {
		out[i] = s / float64(p.n)
	}
	return out
}

// extractInto unpacks a vault archive and moves its notes into the scratch
// vault dir (a git repository already).
func extractInto(archive, dir string) error {
	tmp, err := os.MkdirTemp("", "lore-eval-archive-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root, err := eval.ExtractArchive(archive, tmp)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, en := range entries {
		if err := os.Rename(filepath.Join(root, en.Name()), filepath.Join(dir, en.Name())); err != nil {
			return err
		}
	}
	return nil
}
