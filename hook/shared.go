package hook

import (
	"context"
	"path/filepath"

	"github.com/lore-memory/lore/vault"
)

// SessionsOf is where a vault keeps its client sessions' states.
func SessionsOf(v *vault.Vault) Sessions {
	return Sessions{Dir: filepath.Join(v.DataDir(), "hook-sessions")}
}

// SharedActivator is an activator whose state may be a session handle that
// a hook gave the model: such an activate starts from the state that
// session's hooks left, saves its next_state back for the session's next
// prompt, and answers the handle as next_state, so the agent goes on
// passing it. What the prompt hook delivered then comes back as reuse, and
// what the agent's activate delivered is not sent again by the next
// prompt. Any other state is activate's own.
type SharedActivator struct {
	vault.Activator
	Sessions Sessions
}

// Activate implements vault.Activator.
func (a SharedActivator) Activate(ctx context.Context, req vault.ActivateRequest) (*vault.Activation, error) {
	if !IsHandle(req.State) {
		return a.Activator.Activate(ctx, req)
	}
	handle := req.State
	req.State = a.Sessions.StateOf(handle)
	act, err := a.Activator.Activate(ctx, req)
	if vault.ErrorCode(err) == vault.CodeInvalidState && req.State != "" {
		// the stored state expired, or the index was rebuilt: afresh
		req.State = ""
		act, err = a.Activator.Activate(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	if err := a.Sessions.SaveOf(handle, act.NextState); err != nil {
		return nil, err
	}
	out := *act
	out.NextState = handle
	return &out, nil
}
