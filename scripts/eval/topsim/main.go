// Command topsim measures whether the built-in model's similarity tells a
// prompt about a vault from one that is not: for each prompt it embeds the
// prompt and prints the similarity of its nearest section, then the share
// of on-topic prompts at or above each threshold and of off-topic ones
// below it. Files ending in .jsonl are question sets (on-topic: their
// "query"); other files hold off-topic prompts, one a line.
//
//	lore eval --questions SET.jsonl VAULT --keep DIR   # a vault lore has indexed
//	go run -tags sqlite_fts5 ./scripts/eval/topsim DIR SET.jsonl OFF.txt ...
//
// It embeds the vault's sections first when they have no vector yet (the
// built-in model must be installed: lore model fetch).
// docs/decisions/not-kept-where-words-meet-hook-bar.md has what it measured.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/eval"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: topsim VAULT FILE...")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "topsim:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, files []string) error {
	v, err := vault.Open(dir)
	if err != nil {
		return err
	}
	defer v.Close()
	m, err := retrieve.Open(ctx, v)
	if err != nil {
		return err
	}
	defer m.Close()
	modelDir, err := embed.DefaultModelDir()
	if err != nil {
		return err
	}
	em, err := embed.FromConfig(v.Config.Embedding, modelDir)
	if err != nil {
		return err
	}
	if err := m.Index.Vectors().Use(ctx, em); err != nil {
		return err
	}
	if _, err := m.Index.Refresh(ctx, nil); err != nil {
		return err
	}
	if _, err := m.Index.Vectors().Embed(ctx, nil); err != nil {
		return err
	}
	var on, off []float64
	for _, f := range files {
		prompts, err := readPrompts(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, p := range prompts {
			qv, err := em.Embed(ctx, []string{p})
			if err != nil {
				return err
			}
			ns, err := m.Index.Lookups().Nearest(ctx, qv[0], "", 1)
			if err != nil {
				return err
			}
			top := 0.0
			if len(ns) > 0 {
				top = ns[0].Similarity
			}
			kind := "off"
			if strings.HasSuffix(f, ".jsonl") {
				kind = "on"
				on = append(on, top)
			} else {
				off = append(off, top)
			}
			fmt.Printf("%s\t%.3f\t%s\n", kind, top, p)
		}
	}
	fmt.Printf("\n%d on-topic, %d off-topic; threshold: on-topic at or above / off-topic below\n", len(on), len(off))
	for _, th := range []float64{0.55, 0.6, 0.62, 0.65, 0.68, 0.7} {
		fmt.Printf("%.2f\t%.2f / %.2f\n", th, share(on, func(s float64) bool { return s >= th }), share(off, func(s float64) bool { return s < th }))
	}
	return nil
}

func share(xs []float64, ok func(float64) bool) float64 {
	n := 0
	for _, x := range xs {
		if ok(x) {
			n++
		}
	}
	if len(xs) == 0 {
		return 0
	}
	return float64(n) / float64(len(xs))
}

// readPrompts reads a question set's queries (.jsonl), or a file of
// prompts, one a line.
func readPrompts(path string) ([]string, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return eval.LoadPrompts(path)
	}
	qs, err := eval.LoadQuestions(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Query
	}
	return out, nil
}
