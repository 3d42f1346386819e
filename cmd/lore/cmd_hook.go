package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

const hookHelp = `Answer an agent's hook: Claude Code and the Codex CLI run it at fixed points
of a session with JSON on stdin (lore setup writes it into their files).

  session-start  the project's loadout (300 tokens), where the guidelines are,
                 and that the memory tool has more; a clear or a compaction
                 forgets what earlier prompts were given
  prompt         activate with the prompt: reviewed memory only, what clears a
                 relevance bar, within hooks.prompt_budget (lore.yaml, default
                 600 tokens); later prompts of the session get what is new or
                 changed; nothing for slash commands, empty prompts, or when
                 nothing relevant is found
  pre-tool       before a shell command that commits (or pushes the org
                 branch): the guard's check of what it would commit, refused
                 with the rule's message when an error rule fails
  stop, session-end
                 nothing: memory is stored only when the person asks

A hook never stops the person: anything that goes wrong (no binding, no
model, a broken index, past hooks.deadline_ms, default 2000) prints nothing,
exits 0, and is logged in the vault's .git/lore/hooks.log, which lore doctor
reads. Only a guard refusal is printed. Nothing but reviewed memory (the org
ref and the person's own edits, never a Draft) is put before the model.`

func runHook(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "hook", "session-start|prompt|pre-tool|stop|session-end [--client claude|codex]", hookHelp)
	client := fs.String("client", "", "the client that runs the hook (claude or codex): named in the log")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError{"hook needs one event: session-start, prompt, pre-tool, stop or session-end"}
	}
	event, ok := hook.EventOf(pos[0])
	if !ok {
		return usageError{fmt.Sprintf("hook event %q: want session-start, prompt, pre-tool, stop or session-end", pos[0])}
	}
	h := &hook.Responder{Event: event, Client: *client, Start: time.Now(), Backend: hookBackend{e}}
	out, err := h.Respond(ctx, e.stdin)
	if err != nil {
		h.Log(err)
		return nil // a hook never stops the person: nothing is printed
	}
	if _, err := e.stdout.Write(out); err != nil {
		h.Log(err)
	}
	return nil
}

// hookBackend is what a hook event needs of lore (hook.Backend): the
// bindings, the index opened per call, a warm server when one runs.
type hookBackend struct{ e *env }

func (hb hookBackend) Binding(dir string) (vault.Binding, error) { return hb.e.bindingFor(dir) }

// Activate asks the warm server when one runs, else activates in process.
func (hb hookBackend) Activate(ctx context.Context, b vault.Binding, req vault.ActivateRequest) (*vault.Activation, error) {
	if reply, err := askWarm(ctx, hb.e, b, warm.ActivatePath, warm.ActivationRequest(req, b.Workspace)); err == nil {
		return reply.Activation, nil
	} else if !errors.Is(err, warm.ErrNoServer) {
		return nil, err
	}
	a, err := hb.e.openFor(ctx, b, withModels)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	ix := a.mem
	req.Code = codeCheck(ctx, hb.e.getenv, b.Workspace, ix.Vault())
	defer flushCheckers()
	return ix.Activate(ctx, req)
}

func (hb hookBackend) Loadout(ctx context.Context, b vault.Binding) (string, error) {
	a, err := hb.e.openFor(ctx, b, 0)
	if err != nil {
		return "", err
	}
	defer a.Close()
	ix := a.mem
	return guard.LoadoutFrom(ctx, ix, b.Project, nil)
}

func (hb hookBackend) Rules(ctx context.Context, b vault.Binding) (*guard.RuleSet, error) {
	a, err := hb.e.openFor(ctx, b, 0)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	ix := a.mem
	return ruleSet(ctx, ix, b.Project)
}
