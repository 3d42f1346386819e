package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lore-memory/lore/vault"
)

func runLoad(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "load", "ID|PATH... [--json]", `Print whole resources by resource id or exact vault path, with their
content_hash (the hash an update must name). A missing target is the error
memory_resource_not_found and exit status 3.

Example: lore load decisions/0002-sqlite-index.md`)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return usageError{"load needs at least one id or path"}
	}
	a, err := e.open(ctx, forQuery)
	if err != nil {
		return err
	}
	defer a.Close()
	ix, b := a.mem, a.b
	res, err := ix.Load(ctx, pos, b.Project)
	if err != nil {
		return err
	}
	if *asJSON {
		type withChanged struct {
			vault.Loaded
			Changed bool `json:"changed"`
		}
		out := make([]withChanged, len(res))
		for i, r := range res {
			out[i] = withChanged{r, true}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"resources": out})
	}
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(e.stdout, strings.Repeat("─", 40))
		}
		fmt.Fprintf(e.stdout, "resource_id: %s\npath: %s\ntitle: %s\n", r.ResourceID, r.Path, r.Title)
		if r.Description != "" {
			fmt.Fprintf(e.stdout, "description: %s\n", r.Description)
		}
		fmt.Fprintf(e.stdout, "content_hash: %s\n\n%s", r.ContentHash, r.Content)
		if !strings.HasSuffix(r.Content, "\n") {
			fmt.Fprintln(e.stdout)
		}
	}
	return nil
}
