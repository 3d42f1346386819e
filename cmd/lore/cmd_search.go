package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "search", "QUERY [-n K] [--json]", `Search the memory the bound project sees. Prints each matching section with
its path, heading path, score and a snippet. The index follows the vault
before every search; no manual step is needed after an edit.

Example: lore search "how do we release" -n 5`)
	n := fs.Int("n", 10, "number of results")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if *n < 1 {
		return usageError{fmt.Sprintf("-n %d: give a positive number", *n)}
	}
	if len(pos) == 0 {
		fs.Usage()
		return usageError{"search needs a query"}
	}
	b, err := e.binding()
	if err != nil {
		return err
	}
	q := strings.Join(pos, " ")
	warm, err := askWarm(ctx, e, b, "/lore/v1/search", warmRequest{Query: q, Project: b.Project, Limit: *n, Unreadable: isTerminal(e.stdout) && !*asJSON})
	if err == nil {
		return printHits(e, warm.Hits, *asJSON, func() { warmFooter(e, warm.Unreadable) })
	} else if !errors.Is(err, errNoServer) {
		return err
	}
	ix, b, err := e.openForQuery(ctx, false)
	if err != nil {
		return err
	}
	defer e.closeIndex(ix)
	hits, err := ix.Search(ctx, q, vault.SearchOptions{Limit: *n, Project: b.Project})
	if err != nil {
		return err
	}
	return printHits(e, hits, *asJSON, func() { unreadableFooter(ctx, e, ix) })
}

// printHits prints search results, then footer (text output only).
func printHits(e *env, hits []vault.Hit, asJSON bool, footer func()) error {
	if asJSON {
		if hits == nil {
			hits = []vault.Hit{}
		}
		for i := range hits {
			hits[i].Score = math.Round(hits[i].Score*1e4) / 1e4
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"hits": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.stdout, "no matches")
		return nil
	}
	w := bufio.NewWriterSize(e.stdout, 32<<10) // one write, not three a hit
	for i, h := range hits {
		where := h.Path
		if len(h.HeadingPath) > 0 {
			where += " › " + strings.Join(h.HeadingPath, " › ")
		}
		score := fmt.Sprintf("%.2f", h.Score)
		if h.Stage == "exact" {
			score = "exact match"
		}
		status := ""
		if h.Status != "active" {
			status = " [" + h.Status + "]"
		}
		fmt.Fprintf(w, "%d. %s  (%s)%s\n   %s\n   %s\n", i+1, where, score, status, h.UnitKey, h.Snippet)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	footer()
	return nil
}

// unreadableFooter tells a person at a terminal how many files lore could
// not read as notes (a pipe or a script gets the results alone).
func unreadableFooter(ctx context.Context, e *env, ix *retrieve.Memory) {
	if !isTerminal(e.stdout) {
		return
	}
	if st, err := ix.Stats(ctx); err == nil && len(st.Problems) > 0 {
		fmt.Fprintf(e.stdout, "(%d file(s) could not be read as notes; `lore doctor` lists them and why)\n", len(st.Problems))
	}
}
