package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lore-memory/lore/drafts"
	"github.com/lore-memory/lore/internal/strictjson"
	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func runStore(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "store", "create|update|rename|delete|discard [flags] | --op JSON|- [--json]", `Propose a change to memory as a Draft (a commit on the branch
drafts/<project>/<draft_id>); the vault's files are not touched. Prints what
was proposed; --json prints the memory tool's result (local_operation_id,
draft_id, queued, sync_status, …).

Examples:
  lore store create --path howto/release.md --body-file notes.md --description "How to release"
  lore store update --id mem_… --expected-hash sha256:… --old "old text" --new "new text"
  lore store rename --id mem_… --new-path howto/releasing.md
  lore store delete --id mem_…
  lore store discard --id drf_…
  lore store --op '{"update":{"id":"mem_…","expected_hash":"sha256:…","replacements":[{"old_text":"a","new_text":"b"}]}}' --json`)
	f := storeFlagsOf(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	op, err := f.op(e, fs, pos)
	if err != nil {
		return err
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	b := a.b
	res, err := a.store.Apply(ctx, b.Project, op)
	if err != nil {
		return err
	}
	if *f.asJSON {
		return printJSON(e.stdout, res)
	}
	what := res.Operation + " " + res.Path
	switch {
	case res.Operation == "discard":
		fmt.Fprintf(e.stdout, "discarded Draft %s (%s)\n", res.DraftID, orDash(res.Path))
	default:
		fmt.Fprintf(e.stdout, "proposed %s as Draft %s (project %s); review it with: lore drafts diff %s\n", what, res.DraftID, b.Project, res.DraftID)
	}
	sync := res.SyncStatus
	if sync == "queued" && !a.store.Remote().Exists(ctx) {
		sync = "local (no remote)" // as lore drafts list says it; --json keeps the contract's "queued"
	}
	fmt.Fprintf(e.stdout, "resource %s · operation %s · sync %s\n", orDash(res.ResourceID), res.LocalOperationID, sync)
	return nil
}

// storeFlags are lore store's flags.
type storeFlags struct {
	jsonArg, path, body, bodyFile, desc, id, hash, newPath *string
	asJSON                                                 *bool
	olds, news                                             stringList
}

func storeFlagsOf(fs *flag.FlagSet) *storeFlags {
	f := &storeFlags{
		jsonArg:  fs.String("op", "", "the operation as the store object of the memory tool (\"-\" reads stdin)"),
		asJSON:   fs.Bool("json", false, "print the result as JSON, as the memory tool returns it"),
		path:     fs.String("path", "", "create: the new resource's path"),
		body:     fs.String("body", "", "create: the Markdown body"),
		bodyFile: fs.String("body-file", "", "create: read the body from this file (\"-\": stdin)"),
		desc:     fs.String("description", "", "a one-line description of the resource"),
		id:       fs.String("id", "", "update, rename, delete, discard: the resource id or path (discard: or the draft id)"),
		hash:     fs.String("expected-hash", "", "update: the content_hash load returned"),
	}
	fs.Var(&f.olds, "old", "update: exact text to replace (repeat with --new)")
	fs.Var(&f.news, "new", "update: its replacement (repeat with --old)")
	f.newPath = fs.String("new-path", "", "rename: the new path")
	return f
}

// op is the operation the flags and the positional operation name describe.
func (f *storeFlags) op(e *env, fs *flag.FlagSet, pos []string) (vault.Op, error) {
	var op vault.Op
	var d *string // the description, only when given (even empty)
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "description" {
			d = f.desc
		}
	})
	switch {
	case *f.jsonArg != "":
		data := []byte(*f.jsonArg)
		if *f.jsonArg == "-" {
			var err error
			if data, err = io.ReadAll(io.LimitReader(e.stdin, 4*drafts.MaxBody)); err != nil {
				return op, err
			}
		}
		return op, strictjson.Decode(data, &op)
	case len(pos) != 1:
		fs.Usage()
		return op, usageError{"store needs one operation: create, update, rename, delete or discard (or --op JSON)"}
	}
	switch pos[0] {
	case "create":
		b, err := f.bodyText(e)
		if err != nil {
			return op, err
		}
		op.Create = &vault.CreateOp{Path: *f.path, Body: b, Description: d}
	case "update":
		if len(f.olds) != len(f.news) {
			return op, usageError{"give --old and --new in pairs"}
		}
		u := &vault.UpdateOp{ID: *f.id, ExpectedHash: *f.hash, Description: d, Replacements: []vault.Replacement{}}
		for i := range f.olds {
			u.Replacements = append(u.Replacements, vault.Replacement{OldText: f.olds[i], NewText: f.news[i]})
		}
		op.Update = u
	case "rename":
		op.Rename = &vault.RenameOp{ID: *f.id, NewPath: *f.newPath, Description: d}
	case "delete":
		op.Delete = &vault.DeleteOp{ID: *f.id, Description: d}
	case "discard":
		op.Discard = &vault.DiscardOp{ID: *f.id}
	default:
		return op, usageError{fmt.Sprintf("unknown store operation %q", pos[0])}
	}
	return op, nil
}

