package mcp

import (
	"context"
	"fmt"
	"os"

	"github.com/lore-memory/lore/offload"
	"github.com/lore-memory/lore/vault"
)

// The distill_session_skill tool.

var toolDistillSessionSkill = toolDef{
	name: "distill_session_skill", title: "Distill a skill", readOnly: false,
	desc: distillDesc, schema: distillSchema,
	input: distillInput{}, call: (*Server).distill,
}

const distillDesc = `Turn an execution trace, compiler error or debugging session (raw_trace, or an offloaded node_id) into a reusable troubleshooting skill, deterministically: the error signature, the commands in the order that led to the fix, and the final state. target default writes a vault note (a Draft for review); hermes and omp write that agent's SKILL.md. dry_run returns the preview without writing. Call it after a hard-won fix.`

const distillSchema = `{
  "type": "object",
  "properties": {
    "raw_trace": {"type": "string", "description": "Raw execution log, error stack trace, or terminal output."},
    "node_id": {"type": "string", "description": "An offloaded node id from offload_context (e.g. node_1a2b3c4d) instead of raw_trace."},
    "title": {"type": "string", "description": "Skill title (inferred from the error when omitted)."},
    "context_hint": {"type": "string", "description": "What happened, in a sentence or two."},
    "category": {"type": "string", "description": "Target category (default: skill)."},
    "tags": {"type": "array", "items": {"type": "string"}},
    "related_notes": {"type": "array", "items": {"type": "string"}},
    "dry_run": {"type": "boolean", "description": "Return the preview without writing anything."},
    "target": {"type": "string", "enum": ["default", "hermes", "omp"], "description": "default (vault note), hermes (Hermes Agent skill) or omp (Oh My Pi skill)."}
  }
}`

type distillInput struct {
	RawTrace     *string  `json:"raw_trace,omitempty"`
	NodeID       *string  `json:"node_id,omitempty"`
	Title        *string  `json:"title,omitempty"`
	ContextHint  *string  `json:"context_hint,omitempty"`
	Category     *string  `json:"category,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	RelatedNotes []string `json:"related_notes,omitempty"`
	DryRun       *bool    `json:"dry_run,omitempty"`
	Target       *string  `json:"target,omitempty"`
}

func (s *Server) distill(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[distillInput](raw)
	if err != nil {
		return nil, err
	}
	trace := deref(in.RawTrace)
	if in.NodeID != nil {
		if trace != "" {
			return nil, vault.Errorf(vault.CodeInvalid, "give raw_trace or node_id, not both")
		}
		t, err := s.off.Get(*in.NodeID)
		if err != nil {
			return nil, err
		}
		trace = t
	}
	category := "skill"
	if in.Category != nil && *in.Category != "" {
		category = *in.Category
	}
	sk, err := offload.Distill(trace, deref(in.Title), deref(in.ContextHint), category, in.Tags, in.RelatedNotes)
	if err != nil {
		return nil, err
	}
	target := "default"
	if in.Target != nil && *in.Target != "" {
		target = *in.Target
	}
	dry := in.DryRun != nil && *in.DryRun
	out := map[string]any{"skill": sk, "target": target, "dry_run": dry}
	switch target {
	case "default":
		return s.distillToVault(ctx, sk, category, dry, out)
	case "hermes", "omp":
		return s.distillToTool(sk, target, dry, out)
	}
	return nil, vault.Errorf(vault.CodeInvalid, "target %q is not default, hermes or omp", target)
}

// distillToVault proposes the skill as a note in the category's folder (a
// Draft), or previews it (dry).
func (s *Server) distillToVault(ctx context.Context, sk offload.Skill, category string, dry bool, out map[string]any) (any, error) {
	folder := s.ix.Vault().Config.Folder(category)
	p, err := s.freePath(ctx, folder, sk.Title, category)
	if err != nil {
		return nil, err
	}
	note := sk.Note()
	out["path"], out["content"] = p, note
	if dry {
		return textResult{Text: fmt.Sprintf("Preview (dry run, nothing written) of %s:\n\n%s", p, note), Data: out}, nil
	}
	res, err := s.store.Apply(ctx, s.project, vault.Op{Create: &vault.CreateOp{Path: p, Body: note, Description: &sk.Description}})
	if err != nil {
		return nil, err
	}
	out["result"] = res
	return textResult{Text: fmt.Sprintf("✓ Skill %q written to %s as Draft %s; a person reviews and merges it.\n", sk.Title, p, res.DraftID), Data: out}, nil
}

// distillToTool writes the skill where the agent tool target reads its
// skills (hermes, omp), or previews it (dry).
func (s *Server) distillToTool(sk offload.Skill, target string, dry bool, out map[string]any) (any, error) {
	p, err := sk.SkillPath(target, s.opt.Getenv)
	if err != nil {
		return nil, err
	}
	file := sk.SkillFile(target)
	out["path"], out["content"] = p, file
	if dry {
		return textResult{Text: fmt.Sprintf("Preview (dry run, nothing written) of %s:\n\n%s", p, file), Data: out}, nil
	}
	if have, err := os.ReadFile(p); err == nil && string(have) != file {
		return nil, vault.Errorf(vault.CodeInvalid, "%s exists already with other content; give another title", p)
	}
	if err := vault.WriteFileAtomic(p, []byte(file)); err != nil {
		return nil, err
	}
	return textResult{Text: fmt.Sprintf("✓ Skill %q written to %s (%s).\n", sk.Title, p, target), Data: out}, nil
}
