package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/lore-memory/lore/internal/strictjson"
	"github.com/lore-memory/lore/vault"
)

// The memory tool: the single tool of the memory profile, as the memory
// contract gives it (GUIDE in its description is the vault's guideline file).

var toolMemory = toolDef{
	name: "memory", title: "Project memory", readOnly: false,
	desc: memoryDescription, schema: memorySchema,
	input: memoryInput{}, call: (*Server).memory,
}

const memoryDescription = `This project's memory (lore): Markdown notes in a git vault that people review like code. It is kept alongside your host's own memory: query it on substantive project tasks even if you already checked that. Send exactly one operation in "op".

activate — call once at the start of each substantive task, when you do not yet know which notes matter:
  {"op": {"activate": {"query": "<the task, in natural language>"}}}
Returns JSON: next_state, then fragments, each {"action", "scope", "path", "heading_path", "content", "unit_key", "resource_id", "content_hash", "kind"}, ranked, within a token budget. scope "draft" (with "draft_id" beside it) is a Draft: an unreviewed proposal, not published memory; rely on it only as that. "stale" on a fragment lists code it cites that changed since it was written, each with the commit: check the code before relying on it, and propose the fix with store only if the user asks. Pass "state" (the previous next_state, or the state your session start named) only while the fragments it delivered are still complete in your context; after context compaction, when older tool output was dropped, or for a new task, omit it. Fragments with action "reuse" are ones you already have (no content); "removed" lists units that no longer exist.

load — whole resources by id or exact path, when a fragment is not enough and always before editing:
  {"op": {"load": {"ids": ["mem_…", "GUIDE"], "knownHashes": {"mem_…": "sha256:…"}}}}
A current known hash returns changed: false without content. content_hash is the full-resource hash an update needs (fragment hashes are not).

store — only when the user explicitly asks to create, update, rename, delete or discard memory. Before maintaining memory, load the guideline file GUIDE and follow it (if it is not found, this project has none: go on with the user's instructions, do not create one). One operation per call:
  {"op": {"store": {"create": {"path": "howto/release.md", "body": "# Release\n…", "description": "…"}}}}
  {"op": {"store": {"update": {"id": "mem_…", "expected_hash": "sha256:…", "replacements": [{"old_text": "exact text that occurs once", "new_text": "…"}]}}}}
  {"op": {"store": {"rename": {"id": "mem_…", "new_path": "…"}}}}, {"op": {"store": {"delete": {"id": "mem_…"}}}}, {"op": {"store": {"discard": {"id": "drf_… or mem_…"}}}}
A store becomes a Draft that people review and merge; it never publishes anything itself. The result has local_operation_id, draft_id, queued and sync_status.

Rules: no null values (omit optional fields); field names are case-sensitive and unknown fields are rejected; knownHashes is camelCase, expected_hash is snake_case. Errors carry a code: memory_content_changed or text_replacement_not_found / _ambiguous / _overlap → load the resource again and redo the exact replacements (never rewrite the whole body); invalid_activation_state → drop state and activate again; memory_resource_not_found → check the id or path; search_model_preparing → wait and retry. A failed activate does not mean there is no relevant memory.`

const memorySchema = `{
  "type": "object",
  "properties": {
    "op": {
      "type": "object",
      "description": "Exactly one operation: activate, load or store.",
      "properties": {
        "activate": {
          "type": "object",
          "properties": {
            "query": {"type": "string", "minLength": 1, "description": "The task or what to find, in natural language."},
            "state": {"type": "string", "minLength": 1, "description": "next_state of the previous activate; only while its fragments are still in context."}
          },
          "required": ["query"],
          "additionalProperties": false
        },
        "load": {
          "type": "object",
          "properties": {
            "ids": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": true, "description": "Resource ids or exact vault paths."},
            "knownHashes": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Full-resource hashes you already have, keyed by the requested id or path."}
          },
          "required": ["ids"],
          "additionalProperties": false
        },
        "store": {
          "type": "object",
          "description": "Exactly one change operation; resource, if given, must be \"memory\".",
          "properties": {
            "resource": {"type": "string", "enum": ["memory"]},
            "create": {
              "type": "object",
              "properties": {
                "path": {"type": "string", "minLength": 1},
                "body": {"type": "string", "minLength": 1, "description": "The full Markdown of the new resource."},
                "description": {"type": "string"}
              },
              "required": ["path", "body"],
              "additionalProperties": false
            },
            "update": {
              "type": "object",
              "properties": {
                "id": {"type": "string", "minLength": 1},
                "expected_hash": {"type": "string", "minLength": 1, "description": "content_hash from load."},
                "replacements": {
                  "type": "array",
                  "minItems": 1,
                  "items": {
                    "type": "object",
                    "properties": {
                      "old_text": {"type": "string", "minLength": 1, "description": "Exact text that occurs once in the resource."},
                      "new_text": {"type": "string", "description": "Its replacement; may be empty."}
                    },
                    "required": ["old_text", "new_text"],
                    "additionalProperties": false
                  }
                },
                "description": {"type": "string"}
              },
              "required": ["id", "expected_hash", "replacements"],
              "additionalProperties": false
            },
            "rename": {
              "type": "object",
              "properties": {
                "id": {"type": "string", "minLength": 1},
                "new_path": {"type": "string", "minLength": 1},
                "description": {"type": "string"}
              },
              "required": ["id", "new_path"],
              "additionalProperties": false
            },
            "delete": {
              "type": "object",
              "properties": {
                "id": {"type": "string", "minLength": 1},
                "description": {"type": "string"}
              },
              "required": ["id"],
              "additionalProperties": false
            },
            "discard": {
              "type": "object",
              "properties": {"id": {"type": "string", "minLength": 1, "description": "The draft id, or the resource the Draft carries."}},
              "required": ["id"],
              "additionalProperties": false
            }
          },
          "additionalProperties": false,
          "minProperties": 1
        }
      },
      "additionalProperties": false,
      "minProperties": 1,
      "maxProperties": 1
    }
  },
  "required": ["op"],
  "additionalProperties": false
}`

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
	if err := strictjson.Decode(raw, &in); err != nil {
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
	act, err := s.ix.Activate(ctx, vault.ActivateRequest{Query: a.Query, State: state, Project: s.project, Code: s.opt.Code})
	if err != nil {
		return nil, err
	}
	if f, ok := s.opt.Code.(interface{ Flush() error }); ok {
		f.Flush()
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
