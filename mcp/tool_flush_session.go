package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// The flush_session tool.

var toolFlushSession = toolDef{
	name: "flush_session", title: "Flush session", readOnly: false,
	desc: flushDesc, schema: flushSchema,
	input: flushInput{}, call: (*Server).flushSession,
}

const flushDesc = `Write a technical decision, verified fix, ADR or milestone into the vault as a new note, following the vault's folder conventions (category decision → decisions/ with the next number, log → logs/, concept/card → concepts/, skill → skills/, or lore.yaml folders:), with generated frontmatter and [[wikilinks]] to related notes. supersedes marks the old notes status: superseded in the same Draft. The note is a Draft that a person reviews and merges; call it after a task settles something the next task must know.`

const flushSchema = `{
  "type": "object",
  "properties": {
    "title": {"type": "string", "minLength": 1, "description": "Title of the decision or log note."},
    "content": {"type": "string", "minLength": 1, "description": "Detailed Markdown content."},
    "summary": {"type": "string", "description": "One-line summary; becomes the note's description."},
    "category": {"type": "string", "description": "decision, log, concept (alias card), skill, or a custom folder name (default: log)."},
    "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."},
    "related_notes": {"type": "array", "items": {"type": "string"}, "description": "Related notes, linked with [[wikilinks]]."},
    "supersedes": {
      "description": "Notes (id, path or title) this note supersedes; they are marked status: superseded.",
      "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    }
  },
  "required": ["title", "content"]
}`

// stringOrList is a string or an array of strings (flush_session's supersedes).
type stringOrList []string

func (l *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return vault.Errorf(vault.CodeInvalid, "supersedes must be a string or an array of strings")
	}
	*l = many
	return nil
}

type flushInput struct {
	Title        string       `json:"title"`
	Content      string       `json:"content"`
	Summary      *string      `json:"summary,omitempty"`
	Category     *string      `json:"category,omitempty"`
	Tags         []string     `json:"tags,omitempty"`
	RelatedNotes []string     `json:"related_notes,omitempty"`
	Supersedes   stringOrList `json:"supersedes,omitempty"`
}

func (s *Server) flushSession(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[flushInput](raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Title) == "" || strings.TrimSpace(in.Content) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "title and content are required")
	}
	category := "log"
	if in.Category != nil && *in.Category != "" {
		category = *in.Category
	}
	folder, err := s.categoryFolder(ctx, category)
	if err != nil {
		return nil, err
	}
	// Resolve what it supersedes to resource ids.
	var superseded []string
	for _, ref := range in.Supersedes {
		id, err := s.resolveNote(ctx, ref)
		if err != nil {
			return nil, err
		}
		superseded = append(superseded, id)
	}
	p, err := s.freePath(ctx, folder, in.Title, category)
	if err != nil {
		return nil, err
	}
	front := map[string]any{"title": in.Title, "category": category, "status": "active", "created": s.now().UTC().Format("2006-01-02")}
	keys := []string{"title", "description", "category", "tags", "status", "supersedes", "created"}
	if in.Summary != nil && *in.Summary != "" {
		front["description"] = *in.Summary
	}
	if len(in.Tags) > 0 {
		front["tags"] = in.Tags
	}
	if len(superseded) > 0 {
		front["supersedes"] = superseded
	}
	body := markdown.FrontmatterBlock(front, keys...) + "# " + in.Title + "\n\n" + strings.TrimSpace(in.Content) + "\n"
	if len(in.RelatedNotes) > 0 {
		body += "\n## Related\n\n"
		for _, r := range in.RelatedNotes {
			body += "- [[" + strings.Trim(r, "[] ") + "]]\n"
		}
	}
	res, err := s.store.CreateSuperseding(ctx, s.project, vault.CreateOp{Path: p, Body: body, Description: in.Summary}, superseded)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("✓ Flushed to %s as Draft %s (resource %s)", p, res.DraftID, res.ResourceID)
	if len(superseded) > 0 {
		text += "; marks superseded: " + strings.Join(superseded, ", ")
	}
	text += ". A person reviews and merges it (lore drafts)."
	return textResult{Text: text + "\n", Data: map[string]any{"path": p, "superseded": orNone(superseded), "result": res}}, nil
}

// resolveNote finds the note a supersedes entry names — an id, a path, a
// title, an alias or a file's base name, with or without [[ ]] — as a
// wikilink resolves (vault/linknames.go), in the project's memory.
func (s *Server) resolveNote(ctx context.Context, ref string) (string, error) {
	id, _, err := s.ix.ResolveLink(ctx, ref, s.project, "")
	if vault.ErrorCode(err) == vault.CodeNotFound {
		return "", vault.Errorf(vault.CodeNotFound, "supersedes: no note %q (by id, path, title, alias or file name) in project %s's memory", ref, s.project)
	}
	return id, err
}

// categoryFolder is the folder a category's notes go to: lore.yaml's
// folders: when it names one; else the first of the category's usual folders
// (vault.CategoryFolders) that already holds notes; else the default.
func (s *Server) categoryFolder(ctx context.Context, category string) (string, error) {
	cfg := s.ix.Vault().Config
	folder := cfg.Folder(category)
	if _, set := cfg.Folders[strings.ToLower(strings.TrimSpace(category))]; !set {
		for _, f := range vault.CategoryFolders[strings.ToLower(strings.TrimSpace(category))] {
			if rs, err := s.ix.Under(ctx, f+"/", s.project); err == nil && len(rs) > 0 {
				folder = f
				break
			}
		}
	}
	if _, err := vault.CleanPath(folder + "/x.md"); err != nil {
		return "", vault.Errorf(vault.CodeInvalid, "category %q does not make a folder name", category)
	}
	return folder, nil
}

// freePath names a new note in folder in the style of the notes already
// there (vault.NoteName).
func (s *Server) freePath(ctx context.Context, folder, title, category string) (string, error) {
	existing, err := s.ix.Under(ctx, folder+"/", s.project)
	if err != nil {
		return "", err
	}
	var names []string
	for _, r := range existing {
		if path.Dir(r.Path) == folder {
			names = append(names, r.Path)
		}
	}
	return vault.NoteName(folder, names, title, category, s.now()), nil
}
