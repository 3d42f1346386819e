package mcp

import (
	"context"
	"path/filepath"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/vault"
)

// The guard_check tool.

var toolGuardCheck = toolDef{
	name: "guard_check", title: "Guard check", readOnly: true,
	desc: guardDesc, schema: guardSchema,
	input: guardInput{}, call: (*Server).guardCheck,
}

const guardDesc = `Audit code changes against the rules written in the vault's decisions (deny/require patterns with path globs), deterministically in milliseconds. Call it before committing and after implementing a feature. Checks the given unified diff, else whole files, else the changes since branch, else the working tree's uncommitted changes in repo_path. Reports each violation with rule, file:line, text, the fix and the note that holds the rule; ok is false when an error rule (with strict, any rule) is violated.`

const guardSchema = `{
  "type": "object",
  "properties": {
    "diff": {"type": "string", "description": "Optional unified diff text to audit. If omitted, the working tree changes of repo_path are inspected."},
    "project_name": {"type": "string", "description": "Optional; must be the bound project."},
    "repo_path": {"type": "string", "description": "Optional path to the git repository to audit (default: the server's working directory)."},
    "branch": {"type": "string", "description": "Optional base branch/revision: audit HEAD's changes since it."},
    "strict": {"type": "boolean", "description": "Treat warnings and broken rules as blocking."},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Optional file paths to audit whole instead of a diff."}
  }
}`

type guardInput struct {
	Diff        *string  `json:"diff,omitempty"`
	ProjectName *string  `json:"project_name,omitempty"`
	RepoPath    *string  `json:"repo_path,omitempty"`
	Branch      *string  `json:"branch,omitempty"`
	Strict      *bool    `json:"strict,omitempty"`
	Files       []string `json:"files,omitempty"`
}

type guardResult struct{ guard.Report }

func (g guardResult) AgentText() string { return g.FormatADR() }

func (s *Server) guardCheck(ctx context.Context, raw []byte) (any, error) {
	in, err := decodeOpen[guardInput](raw)
	if err != nil {
		return nil, err
	}
	if err := s.checkProjectName(in.ProjectName); err != nil {
		return nil, err
	}
	src, err := s.sources(ctx)
	if err != nil {
		return nil, err
	}
	rs := guard.Compile(src, s.project)
	gin := guard.Input{Files: in.Files, Branch: deref(in.Branch), WorkTree: true}
	if in.Diff != nil {
		if len(*in.Diff) > guard.MaxFileBytes {
			return nil, vault.Errorf(vault.CodeInvalid, "diff is %d bytes; the limit is %d MiB", len(*in.Diff), guard.MaxFileBytes>>20)
		}
		gin.Diff = []byte(*in.Diff)
	}
	for i, f := range in.Files {
		if filepath.IsAbs(f) {
			return nil, vault.Errorf(vault.CodeInvalid, "files[%d] %q is absolute; give paths relative to the repository", i, f)
		}
	}
	dir, err := s.repoDir(ctx, in.RepoPath)
	if err != nil {
		return nil, err
	}
	diffs, content, done, err := guard.Changes(ctx, dir, gin)
	defer done()
	if err != nil {
		return nil, err
	}
	return guardResult{rs.Check(diffs, content, in.Strict != nil && *in.Strict)}, nil
}
