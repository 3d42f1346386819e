package guard

import (
	"context"
	"path/filepath"

	"github.com/lore-memory/lore/vault"
)

// Sources reads the rule-bearing resources of project's published memory
// as the org ref has them committed (Committed), with the notes that say
// where that differs from the vault's work tree.
func Sources(ctx context.Context, ix vault.RuleReader, project string) ([]Source, []string, error) {
	src, err := ix.RuleSources(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	return Committed(ctx, ix.Vault(), src)
}

// LoadoutFrom builds the loadout of project from the index: the rule
// sources, the project's root note (projects/<name>/README.md, index.md or
// <name>.md, else the vault's guidelines file) and its five most recent log
// notes (the log and decision folders of lore.yaml, or tier L2).
func LoadoutFrom(ctx context.Context, ix vault.RuleReader, project string, changed []string) (string, error) {
	src, _, err := Sources(ctx, ix, project)
	if err != nil {
		return "", err
	}
	v := ix.Vault()
	var extra Extra
	var roots []string
	if project != "" {
		base := "projects/" + project + "/"
		roots = append(roots, base+"README.md", base+"index.md", base+project+".md", "projects/"+project+".md")
	}
	for _, p := range append(roots, v.Config.Guidelines) {
		if _, ok := v.StatFile(filepath.FromSlash(p)); ok {
			extra.Root = p
			break
		}
	}
	notes, err := ix.RecentNotes(ctx, project, []string{v.Config.Folder("log"), v.Config.Folder("decision")}, 5)
	if err != nil {
		return "", err
	}
	for _, n := range notes {
		d := n.Description
		if d == "" {
			d = n.Title
		}
		extra.Recent = append(extra.Recent, Recent{Date: n.Date.Format("2006-01-02"), Path: n.Path, Description: d})
	}
	return LoadoutWith(src, project, changed, extra), nil
}