// bodyText is create's body: --body, or the file --body-file names ("-":
// stdin).
func (f *storeFlags) bodyText(e *env) (string, error) {
	if *f.bodyFile == "" {
		return *f.body, nil
	}
	var data []byte
	var err error
	if *f.bodyFile == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, 4*drafts.MaxBody))
	} else {
		data, err = os.ReadFile(*f.bodyFile)
	}
	return string(data), err
}

// draftsCommands are the subcommands of lore drafts, each with its own
// flags.
var draftsCommands = map[string]func(ctx context.Context, e *env, args []string) error{
	"list": draftsList, "show": draftsShow, "diff": draftsDiff, "merge": draftsMerge, "discard": draftsDiscard,
}

func runDrafts(ctx context.Context, e *env, args []string) error {
	// The subcommand is the first argument that names one; flags may come
	// before it (lore drafts --project api list) and belong to it.
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--vault", "-vault", "--project", "-project":
			i++ // its value is not a subcommand
		case "--":
			i = len(args)
		default:
			if run, ok := draftsCommands[a]; ok {
				return run(ctx, e, append(append([]string{}, args[:i]...), args[i+1:]...))
			}
		}
	}
	fs := newFlags(e, "drafts", "list|show|diff|merge|discard [ID...] [flags]", `Review Drafts: list them (this project's with a binding's project, or
--project; every project's otherwise), show one, diff it against the org
ref, merge (advances the org ref; all or nothing) or discard. Each
subcommand has its own flags: lore drafts list -h.

Examples:
  lore drafts list
  lore drafts diff drf_01J…
  lore drafts merge drf_01J… drf_01K…`)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unknown drafts subcommand %q: list, show, diff, merge or discard", pos[0])}
	}
	return draftsList(ctx, e, args) // lore drafts alone lists them, as git branch does
}

// draftIDs parses a subcommand that takes Draft ids and opens the vault;
// the caller closes it.
func draftIDs(ctx context.Context, e *env, fs *flag.FlagSet, args []string) ([]string, *app, error) {
	ids, err := e.parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, usageError{fmt.Sprintf("%s needs at least one draft id", fs.Name())}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return nil, nil, err
	}
	return ids, a, nil
}

func draftsList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drafts list", "[--all] [--json]", `List open Drafts: the bound project's, or every project's without one.`)
	all := fs.Bool("all", false, "include Drafts already merged by git")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"drafts list takes no arguments"}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	st := a.store
	ds, err := st.List(ctx, a.b.Project, *all)
	if err != nil {
		return err
	}
	if *asJSON {
		if ds == nil {
			ds = []vault.Draft{}
		}
		return printJSON(e.stdout, map[string]any{"drafts": ds})
	}
	if len(ds) == 0 {
		fmt.Fprintln(e.stdout, "no open Drafts")
		return nil
	}
	hasRemote := st.Remote().Exists(ctx)
	here := drafts.HostName()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DRAFT\tPROJECT\tLAST OP\tPATH\tOPS\tAUTHOR\tFROM\tSYNC\tAGE")
	for _, d := range ds {
		last := ""
		if n := len(d.Operations); n > 0 {
			last = d.Operations[n-1].Op
		}
		p := pathsColumn(d.Paths)
		status := st.Remote().Status(ctx, d.ID)
		if status == "queued" && !hasRemote {
			status = "local (no remote)"
		}
		if d.Merged {
			status = "merged"
		}
		// "(here)" is what this machine logged, not what a commit claims.
		from := d.Host
		switch {
		case d.MadeHere:
			from = orDash(from) + " (here)"
		case from == "":
			from = "-"
		case from == here:
			from += " (claimed; not made here)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", vault.ShortID(d.ID, ds), d.Project, last, p, len(d.Operations), orDash(d.Author), from, status, age(time.Since(d.Updated)))
	}
	return tw.Flush()
}

