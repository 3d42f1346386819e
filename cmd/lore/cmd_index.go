package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lore-memory/lore/embed"
	"github.com/lore-memory/lore/fts"
)

func runIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "index", "[--rebuild] [--no-embed]", `Bring the index up to date with the vault. Searches do this by themselves
before every query; run it after a large change to pay the cost up front.
--rebuild throws the index away and builds it again from the vault.

Example: lore index --rebuild`)
	rebuild := fs.Bool("rebuild", false, "rebuild the index from nothing")
	noEmbed := fs.Bool("no-embed", false, "the lexical index only; leave embedding to a later lore index or lore mcp")
	if pos, err := e.parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usageError{"index takes no arguments"}
	}
	a, err := e.open(ctx, withModels)
	if err != nil {
		return err
	}
	defer a.Close()
	ix := a.mem
	start := time.Now()
	progress := progressPrinter(e.stderr, "indexing")
	var st fts.RefreshStats
	if *rebuild {
		st, err = ix.Index.Rebuild(ctx, progress)
	} else {
		st, err = ix.Index.Refresh(ctx, progress)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d memory files: %d added, %d updated, %d removed, %d skipped\n",
		st.Files, st.Added, st.Updated, st.Removed, st.Skipped)
	// Say, where the person is looking, which files lore could not read
	// (whole, or their frontmatter): one line each.
	if all, err := ix.Index.Stats(ctx); err == nil && len(all.Problems) > 0 {
		fmt.Fprintf(e.stdout, "%d file(s) could not be read as lore reads notes:\n", len(all.Problems))
		for _, p := range all.Problems {
			fmt.Fprintf(e.stdout, "  %s: %s\n", p.Path, p.Message)
		}
	}
	if ix.Index.Vectors().Embedder() != nil && !*noEmbed {
		n, err := ix.Index.Vectors().Embed(ctx, progressPrinter(e.stderr, "embedding"))
		switch {
		case errors.Is(err, embed.ErrNotReady):
			fmt.Fprintf(e.stdout, "vectors: %v; search is lexical until then\n", err)
		case err != nil:
			return fmt.Errorf("embedding (the lexical index is complete): %w", err)
		default:
			fmt.Fprintf(e.stdout, "vectors: %d sections embedded with %s\n", n, ix.Index.Vectors().Embedder().Name())
		}
	}
	fmt.Fprintf(e.stderr, "took %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}
