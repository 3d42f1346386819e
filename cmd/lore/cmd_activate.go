package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

func runActivate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "activate", "QUERY [--state S] [--json]", `Run the retrieval pipeline an agent's activate call runs: exact match, BM25,
vectors, fusion, optional rerank, the note stage (links, coverage, status),
the section stage, assembly within the token budget, and deltas against
--state (the next_state of an earlier call).
Prints the fragments, the removed units, next_state and the run id.

Example: lore activate "fix the sync retry budget" --json`)
	state := fs.String("state", "", "next_state of the previous call")
	asJSON := fs.Bool("json", false, "print the response as JSON, as MCP returns it")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return usageError{"activate needs a query"}
	}
	b, err := e.binding()
	if err != nil {
		return err
	}
	q := strings.Join(pos, " ")
	var act *vault.Activation
	if reply, err := askWarm(ctx, e, b, warm.ActivatePath, warm.Request{Query: q, Project: b.Project, State: *state, Workspace: b.Workspace}); err == nil {
		act = reply.Activation
	} else if !errors.Is(err, warm.ErrNoServer) {
		return err
	} else {
		a, err := e.open(ctx, forQuery|withModels)
		if err != nil {
			return err
		}
		defer a.Close()
		ix, b := a.mem, a.b
		code := codeCheck(ctx, e.getenv, b.Workspace, ix.Vault())
		if act, err = ix.Activate(ctx, vault.ActivateRequest{Query: q, State: *state, Project: b.Project, Code: code}); err != nil {
			return err
		}
		flushCheckers()
	}
	return printActivation(e, act, *asJSON)
}

// draftMark is what follows the place of a Draft's text in lore's text
// output (activate, search, activity): that it is a Draft, not reviewed.
func draftMark(id string) string {
	if id == "" {
		return ""
	}
	return " · Draft " + id + ", not reviewed"
}

// printActivation prints an activation as lore activate does.
func printActivation(e *env, act *vault.Activation, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, act)
	}
	// One write at the end instead of one a line: a fragment is many lines.
	// With colour, lore's codes go to the terminal itself and the vault's
	// text is made visible here (as in lore search).
	out, vis := e.stdout, func(s string) string { return s }
	head := func(s string) string { return s }
	if e.colour() {
		out, vis = raw(e.stdout), termtext.Visible
		head = func(s string) string { return "\x1b[1m" + s + "\x1b[0m" }
	}
	w := bufio.NewWriterSize(out, 32<<10)
	for i, f := range act.Fragments {
		fmt.Fprintf(w, "%d. [%s] %s%s\n   %s\n", i+1, f.Action, head(vis(location(f.Path, f.HeadingPath))), draftMark(f.DraftID), vis(f.UnitKey))
		if len(f.Stale) > 0 {
			fmt.Fprintf(w, "   %s\n", vis(vault.StaleText(f.Stale)))
		}
		if f.Content != "" {
			for _, line := range strings.Split(strings.TrimRight(f.Content, "\n"), "\n") {
				fmt.Fprintf(w, "   │ %s\n", vis(line))
			}
		}
	}
	if len(act.Fragments) == 0 {
		fmt.Fprintln(w, "no fragments")
	}
	if len(act.Removed) > 0 {
		fmt.Fprintf(w, "removed: %s\n", strings.Join(act.Removed, ", "))
	}
	fmt.Fprintf(w, "run: %s (lore runs show %s: every candidate and why it was cut)\n", act.RunID, act.RunID)
	fmt.Fprintf(w, "next_state (pass it as --state to get only what changed next time): %s\n", act.NextState)
	return w.Flush()
}

func runRuns(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "runs", "list [-n N] | show RUN_ID", `List recent retrieval runs, or show one: the query, every candidate with its
rank and score at every stage and why it was delivered or cut, the exact text
delivered, and the timings.

Example: lore runs show run_0193a…`)
	n := fs.Int("n", 20, "runs to list")
	asJSON := fs.Bool("json", false, "show: print the stored record as JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if *n < 1 {
		return usageError{fmt.Sprintf("-n %d: give a positive number", *n)}
	}
	if len(pos) == 0 || (pos[0] != "list" && pos[0] != "show") || (pos[0] == "show") != (len(pos) == 2) {
		fs.Usage()
		return usageError{"runs needs `list` or `show RUN_ID`"}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix := a.mem
	if pos[0] == "show" {
		rec, err := ix.Run(ctx, pos[1])
		if err != nil {
			return err
		}
		if *asJSON {
			var v any
			json.Unmarshal(rec, &v)
			return writeJSON(e.stdout, v)
		}
		return printRun(e, rec)
	}
	runs, err := ix.Pipeline.Runs(ctx, *n)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "no retrieval runs yet: each activate records one")
		return nil
	}
	fmt.Fprintf(e.stdout, "%-30s  %-19s  %9s  %-8s %s\n", "RUN", "WHEN (UTC)", "TIME", "PROJECT", "QUERY")
	for _, r := range runs {
		fmt.Fprintf(e.stdout, "%s  %s  %6.1f ms  %-8s %s\n", r.RunID, r.CreatedAt[:19], float64(r.TotalUS)/1000, orDash(r.Project), r.Query)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printRun shows a retrieval run for people: the query, what was delivered,
// then every candidate with its ranks, scores and fate (--json for tools).
func printRun(e *env, rec []byte) error {
	var r struct {
		RunID                string `json:"run_id"`
		CreatedAt            string `json:"created_at"`
		Query, Project, Mode string
		TotalUS              int64 `json:"total_us"`
		Delivered            []struct {
			Action, Path string
			UnitKey      string `json:"unit_key"`
			Content      string
		}
		Candidates []struct {
			Rank        int
			Path        string
			HeadingPath []string `json:"heading_path"`
			Tokens      int
			ExactRank   int     `json:"exact_rank"`
			BM25Rank    int     `json:"bm25_rank"`
			VectorRank  int     `json:"vector_rank"`
			Final       float64 `json:"final"`
			Outcome     string
		}
		Removed []string
	}
	if err := json.Unmarshal(rec, &r); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "run %s · %s · project %s · mode %s · %.1f ms\nquery: %s\n\n", r.RunID, r.CreatedAt, orDash(r.Project), r.Mode, float64(r.TotalUS)/1000, r.Query)
	fmt.Fprintf(e.stdout, "delivered (%d):\n", len(r.Delivered))
	for i, d := range r.Delivered {
		fmt.Fprintf(e.stdout, "  %d. [%s] %s  (%s)\n", i+1, d.Action, d.Path, d.UnitKey)
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(e.stdout, "removed: %s\n", strings.Join(r.Removed, ", "))
	}
	rank := func(n int) string {
		if n == 0 {
			return "-"
		}
		return strconv.Itoa(n)
	}
	fmt.Fprintf(e.stdout, "\ncandidates (%d):\n", len(r.Candidates))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tOUTCOME\tSCORE\tEXACT\tBM25\tVECTOR\tTOKENS\tSECTION")
	for _, c := range r.Candidates {
		where := location(c.Path, c.HeadingPath)
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%s\t%s\t%s\t%d\t%s\n", c.Rank, c.Outcome, c.Final, rank(c.ExactRank), rank(c.BM25Rank), rank(c.VectorRank), c.Tokens, where)
	}
	return tw.Flush()
}
