package testvault

import (
	"context"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// Drafts is a vault.OverlaySource with a fixed list of Drafts, for the
// tests of what the index and retrieval make of Drafts (package drafts
// makes them from git branches, and its own tests use those). Overlay
// answers as package drafts does: a Draft whose head the caller has comes
// back Unchanged, without its files.
type Drafts []vault.OverlayDraft

// OverlaySignature names each Draft by id and head.
func (d Drafts) OverlaySignature(context.Context) (string, error) {
	var sb strings.Builder
	for _, x := range d {
		sb.WriteString(x.ID + "@" + x.Head + ";")
	}
	return sb.String(), nil
}

// Overlay returns every Draft, those at the head in have Unchanged.
func (d Drafts) Overlay(_ context.Context, have map[string]string) ([]vault.OverlayDraft, error) {
	var out []vault.OverlayDraft
	for _, x := range d {
		if have[x.ID] == x.Head {
			x = vault.OverlayDraft{ID: x.ID, Project: x.Project, Head: x.Head, Unchanged: true}
		}
		out = append(out, x)
	}
	return out, nil
}
