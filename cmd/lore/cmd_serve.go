package main

import (
	"context"
	"fmt"

	"github.com/lore-memory/lore/activity"
	"github.com/lore-memory/lore/stale"
	"github.com/lore-memory/lore/web"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "[--port N]", `Serve the local web UI on 127.0.0.1: Activity (what agents asked of memory
and what they got, from their session logs), each retrieval run's process,
"Report inaccurate" evaluation cases, the Drafts review page for the bound
vault, and the notes that may be stale (their citations of the bound
workspace's code no longer hold). Open the printed URL: it carries the token every request needs.`)
	port := fs.Int("port", 0, "port on 127.0.0.1 (0: any free one)")
	homes := homeFlags(fs, e)
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	a, err := e.open(ctx, withModels)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	runs := activity.NewIndexRuns(openRuns)
	runs.Add(ix)
	defer runs.Close()
	srv := web.New(activity.New(homes, e.workspaces()), runs, ix, a.store, a.store.Remote(), b.Project)
	if code := codeChecker(ctx, e.getenv, b.Workspace, ix.Vault()); code != nil {
		srv.UseStale(func(ctx context.Context, project string) (stale.Report, error) {
			defer flushCheckers()
			return staleReport(ctx, ix, project, code)
		}, a.store)
	}
	l, url, err := srv.Listen(*port)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "lore serve: %s\n", url)
	if f, ok := e.stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	return srv.Serve(ctx, l)
}
