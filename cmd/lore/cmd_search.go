package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/retrieve"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "search", "QUERY [-n K] [-v] [--json]", `Search the memory the bound project sees. Prints each matching section as
path:line (the line it starts on, as grep and rg print), its heading path,
score and a snippet; -v adds each section's unit key. The index follows the
vault before every search; no manual step is needed after an edit.

Example: lore search "how do we release" -n 5`)
	n := fs.Int("n", 10, "number of results")
	asJSON := fs.Bool("json", false, "print JSON (with each hit's line and unit key)")
	verbose := fs.Bool("v", false, "print each hit's unit key")
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
	reply, err := askWarm(ctx, e, b, warm.SearchPath, warm.Request{Query: q, Project: b.Project, Limit: *n, Unreadable: isTerminal(e.stdout) && !*asJSON})
	if err == nil {
		return printHits(e, reply.Hits, *asJSON, *verbose, func() { warmFooter(e, reply.Unreadable) })
	} else if !errors.Is(err, warm.ErrNoServer) {
		return err
	}
	a, err := e.open(ctx, forQuery)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	hits, err := ix.Search(ctx, q, vault.SearchOptions{Limit: *n, Project: b.Project})
	if err != nil {
		return err
	}
	return printHits(e, hits, *asJSON, *verbose, func() { unreadableFooter(ctx, e, ix) })
}

// jsonHit is a hit as lore search --json prints it: an exact match
// (its id, path or title named) has no score, only its stage.
type jsonHit struct {
	vault.Hit
	Score *float64 `json:"score,omitempty"`
}

// printHits prints search results, then footer (text output only).
func printHits(e *env, hits []vault.Hit, asJSON, verbose bool, footer func()) error {
	if asJSON {
		out := make([]jsonHit, len(hits))
		for i, h := range hits {
			out[i].Hit = h
			if h.Stage != "exact" {
				s := math.Round(h.Score*1e4) / 1e4
				out[i].Score = &s
			}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"hits": out})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.stdout, "no matches")
		return nil
	}
	// With colour, lore's own codes go to the terminal itself, and every
	// text from the vault is made visible here (termtext) instead of by the
	// writer in front of the terminal.
	colour := e.colour()
	out, vis := e.stdout, func(s string) string { return s }
	if colour {
		out, vis = raw(e.stdout), termtext.Visible
	}
	w := bufio.NewWriterSize(out, 32<<10) // one write, not three a hit
	for i, h := range hits {
		score := fmt.Sprintf("%.2f", h.Score)
		if h.Stage == "exact" {
			score = "exact match"
		}
		status := ""
		if h.Status != "active" {
			status = " [" + h.Status + "]"
		}
		where := vis(h.Path)
		if h.Line > 0 {
			where += ":" + strconv.Itoa(h.Line)
		}
		heads := vis(strings.Join(h.HeadingPath, " › "))
		if colour {
			where = "\x1b[35m" + where + "\x1b[0m"
			if heads != "" {
				heads = "\x1b[1m" + heads + "\x1b[0m"
			}
		}
		if heads != "" {
			heads = "  " + heads
		}
		fmt.Fprintf(w, "%d. %s%s  (%s)%s%s\n", i+1, where, heads, score, vis(status), draftMark(h.DraftID))
		if verbose {
			fmt.Fprintf(w, "   %s\n", vis(h.UnitKey))
		}
		fmt.Fprintf(w, "   %s\n", vis(h.Snippet))
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
	if st, err := ix.Index.Stats(ctx); err == nil && len(st.Problems) > 0 {
		fmt.Fprintf(e.stdout, "(%d file(s) could not be read as notes; `lore doctor` lists them and why)\n", len(st.Problems))
	}
}
