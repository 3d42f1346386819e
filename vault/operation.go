package vault

// The operations of store, the spec's shapes: what an agent asks to change
// (Op and one of CreateOp, UpdateOp, RenameOp, DeleteOp, DiscardOp) and what
// it is told (StoreResult). Package drafts carries them out as commits on
// Draft branches.

import "strings"

// Op is one store call: exactly one operation, and optionally the resource
// kind beside it ("memory", the only one). Field names are the spec's.
type Op struct {
	Resource *string    `json:"resource,omitempty"`
	Create   *CreateOp  `json:"create,omitempty"`
	Update   *UpdateOp  `json:"update,omitempty"`
	Rename   *RenameOp  `json:"rename,omitempty"`
	Delete   *DeleteOp  `json:"delete,omitempty"`
	Discard  *DiscardOp `json:"discard,omitempty"`
}

// CreateOp adds a new resource at Path with a new mem_ id.
type CreateOp struct {
	Path        string  `json:"path"`
	Body        string  `json:"body"`
	Description *string `json:"description,omitempty"`
}

// UpdateOp applies exact-text replacements to the resource whose full hash is
// ExpectedHash.
type UpdateOp struct {
	ID           string        `json:"id"`
	ExpectedHash string        `json:"expected_hash"`
	Replacements []Replacement `json:"replacements"`
	Description  *string       `json:"description,omitempty"`
}

// Replacement replaces the one occurrence of OldText with NewText.
type Replacement struct {
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

// RenameOp moves a resource to NewPath.
type RenameOp struct {
	ID          string  `json:"id"`
	NewPath     string  `json:"new_path"`
	Description *string `json:"description,omitempty"`
}

// DeleteOp proposes deleting a resource.
type DeleteOp struct {
	ID          string  `json:"id"`
	Description *string `json:"description,omitempty"`
}

// DiscardOp drops a Draft: ID is the draft id or the id/path of the resource
// it carries.
type DiscardOp struct {
	ID string `json:"id"`
}

// StoreResult is what store returns (the spec's four fields, plus the resource it
// concerns and whether an auto-publish path merged it at once).
type StoreResult struct {
	LocalOperationID string `json:"local_operation_id"`
	DraftID          string `json:"draft_id"`
	Queued           bool   `json:"queued"`
	SyncStatus       string `json:"sync_status"`
	ResourceID       string `json:"resource_id,omitempty"`
	Path             string `json:"path,omitempty"`
	Operation        string `json:"operation"`
	Published        bool   `json:"published,omitempty"`
}

// Name returns the operation's name, and an error unless exactly one is set.
func (op Op) Name() (string, error) {
	var names []string
	for _, o := range []struct {
		name string
		set  bool
	}{{"create", op.Create != nil}, {"update", op.Update != nil}, {"rename", op.Rename != nil}, {"delete", op.Delete != nil}, {"discard", op.Discard != nil}} {
		if o.set {
			names = append(names, o.name)
		}
	}
	if op.Resource != nil && *op.Resource != "memory" {
		return "", Errorf(CodeInvalid, "resource: %q is not allowed; the only resource is \"memory\"", *op.Resource)
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", Errorf(CodeInvalid, "store needs exactly one operation: create, update, rename, delete or discard")
	}
	return "", Errorf(CodeInvalid, "store holds %d operations (%s); send exactly one", len(names), strings.Join(names, ", "))
}