func draftsShow(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drafts show", "ID... [--json]", `Show Drafts: project, branch, resource, changed paths, sync status and operations.`)
	asJSON := fs.Bool("json", false, "print JSON")
	ids, a, err := draftIDs(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer a.Close()
	st := a.store
	for _, id := range ids {
		d, err := st.Find(ctx, id)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := printJSON(e.stdout, d); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "draft_id: %s\nproject: %s\nbranch: %s\nresource_id: %s\npath: %s\nchanged: %s\nsync_status: %s\n",
			d.ID, d.Project, strings.TrimPrefix(d.Branch, "refs/heads/"), d.ResourceID, d.Path, strings.Join(d.Paths, ", "), st.Remote().Status(ctx, d.ID))
		for _, o := range d.Operations {
			fmt.Fprintf(e.stdout, "  %s  %-7s %s  %s\n", o.At.Format("2006-01-02 15:04:05"), o.Op, o.Path, o.LocalOperationID)
		}
	}
	return nil
}

func draftsDiff(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drafts diff", "ID...", `Print each Draft's diff against the org ref, headed by the commit it shows
and the command that merges exactly that (lore drafts merge ID@HEAD). On a
terminal, control, escape and invisible characters are shown (^[, <U+200B>).`)
	ids, a, err := draftIDs(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer a.Close()
	for _, id := range ids {
		out, d, err := a.store.Diff(ctx, id)
		if err != nil {
			return err
		}
		printDiff(e, d, out)
	}
	return nil
}

// printDiff prints a Draft's diff under a line naming the head it shows;
// on a terminal its invisible characters are marked and it is coloured.
func printDiff(e *env, d vault.Draft, patch string) {
	head := shortHash(d.Head)
	fmt.Fprintf(e.stdout, "# Draft %s (project %s) at head %s; to merge what you see: lore drafts merge %s@%s\n", d.ID, d.Project, head, d.ID, head)
	if !isTerminal(e.stdout) {
		fmt.Fprint(e.stdout, patch)
	} else {
		for _, line := range strings.SplitAfter(patch, "\n") {
			e.paint(diffStyle(line), termtext.Mark(line))
		}
	}
	if patch != "" && !strings.HasSuffix(patch, "\n") {
		fmt.Fprintln(e.stdout)
	}
}

func draftsMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drafts merge", "ID@HEAD... | ID --head HEAD [--json]", `Merge Drafts into the org ref, all or nothing, and update the work tree.
Name each Draft with the head you reviewed (lore drafts diff prints it):
when the Draft moved after that, nothing is merged and lore says so. On a
terminal, a Draft named without a head is shown and merged only when you
answer y.

Examples:
  lore drafts merge drf_01JABCDEFG@0123456789ab
  lore drafts merge drf_01JABCDEFG --head 0123456789ab`)
	asJSON := fs.Bool("json", false, "print JSON")
	head := fs.String("head", "", "the head you reviewed, for one Draft")
	withEdits := fs.Bool("with-edits", false, "first record the vault's uncommitted edits as your own commit (they are listed); without it a merge waits while there are any")
	ids, a, err := draftIDs(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer a.Close()
	if *head != "" {
		if len(ids) != 1 || strings.Contains(ids[0], "@") {
			return usageError{"--head names the reviewed head of one Draft; for several, name each as ID@HEAD"}
		}
		ids[0] += "@" + *head
	}
	for i, id := range ids {
		if _, h := drafts.SplitReviewed(id); h != "" {
			continue
		}
		reviewed, err := confirmMerge(ctx, e, a.store, id)
		if err != nil {
			return err
		}
		ids[i] = reviewed
	}
	if *withEdits {
		commit, paths, err := a.store.CommitEdits(ctx)
		if err != nil {
			return err
		}
		if len(paths) > 0 {
			fmt.Fprintf(e.stdout, "recorded %d edit(s) as your commit %s: %s\n", len(paths), shortHash(commit), strings.Join(paths, ", "))
		}
	}
	res, err := a.store.Merge(ctx, ids)
	if err != nil {
		return err
	}
	// With a remote, the merge is published there at once: the org ref
	// pushed (a fast-forward only) and the Drafts' branches deleted.
	var rep drafts.SyncReport
	var syncErr error
	synced := len(res.Merged) > 0 && a.store.Remote().Exists(ctx)
	if synced {
		rep, syncErr = a.store.Remote().PublishSync(ctx)
	}
	if *asJSON {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "merged %d Draft(s) into %s (now %s); work tree: %s\n", len(res.Merged), strings.TrimPrefix(res.OrgRef, "refs/heads/"), shortHash(res.Commit), res.WorkTree)
	for _, id := range res.Skipped {
		fmt.Fprintf(e.stdout, "%s was already merged\n", id)
	}
	switch {
	case syncErr != nil:
		fmt.Fprintf(e.stdout, "not published to the remote yet (lore sync tries again): %v\n", syncErr)
	case synced:
		printSyncReport(e, rep)
	}
	return nil
}

// confirmMerge shows a Draft named without a reviewed head and asks the
// person at the terminal; it returns the Draft named with the head shown.
// Without a terminal it refuses: a merge names what was reviewed.
func confirmMerge(ctx context.Context, e *env, st *drafts.Store, id string) (string, error) {
	if _, err := st.Find(ctx, id); err != nil {
		return "", err
	}
	if !isTerminal(e.stdout) || !readerIsTerminal(e.stdin) {
		return "", usageError{fmt.Sprintf("merge %s: name the head you reviewed, as %s@HEAD (lore drafts diff %s prints it), so a Draft that moved after your review is not merged", id, id, id)}
	}
	patch, d, err := st.Diff(ctx, id)
	if err != nil {
		return "", err
	}
	printDiff(e, d, patch)
	fmt.Fprintf(e.stdout, "Merge Draft %s at head %s into %s? [y/N] ", d.ID, shortHash(d.Head), strings.TrimPrefix(st.OrgRef(), "refs/heads/"))
	answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return "", vault.Errorf(vault.CodeInvalid, "nothing was merged")
	}
	return d.ID + "@" + d.Head, nil
}

func draftsDiscard(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drafts discard", "ID...", `Discard Drafts (a draft id, or the id or path of the resource a Draft carries): delete their branches.`)
	ids, a, err := draftIDs(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer a.Close()
	discarded, err := a.store.Discard(ctx, ids)
	for _, id := range discarded {
		fmt.Fprintf(e.stdout, "discarded %s\n", id)
	}
	return err
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func runSync(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "sync", "[--merge] [--status] [--json]", `Share memory through the vault's git remote (origin, or remote: in
lore.yaml), with your own git credentials. Fetches the published memory and
every Draft branch: a teammate's Drafts appear in lore drafts list, the org
ref moves forward when it is behind (your uncommitted edits are kept; a
file they touch holds it back and is named), Drafts already merged (here,
by a teammate, or on the host: a merge commit, a squash or a rebase) are
retired, and the index is brought up to date. Then pushes Drafts, and the
org ref when it is ahead. When both sides published, nothing moves: --merge
joins them with a merge commit as you. Drafts that cannot be pushed stay in
the outbox, retrying with backoff; --status prints the outbox without
syncing.`)
	status := fs.Bool("status", false, "print each Draft's sync status and last error; do not sync")
	merge := fs.Bool("merge", false, "when both sides published, join them with a merge commit as you")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix := a.mem
	st := a.store
	var rep drafts.SyncReport
	if *status || !st.Remote().Exists(ctx) {
		// No remote is nothing to do, not a binding error: the Drafts stay
		// on this machine, and the line below says how to share them.
		rep.Outbox, err = st.Remote().Outbox(ctx)
		*status = true
	} else if rep, err = st.Remote().SyncWith(ctx, drafts.SyncOptions{Merge: *merge}); err == nil {
		_, err = ix.Index.Refresh(ctx, nil) // what came in is searchable at once
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := printJSON(e.stdout, rep); err != nil || !rep.MergedNothing {
			return err
		}
		return errMergedNothing(rep)
	}
	if !*status {
		printSyncReport(e, rep)
	}
	if rep.MergedNothing {
		return errMergedNothing(rep)
	}
	if !st.Remote().Exists(ctx) {
		fmt.Fprintf(e.stdout, "no remote %q: Drafts stay on this machine (that is fine for one person); add one with `git remote add %s URL` to share them\n", ix.Vault().Config.Remote, ix.Vault().Config.Remote)
	}
	if len(rep.Outbox) == 0 {
		fmt.Fprintln(e.stdout, "nothing is waiting to sync")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DRAFT\tPROJECT\tSTATUS\tATTEMPTS\tLAST ERROR")
	for _, o := range rep.Outbox {
		s := o.Status
		if o.DeleteOnly {
			s += " (delete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", o.DraftID, o.Project, s, o.Attempts, o.LastError)
	}
	return tw.Flush()
}

// errMergedNothing is sync --merge's failure: both sides published and
// nothing was merged (the report's note said why and what to do).
func errMergedNothing(rep drafts.SyncReport) error {
	return vault.Errorf(vault.CodeConflict, "lore sync --merge merged nothing: %s", rep.OrgNote)
}

// pathsColumn is a Draft's PATH as lore drafts list shows it: the paths
// its commits change (not the path its trailers name), the first two and
// how many more.
func pathsColumn(paths []string) string {
	switch {
	case len(paths) == 0:
		return "-"
	case len(paths) <= 2:
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s, %s +%d", paths[0], paths[1], len(paths)-2)
}

// age says how long ago, as a person reads it in a list (5m, 3h, 2d).
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// printSyncReport says what a sync did, what came in first.
func printSyncReport(e *env, rep drafts.SyncReport) {
	if len(rep.CameIn) > 0 {
		fmt.Fprintf(e.stdout, "published memory %s: %d notes changed\n", strings.TrimPrefix(rep.OrgNote, "came in "), len(rep.CameIn))
		for _, c := range rep.CameIn {
			fmt.Fprintf(e.stdout, "  %s (%s)\n", c.Path, strings.Join(c.Authors, ", "))
		}
	} else if rep.OrgNote != "" && !rep.MergedNothing { // the error says it
		fmt.Fprintf(e.stdout, "published memory: %s\n", rep.OrgNote)
	}
	for _, l := range []struct {
		what string
		ids  []string
	}{{"teammates' Drafts new here", rep.Fetched}, {"Drafts with new commits from the remote", rep.Updated},
		{"Drafts joined from two machines", rep.Combined}, {"Drafts retired (published, or closed elsewhere)", rep.Retired}} {
		if len(l.ids) > 0 {
			fmt.Fprintf(e.stdout, "%s: %s\n", l.what, strings.Join(l.ids, ", "))
		}
	}
	for _, r := range rep.Refused {
		fmt.Fprintf(e.stdout, "not brought here: %s\n", r)
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(e.stdout, "kept, though the org ref holds their files as they are (made here: discard or merge them yourself): %s\n", strings.Join(rep.Kept, ", "))
	}
	if len(rep.Retired) > 0 {
		fmt.Fprintf(e.stdout, "each retired Draft's head is kept as %s<id> (git branch drafts/<project>/<id> %s<id> brings one back)\n", drafts.RetiredPrefix, drafts.RetiredPrefix)
	}
	fmt.Fprintf(e.stdout, "remote %s: pushed %d, deleted %d, failed %d; org ref: %s\n", rep.Remote, len(rep.Pushed), len(rep.Deleted), len(rep.Failed), rep.Org)
	if rep.Error != "" {
		fmt.Fprintf(e.stdout, "will retry: %s\n", rep.Error)
	}
}
