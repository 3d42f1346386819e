package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/internal/strictjson"
	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/vault"
)

// The tools: each lives in its own file (tool_<name>.go) with its
// description, input schema, input type and handler; profiles, below, is the
// one place they are registered, and the tests loop over it.

// toolDef is one MCP tool: what tools/list shows of it, the Go type its
// arguments decode into (the schema test holds the two together) and its
// handler.
type toolDef struct {
	name, title  string
	desc, schema string // GUIDE in desc is replaced by the vault's guideline file
	readOnly     bool
	input        any
	call         func(s *Server, ctx context.Context, raw []byte) (any, error)
}

// profiles are the tools each profile serves, in tools/list order.
var profiles = map[string][]*toolDef{
	"memory":  {&toolMemory},
	"vault":   append(sidecarTools(), &toolOffloadContext, &toolInspectLogNode, &toolGcSessionContext),
	"sidecar": sidecarTools(),
	"journal": {&toolNow, &toolKeywordsList, &toolKeywordsListGlobal, &toolRemember, &toolRecall},
}

// sidecarTools are the sidecar profile's tools: the vault profile's first
// five (specs/003).
func sidecarTools() []*toolDef {
	return []*toolDef{&toolGetProjectLoadout, &toolRecallMemory, &toolGuardCheck, &toolFlushSession, &toolDistillSessionSkill}
}

// noArgs is the input schema of a tool that takes no arguments.
const noArgs = `{"type":"object","properties":{},"additionalProperties":false}`

// def is what tools/list shows of the tool.
func (d *toolDef) def(guide string) mcpgo.Tool {
	return mcpgo.Tool{
		Name:           d.name,
		Description:    strings.ReplaceAll(d.desc, "GUIDE", guide),
		RawInputSchema: json.RawMessage(d.schema),
		Annotations: mcpgo.ToolAnnotation{
			Title:           d.title,
			ReadOnlyHint:    mcpgo.ToBoolPtr(d.readOnly),
			DestructiveHint: mcpgo.ToBoolPtr(false),
			IdempotentHint:  mcpgo.ToBoolPtr(d.readOnly),
			OpenWorldHint:   mcpgo.ToBoolPtr(false),
		},
	}
}

type data struct {
	Data any `json:"data"`
}

// textResult is a result whose text content is Markdown for the agent.
type textResult struct {
	Text string `json:"text"`
	Data any    `json:"data,omitempty"`
}

func (t textResult) AgentText() string { return t.Text }

// checkProjectName accepts project_name only when it names the bound project.
func (s *Server) checkProjectName(p *string) error {
	if p != nil && *p != "" && *p != s.project {
		return vault.Errorf(vault.CodeInvalid, "project_name %q: this server is bound to project %q (from its working directory); bind another workspace to serve another project", *p, s.project)
	}
	return nil
}

// repoDir is the code repository a tool reads: repo_path (relative to the
// server's working directory, or absolute), else the working directory. It
// is confined to the bound workspace's repository (the working directory's
// git work tree, or the working directory itself outside one): an agent's
// repo_path cannot make the guard read the file system's root, the user's
// home or another project.
func (s *Server) repoDir(ctx context.Context, dir *string) (string, error) {
	if dir == nil || *dir == "" {
		return s.opt.WorkDir, nil
	}
	if err := vault.CheckName("repo_path", *dir); err != nil {
		return "", err // NUL is a control character too
	}
	want := *dir
	if !filepath.IsAbs(want) {
		want = filepath.Join(s.opt.WorkDir, want)
	}
	real, err := filepath.EvalSymlinks(want)
	if err != nil {
		return "", vault.Errorf(vault.CodeInvalid, "repo_path %q: %v", *dir, err)
	}
	bound := s.opt.WorkDir
	if repo, err := guard.OpenRepo(ctx, s.opt.WorkDir); err == nil {
		bound = repo.Root
	}
	if b, err := filepath.EvalSymlinks(bound); err == nil {
		bound = b
	}
	if !within.Dir(bound, real) {
		return "", vault.Errorf(vault.CodeInvalid, "repo_path %q is outside this workspace's repository %s; the guard reads only the workspace it is bound to", *dir, bound)
	}
	return real, nil
}

func (s *Server) sources(ctx context.Context) ([]guard.Source, error) {
	src, _, err := guard.Sources(ctx, s.ix, s.project)
	return src, err
}

// decode reads a tool's arguments strictly into T (no arguments: {}).
func decode[T any](raw []byte) (T, error) {
	var in T
	err := strictjson.Decode(orEmpty(raw), &in)
	return in, err
}

// decodeOpen decodes a vault-profile tool's input: spec 003's schemas allow
// fields they do not name, so an unknown field is skipped, not refused.
func decodeOpen[T any](raw []byte) (T, error) {
	var in T
	err := strictjson.DecodeOpen(orEmpty(raw), &in)
	return in, err
}

func orEmpty(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte("{}")
	}
	return raw
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func orNone[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
