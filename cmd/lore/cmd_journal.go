package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/lore-memory/lore/journal"
)

func runJournal(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "journal", "now | keywords list | keywords list-global | remember | recall [flags]", `The journal contract's one-shot mode: the same five operations as the MCP
journal profile, on journal notes in the vault (journal/<userId>/<projectId>/).
Output is JSON ({"data": …}); --pretty indents it, --text prints a summary.

Examples:
  lore journal now --text
  lore journal remember --namespace u1/p1 --keyword release --slice "Shipped 2.0" --diary "After the freeze" --importance 4
  lore journal recall --namespace u1/p1 --keyword release --start 2026-01-01 --text
  lore journal keywords list --namespace u1/p1`)
	ns := fs.String("namespace", "", "{userId}/{projectId}")
	var kws pairs
	fs.Var(&kws, "keyword", "a keyword (repeat for more)")
	slice := fs.String("slice", "", "remember: the important content")
	sliceFile := fs.String("slice-file", "", "remember: read the slice from a file")
	diary := fs.String("diary", "", "remember: context, reasons, consequences")
	diaryFile := fs.String("diary-file", "", "remember: read the diary from a file")
	occurred := fs.String("occurred-at", "", "remember: RFC 3339 or YYYY-MM-DD")
	importance := fs.Int("importance", 0, "remember: 1–5")
	source := fs.String("source", "", "remember: where it came from")
	start := fs.String("start", "", "recall: from (RFC 3339 or YYYY-MM-DD)")
	end := fs.String("end", "", "recall: to (RFC 3339 or YYYY-MM-DD)")
	query := fs.String("query", "", "recall: text, with time>=…, time<=…, time=a..b")
	limit := fs.Int("limit", 0, "recall: at most this many (default 20, at most 100)")
	diaries := fs.Bool("include-diary", false, "recall: include diaries")
	text := fs.Bool("text", false, "print a summary instead of JSON")
	pretty := fs.Bool("pretty", false, "indent the JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	op := strings.Join(pos, " ")
	ix, b, err := e.openIndex(ctx)
	if err != nil {
		return err
	}
	defer e.closeIndex(ix)
	j := journal.New(ix, e.store, b.Project)
	var out any
	var summary string
	switch op {
	case "now":
		n := j.Now()
		out, summary = n, fmt.Sprintf("local %s\nutc   %s\n", n.LocalRFC3339, n.UTCRFC3339)
	case "keywords list":
		kl, err := j.KeywordsList(ctx, *ns)
		if err != nil {
			return err
		}
		out, summary = kl, fmt.Sprintf("%s: %d keywords\n%s\n", kl.Namespace, kl.Total, strings.Join(kl.Keywords, ", "))
	case "keywords list-global":
		g, err := j.KeywordsListGlobal(ctx)
		if err != nil {
			return err
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d keywords in %d namespaces\n", g.Total, g.ScannedNamespaces)
		for _, k := range g.Keywords {
			fmt.Fprintf(&sb, "%s (%d items, %d namespaces)\n", k.Keyword, k.Items, k.Namespaces)
		}
		out, summary = g, sb.String()
	case "remember":
		in := journal.RememberInput{Namespace: *ns, Keywords: kws, Slice: *slice, Diary: *diary}
		if *sliceFile != "" {
			data, err := os.ReadFile(*sliceFile)
			if err != nil {
				return err
			}
			in.Slice = string(data)
		}
		if *diaryFile != "" {
			data, err := os.ReadFile(*diaryFile)
			if err != nil {
				return err
			}
			in.Diary = string(data)
		}
		if set["occurred-at"] {
			in.OccurredAt = occurred
		}
		if set["importance"] {
			in.Importance = importance
		}
		if set["source"] {
			in.Source = source
		}
		r, err := j.Remember(ctx, in)
		if err != nil {
			return err
		}
		out, summary = r, fmt.Sprintf("remembered %s in %s (%s)\n", r.ID, r.Path, strings.Join(r.Keywords, ", "))
	case "recall":
		in := journal.RecallInput{Namespace: *ns, Keywords: kws}
		if set["start"] {
			in.Start = start
		}
		if set["end"] {
			in.End = end
		}
		if set["query"] {
			in.Query = query
		}
		if set["limit"] {
			in.Limit = limit
		}
		if set["include-diary"] {
			in.IncludeDiary = diaries
		}
		r, err := j.Recall(ctx, in)
		if err != nil {
			return err
		}
		out, summary = r, r.Text()
	default:
		fs.Usage()
		return usageError{fmt.Sprintf("unknown journal operation %q", op)}
	}
	if *text {
		fmt.Fprint(e.stdout, summary)
		return nil
	}
	if *pretty {
		return printJSON(e.stdout, map[string]any{"data": out})
	}
	data, err := json.Marshal(map[string]any{"data": out})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(data))
	return nil
}
