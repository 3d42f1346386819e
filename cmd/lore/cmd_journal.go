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

const journalAbout = `The journal contract's one-shot mode: the same five operations as the MCP
journal profile, on journal notes in the vault (journal/<userId>/<projectId>/).
Output is JSON ({"data": …}); --pretty indents it, --text prints a summary.
Each operation has its own flags: lore journal recall -h.

Examples:
  lore journal now --text
  lore journal remember --namespace u1/p1 --keyword release --slice "Shipped 2.0" --diary "After the freeze" --importance 4
  lore journal recall --namespace u1/p1 --keyword release --start 2026-01-01 --text
  lore journal keywords list --namespace u1/p1`

// journalOp is one journal operation: its flags, and what it returns (the
// data and a text summary).
type journalOp struct {
	usage string
	flags func(fs *flag.FlagSet) func(ctx context.Context, j *journal.Journal, set map[string]bool) (any, string, error)
}

var journalOps = map[string]journalOp{
	"now": {"[--text|--pretty]", func(fs *flag.FlagSet) func(context.Context, *journal.Journal, map[string]bool) (any, string, error) {
		return func(_ context.Context, j *journal.Journal, _ map[string]bool) (any, string, error) {
			n := j.Now()
			return n, fmt.Sprintf("local %s\nutc   %s\n", n.LocalRFC3339, n.UTCRFC3339), nil
		}
	}},
	"keywords list": {"--namespace U/P [--text|--pretty]", func(fs *flag.FlagSet) func(context.Context, *journal.Journal, map[string]bool) (any, string, error) {
		ns := fs.String("namespace", "", "{userId}/{projectId}")
		return func(ctx context.Context, j *journal.Journal, _ map[string]bool) (any, string, error) {
			kl, err := j.KeywordsList(ctx, *ns)
			return kl, fmt.Sprintf("%s: %d keywords\n%s\n", kl.Namespace, kl.Total, strings.Join(kl.Keywords, ", ")), err
		}
	}},
	"keywords list-global": {"[--text|--pretty]", func(fs *flag.FlagSet) func(context.Context, *journal.Journal, map[string]bool) (any, string, error) {
		return func(ctx context.Context, j *journal.Journal, _ map[string]bool) (any, string, error) {
			g, err := j.KeywordsListGlobal(ctx)
			var sb strings.Builder
			fmt.Fprintf(&sb, "%d keywords in %d namespaces\n", g.Total, g.ScannedNamespaces)
			for _, k := range g.Keywords {
				fmt.Fprintf(&sb, "%s (%d items, %d namespaces)\n", k.Keyword, k.Items, k.Namespaces)
			}
			return g, sb.String(), err
		}
	}},
	"remember": {"--namespace U/P --keyword K... --slice S [--diary D] [flags]", journalRemember},
	"recall":   {"--namespace U/P [--keyword K...] [--start T] [--end T] [--query Q] [flags]", journalRecall},
}

func journalRemember(fs *flag.FlagSet) func(context.Context, *journal.Journal, map[string]bool) (any, string, error) {
	ns := fs.String("namespace", "", "{userId}/{projectId}")
	var kws stringList
	fs.Var(&kws, "keyword", "a keyword (repeat for more)")
	slice := fs.String("slice", "", "the important content")
	sliceFile := fs.String("slice-file", "", "read the slice from a file")
	diary := fs.String("diary", "", "context, reasons, consequences")
	diaryFile := fs.String("diary-file", "", "read the diary from a file")
	occurred := fs.String("occurred-at", "", "RFC 3339 or YYYY-MM-DD")
	importance := fs.Int("importance", 0, "1–5")
	source := fs.String("source", "", "where it came from")
	return func(ctx context.Context, j *journal.Journal, set map[string]bool) (any, string, error) {
		in := journal.RememberInput{Namespace: *ns, Keywords: kws, Slice: *slice, Diary: *diary}
		for _, f := range []struct {
			path string
			to   *string
		}{{*sliceFile, &in.Slice}, {*diaryFile, &in.Diary}} {
			if f.path != "" {
				data, err := os.ReadFile(f.path)
				if err != nil {
					return nil, "", err
				}
				*f.to = string(data)
			}
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
			return nil, "", err
		}
		return r, fmt.Sprintf("remembered %s in %s (%s)\n", r.ID, r.Path, strings.Join(r.Keywords, ", ")), nil
	}
}

func journalRecall(fs *flag.FlagSet) func(context.Context, *journal.Journal, map[string]bool) (any, string, error) {
	ns := fs.String("namespace", "", "{userId}/{projectId}")
	var kws stringList
	fs.Var(&kws, "keyword", "a keyword (repeat for more)")
	start := fs.String("start", "", "from (RFC 3339 or YYYY-MM-DD)")
	end := fs.String("end", "", "to (RFC 3339 or YYYY-MM-DD)")
	query := fs.String("query", "", "text, with time>=…, time<=…, time=a..b")
	limit := fs.Int("limit", 0, "at most this many (default 20, at most 100)")
	diaries := fs.Bool("include-diary", false, "include diaries")
	return func(ctx context.Context, j *journal.Journal, set map[string]bool) (any, string, error) {
		// Only the flags given are sent: an absent one is absent, as in the contract.
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
			return nil, "", err
		}
		return r, r.Text(), nil
	}
}

func runJournal(ctx context.Context, e *env, args []string) error {
	// The operation is its leading words ("keywords list"); flags may come
	// anywhere after it.
	name, rest := "", args
	for _, n := range []string{"keywords list-global", "keywords list", "now", "remember", "recall"} {
		w := strings.Fields(n)
		if len(args) >= len(w) && strings.Join(args[:len(w)], " ") == n {
			name, rest = n, args[len(w):]
			break
		}
	}
	op, ok := journalOps[name]
	if !ok {
		fs := newFlags(e, "journal", "now | keywords list | keywords list-global | remember | recall [flags]", journalAbout)
		if _, err := e.parse(fs, args); err != nil {
			return err
		}
		fs.Usage()
		return usageError{fmt.Sprintf("unknown journal operation %q: now, keywords list, keywords list-global, remember or recall", strings.Join(args, " "))}
	}
	fs := newFlags(e, "journal "+name, op.usage, journalAbout)
	run := op.flags(fs)
	text := fs.Bool("text", false, "print a summary instead of JSON")
	pretty := fs.Bool("pretty", false, "indent the JSON")
	pos, err := e.parse(fs, rest)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("journal %s takes no arguments (got %q); use its flags", name, strings.Join(pos, " "))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	out, summary, err := run(ctx, journal.New(ix, a.store, b.Project), set)
	if err != nil {
		return err
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
