package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/lore-memory/lore/vault"
)

// memoryInput is the memory tool's arguments: {"op": {"<operation>": {…}}}.
type memoryInput struct {
	Op *memoryOp `json:"op"`
}

type memoryOp struct {
	Activate *activateInput `json:"activate,omitempty"`
	Load     *loadInput     `json:"load,omitempty"`
	Store    *vault.Op      `json:"store,omitempty"`
}

type activateInput struct {
	Query string  `json:"query"`
	State *string `json:"state,omitempty"`
}

type loadInput struct {
	IDs         []string          `json:"ids"`
	KnownHashes map[string]string `json:"knownHashes,omitempty"`
}

// loadedResource is one resource of a load result; content is omitted when
// the caller's known hash is current (changed: false).
type loadedResource struct {
	ResourceID  string  `json:"resource_id"`
	Scope       string  `json:"scope"`
	Kind        string  `json:"kind"`
	Path        string  `json:"path"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	ContentHash string  `json:"content_hash"`
	Changed     bool    `json:"changed"`
	Content     *string `json:"content,omitempty"`
	DraftID     string  `json:"draft_id,omitempty"`
}

type loadResult struct {
	Resources []loadedResource `json:"resources"`
}

// memory runs one call of the memory tool and returns the domain object, or
// an error with one of the spec's codes.
func (s *Server) memory(ctx context.Context, raw []byte) (any, error) {
	var in memoryInput
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := vault.DecodeStrict(raw, &in); err != nil {
		return nil, err
	}
	if in.Op == nil {
		return nil, vault.Errorf(vault.CodeInvalid, `op is required: {"op": {"activate": {"query": "…"}}}, or load, or store`)
	}
	var names []string
	if in.Op.Activate != nil {
		names = append(names, "activate")
	}
	if in.Op.Load != nil {
		names = append(names, "load")
	}
	if in.Op.Store != nil {
		names = append(names, "store")
	}
	if len(names) != 1 {
		return nil, vault.Errorf(vault.CodeInvalid, "op must hold exactly one operation (activate, load or store); it holds %d%s", len(names), listed(names))
	}
	switch {
	case in.Op.Activate != nil:
		return s.activate(ctx, in.Op.Activate)
	case in.Op.Load != nil:
		return s.load(ctx, in.Op.Load)
	default:
		return s.store.Apply(ctx, s.project, *in.Op.Store)
	}
}

func listed(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}

func (s *Server) activate(ctx context.Context, a *activateInput) (any, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, vault.Errorf(vault.CodeInvalid, "op.activate.query is required: describe the task in natural language")
	}
	state := ""
	if a.State != nil {
		if *a.State == "" {
			return nil, vault.Errorf(vault.CodeInvalidState, "op.activate.state is empty; omit it to start afresh")
		}
		state = *a.State
	}
	act, err := s.ix.Activate(ctx, vault.ActivateRequest{Query: a.Query, State: state, Project: s.project})
	if err != nil {
		return nil, err
	}
	return activation{act}, nil
}

func (s *Server) load(ctx context.Context, l *loadInput) (any, error) {
	if len(l.IDs) == 0 {
		return nil, vault.Errorf(vault.CodeInvalid, "op.load.ids is required: a non-empty array of resource ids or exact paths")
	}
	seen := map[string]bool{}
	for i, id := range l.IDs {
		if id == "" {
			return nil, vault.Errorf(vault.CodeInvalid, "op.load.ids[%d] is empty", i)
		}
		if seen[id] {
			return nil, vault.Errorf(vault.CodeInvalid, "op.load.ids[%d] repeats %q; ids must be unique", i, id)
		}
		seen[id] = true
	}
	for k := range l.KnownHashes {
		if !seen[k] {
			return nil, vault.Errorf(vault.CodeInvalid, "op.load.knownHashes has key %q, which is not one of ids", k)
		}
	}
	rs, err := s.ix.Load(ctx, l.IDs, s.project)
	if err != nil {
		return nil, err
	}
	out := loadResult{Resources: make([]loadedResource, len(rs))}
	for i, r := range rs {
		lr := loadedResource{
			ResourceID: r.ResourceID, Scope: r.Scope, Kind: r.Kind, Path: r.Path, Title: r.Title,
			Description: r.Description, ContentHash: r.ContentHash, Changed: true, DraftID: r.DraftID,
		}
		if known, ok := l.KnownHashes[l.IDs[i]]; ok && known == r.ContentHash {
			lr.Changed = false
		} else {
			c := r.Content
			lr.Content = &c
		}
		out.Resources[i] = lr
	}
	return out, nil
}

// errorObject is what a failed call returns: the spec's code and a message.
type errorObject struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		// Progress (0–1) comes with search_model_preparing, as a field
		// an agent can read, not only inside the message.
		Progress *float64 `json:"progress,omitempty"`
	} `json:"error"`
}

func toErrorObject(err error) errorObject {
	var e errorObject
	e.Error.Code = vault.ErrorCode(err)
	e.Error.Message = vault.Message(err)
	e.Error.Progress = vault.ErrorProgress(err)
	if e.Error.Code == vault.CodeInternal {
		e.Error.Message = fmt.Sprintf("internal error: %s", e.Error.Message)
	}
	return e
}
