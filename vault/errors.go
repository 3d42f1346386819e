package vault

import (
	"errors"
	"fmt"
)

// Error codes. They are the wire codes of the specs where the specs name one, so
// each edge (CLI, MCP, web) maps them once without a second vocabulary.
const (
	// CodeNotFound: a requested resource does not exist in the Effective Memory.
	CodeNotFound = "memory_resource_not_found"
	// CodeInvalid: the caller's input is malformed (bad path, empty query, bad field).
	CodeInvalid = "invalid_input"
	// CodeUnbound: the working directory resolves to no vault/project.
	CodeUnbound = "unbound_workspace"
	// CodeConfig: lore.yaml or a binding file is wrong.
	CodeConfig = "invalid_config"
	// CodeNotVault: the folder is not (inside) a git repository or does not exist.
	CodeNotVault = "not_a_vault"
	// CodeInvalidState: an activation state token that does not verify.
	CodeInvalidState = "invalid_activation_state"
	// CodeModelPreparing: the configured embedding model is not ready yet.
	CodeModelPreparing = "search_model_preparing"
	// CodeContentChanged: store.update's expected_hash is not the resource's current hash.
	CodeContentChanged = "memory_content_changed"
	// CodeReplacementNotFound: an old_text does not occur in the resource.
	CodeReplacementNotFound = "text_replacement_not_found"
	// CodeReplacementAmbiguous: an old_text occurs more than once.
	CodeReplacementAmbiguous = "text_replacement_ambiguous"
	// CodeReplacementOverlap: two replacements of one update overlap.
	CodeReplacementOverlap = "text_replacement_overlap"
	// CodeConflict: a merge whose Drafts change paths the org ref also changed.
	CodeConflict = "merge_conflict"
	// CodeBusy: another lore process held the index too long to write to it
	// (lore's own code: the specs name none); retrying later succeeds.
	CodeBusy = "index_busy"
	// CodeInternal: anything else; a bug or an I/O failure.
	CodeInternal = "internal"
)

// ErrPathTaken is what a create at a path already in use wraps (its code
// is CodeInvalid), so a caller that names notes itself (the journal) can
// try the next name.
var ErrPathTaken = errors.New("the path is taken")

// Error is lore's one error type: a stable code and a message for people.
type Error struct {
	Code    string
	Message string
	// Progress is search_model_preparing's progress, 0–1 (nil otherwise).
	Progress *float64
}

// ErrorProgress returns the progress an error carries, if any.
func ErrorProgress(err error) *float64 {
	var e *Error
	if errors.As(err, &e) {
		return e.Progress
	}
	return nil
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Message returns the human part of err: the message of an *Error, or
// err.Error() for any other error.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
