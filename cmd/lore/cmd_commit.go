package main

import (
	"context"
	"fmt"
)

func runCommit(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "commit", "", `Record your uncommitted edits to notes (and lore.yaml, the guidelines file)
as your own commit on the org ref, authored as git's configured you. lore does
this by itself before it merges Drafts; run it when you want your edits
recorded now. Nothing else you staged is committed. With commit_edits: false
in lore.yaml (for people who commit themselves) it does nothing.

Example: lore commit`)
	if pos, err := e.parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError{"commit takes no arguments"}
	}
	a, err := e.open(ctx, 0)
	if err != nil {
		return err
	}
	defer a.Close()
	ix := a.mem
	if !ix.Vault().Config.CommitsEdits() {
		fmt.Fprintln(e.stdout, "commit_edits is false in lore.yaml: you commit your edits yourself; nothing done")
		return nil
	}
	commit, paths, err := a.store.CommitEdits(ctx)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		fmt.Fprintln(e.stdout, "nothing to record: every note is as the org ref holds it (or the work tree is not on the org branch)")
		return nil
	}
	fmt.Fprintf(e.stdout, "recorded %d edited file(s) as commit %s:\n", len(paths), commit[:12])
	for _, p := range paths {
		fmt.Fprintln(e.stdout, "  "+p)
	}
	return nil
}
