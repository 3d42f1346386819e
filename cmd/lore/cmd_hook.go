package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/vault"
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

// hookFragments is how many fragments a prompt's memory may hold.
const hookFragments = 6

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
	h := &hookRun{e: e, event: event, client: *client, start: time.Now()}
	out, err := h.run(ctx)
	if err != nil {
		h.log(err)
		return nil // a hook never stops the person: nothing is printed
	}
	_, werr := e.stdout.Write(out)
	if werr != nil {
		h.log(werr)
	}
	return nil
}

// hookRun is one lore hook process.
type hookRun struct {
	e      *env
	event  string
	client string
	start  time.Time
	in     hook.Input
	logDir string // the vault's .git/lore, once known
}

// run reads the input and answers it within the deadline; past it the
// answer is nothing.
func (h *hookRun) run(ctx context.Context) ([]byte, error) {
	in, err := hook.ReadInput(h.e.stdin)
	if err != nil {
		return nil, err
	}
	h.in = in
	if h.event == hook.Stop || h.event == hook.SessionEnd {
		return nil, nil
	}
	dir := in.Cwd
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	// The binding and lore.yaml are read under the default deadline (the
	// configured one is in lore.yaml): files a cloned repository or an
	// agent planted are read bounded and without blocking
	// (vault.ReadConfigFile), and whatever else stalls is given up on.
	type opened struct {
		b        vault.Binding
		logDir   string
		budget   int
		deadline time.Duration
		err      error
	}
	got := make(chan opened, 1)
	go func() {
		b, err := h.e.bindingFor(dir)
		if err != nil {
			got <- opened{err: err}
			return
		}
		v, err := vault.Open(b.Vault) // cheap: lore.yaml and the git directory
		if err != nil {
			got <- opened{err: err}
			return
		}
		budget, deadline := v.Config.HookLimits()
		got <- opened{b: b, logDir: v.DataDir(), budget: budget, deadline: deadline}
		v.Close()
	}()
	var o opened
	select {
	case o = <-got:
	case <-time.After(vault.DefaultHookDeadline):
		o.err = fmt.Errorf("the binding and lore.yaml could not be read within %v: nothing was added", vault.DefaultHookDeadline)
	}
	if o.err != nil {
		if h.event == hook.PreToolUse && h.commits() && vault.ErrorCode(o.err) != vault.CodeUnbound {
			return hook.Deny(hook.GuardLead + " commit: lore could not read the workspace's binding or the vault's lore.yaml (" + o.err.Error() + "), so it could not check the commit."), nil
		}
		return nil, o.err
	}
	b, budget, deadline := o.b, o.budget, o.deadline
	h.logDir = o.logDir
	ctx, cancel := context.WithTimeout(ctx, deadline-min(deadline/2, time.Since(h.start)))
	defer cancel()
	type answer struct {
		out []byte
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{nil, fmt.Errorf("a bug in lore: %v", r)}
			}
		}()
		out, err := h.answer(ctx, b, dir, budget)
		done <- answer{out, err}
	}()
	select {
	case a := <-done:
		return a.out, a.err
	case <-ctx.Done():
		if h.event == hook.PreToolUse && h.commits() {
			// A commit the check could not finish on is refused, not let
			// through: past the deadline, --no-verify or a slow disk would
			// otherwise land exactly what the check was slow to read.
			h.log(fmt.Errorf("past the deadline of %v (hooks.deadline_ms): the commit was refused unchecked", deadline))
			return hook.Deny(hook.GuardLead + " commit: lore could not check it within hooks.deadline_ms (" + deadline.String() + "). Commit fewer files at a time, or ask the person to raise hooks.deadline_ms in lore.yaml."), nil
		}
		return nil, fmt.Errorf("past the deadline of %v (hooks.deadline_ms in lore.yaml): nothing was added", deadline)
	}
}

// answer is the event's work.
func (h *hookRun) answer(ctx context.Context, b vault.Binding, dir string, budget int) ([]byte, error) {
	switch h.event {
	case hook.SessionStart:
		return h.sessionStart(ctx, b)
	case hook.UserPromptSubmit:
		return h.prompt(ctx, b, budget)
	case hook.PreToolUse:
		return h.preTool(ctx, b, dir)
	}
	return nil, nil
}

// sessions is where the client sessions' activation states are kept.
func (h *hookRun) sessions() hook.Sessions {
	return hook.Sessions{Dir: filepath.Join(h.logDir, "hook-sessions")} // as hook.SessionsOf
}

func (h *hookRun) sessionStart(ctx context.Context, b vault.Binding) ([]byte, error) {
	if h.in.Source == "clear" || h.in.Source == "compact" {
		// What earlier prompts delivered is no longer in the context.
		if err := h.sessions().Forget(h.in.SessionID); err != nil {
			return nil, err
		}
	}
	waiting := h.draftsWaiting(ctx, b)
	if h.in.Source == "resume" {
		// The client keeps the session's history, the loadout with it:
		// sending it again would put a second copy before the model.
		return hook.Start("", waiting), nil
	}
	ix, _, err := h.e.openIndexFor(ctx, b)
	if err != nil {
		return nil, err
	}
	defer h.e.closeIndex(ix)
	loadout, err := guard.LoadoutFrom(ctx, ix, b.Project, nil)
	if err != nil {
		return nil, err
	}
	handle, err := h.sessions().Handle(h.in.SessionID)
	if err != nil {
		return nil, err
	}
	text := hook.StartText(hook.StartInfo{
		Vault: filepath.Base(b.Vault), Project: b.Project, Loadout: loadout,
		Guidelines: ix.Vault().Config.Guidelines, Tool: hook.ToolName(h.client), Handle: handle,
	})
	return hook.Start(text, waiting), nil
}

// draftsWaiting says how many Drafts wait for a person's review, and how
// long the oldest has: "" when none do, or when git cannot tell (the
// session starts all the same).
func (h *hookRun) draftsWaiting(ctx context.Context, b vault.Binding) string {
	v, err := vault.Open(b.Vault)
	if err != nil {
		return ""
	}
	org := v.Config.OrgRef
	v.Close()
	out, err := gitcli.Run(ctx, b.Vault, nil, "for-each-ref", "--no-merged=refs/heads/"+org, "--format=%(creatordate:unix)", "refs/heads/drafts/")
	if err != nil {
		return ""
	}
	var times []time.Time
	for _, l := range strings.Fields(string(out)) {
		if n, err := strconv.ParseInt(l, 10, 64); err == nil {
			times = append(times, time.Unix(n, 0))
		}
	}
	return hook.Waiting(times, h.start)
}

func (h *hookRun) prompt(ctx context.Context, b vault.Binding, budget int) ([]byte, error) {
	q := strings.TrimSpace(h.in.Prompt)
	if q == "" || strings.HasPrefix(q, "/") {
		return nil, nil // a slash command or nothing: no memory
	}
	sessions := h.sessions()
	state := sessions.State(h.in.SessionID)
	req := warmRequest{Query: q, Project: b.Project, State: state, Published: true, Relevant: true, Budget: budget, Fragments: hookFragments, Workspace: b.Workspace}
	act, err := h.activate(ctx, b, req)
	if vault.ErrorCode(err) == vault.CodeInvalidState && state != "" {
		req.State = "" // the state expired or the index was rebuilt: start afresh
		act, err = h.activate(ctx, b, req)
	}
	if err != nil {
		return nil, err
	}
	// The budget is the whole text's: activate counts the fragments' text,
	// and the lead and header lines come on top. Past it, ask again for
	// the text of the fragments that fit with their headers, in order; when
	// not even one does, the prompt gets nothing and the session's state
	// stays as it was (nothing was given).
	// A note the vault's work tree holds uncommitted is marked so: the hook
	// cannot tell the person's edit from what an agent or a plugin wrote.
	// Asked only when there is a note to mark: a git status on every
	// prompt that gets nothing is time the hook does not need.
	var uncommitted map[string]bool
	if act != nil && len(act.Fragments) > 0 {
		if v, err := vault.Open(b.Vault); err == nil {
			uncommitted, _ = guard.Uncommitted(ctx, v)
			v.Close()
		}
	}
	text := hook.Memory(act, uncommitted)
	for try := 0; try < 3 && act != nil && hook.Tokens(text, act.RunID) > budget; try++ {
		want := fitting(act, budget, uncommitted)
		if want < 1 || want >= req.Budget {
			act, text = nil, ""
			break
		}
		req.Budget = want
		if act, err = h.activate(ctx, b, req); err != nil {
			return nil, err
		}
		text = hook.Memory(act, uncommitted)
	}
	if act == nil || hook.Tokens(text, act.RunID) > budget {
		return nil, nil
	}
	if err := sessions.Save(h.in.SessionID, act.NextState); err != nil {
		return nil, err
	}
	if text == "" {
		return nil, nil
	}
	return hook.Context(hook.UserPromptSubmit, text), nil
}

// fitting returns how much fragment text fits in budget once the lead
// and each fragment's header line are counted: the text of the answer's
// first fragments that fit whole.
func fitting(act *vault.Activation, budget int, uncommitted map[string]bool) int {
	used := hook.Tokens(hook.Memory(&vault.Activation{RunID: act.RunID, Removed: act.Removed, RemovedLabels: act.RemovedLabels}, nil), act.RunID)
	if used == 0 {
		used = hook.Tokens(hook.MemoryLead(act.RunID, hook.Mark(act.RunID)), act.RunID)
	}
	text := 0
	for _, f := range act.Fragments {
		part := hook.MemoryFragment(f, hook.Mark(act.RunID), uncommitted[f.Path])
		if part == "" {
			continue
		}
		if used+vault.EstimateTokens(part) > budget {
			break
		}
		used += vault.EstimateTokens(part)
		text += vault.EstimateTokens(f.Content)
	}
	return text
}

// activate asks the warm server when one runs, else activates in process.
func (h *hookRun) activate(ctx context.Context, b vault.Binding, req warmRequest) (*vault.Activation, error) {
	if warm, err := askWarm(ctx, h.e, b, "/lore/v1/activate", req); err == nil {
		return warm.Activation, nil
	} else if !errors.Is(err, errNoServer) {
		return nil, err
	}
	ix, _, err := h.e.openIndexFor(ctx, b)
	if err != nil {
		return nil, err
	}
	defer h.e.closeIndex(ix)
	if err := useModels(ctx, ix); err != nil {
		return nil, err
	}
	ar := req.activateRequest()
	ar.Code = codeCheck(ctx, h.e.getenv, req.Workspace, ix.Vault())
	defer flushCheckers()
	return ix.Activate(ctx, ar)
}

// shellTool reports whether the pre-tool call runs a shell command.
func (h *hookRun) shellTool() bool {
	return h.in.ToolName == "Bash" || h.in.ToolName == "bash" || h.in.ToolName == "shell"
}

// commits reports whether the pre-tool call's command may commit.
func (h *hookRun) commits() bool {
	if !h.shellTool() {
		return false
	}
	gits, suspects := hook.Analyze(h.in.ToolInput.Command)
	for _, g := range gits {
		if g.Verb == "commit" || g.MaybeAlias {
			return true
		}
	}
	return len(suspects) > 0
}

func (h *hookRun) preTool(ctx context.Context, b vault.Binding, dir string) ([]byte, error) {
	if !h.shellTool() {
		return nil, nil
	}
	all, suspects := hook.Analyze(h.in.ToolInput.Command)
	if len(suspects) > 0 {
		var why []string
		for _, s := range suspects {
			why = append(why, fmt.Sprintf("- `%s`: %s", clipCommand(s.Command), s.Reason))
		}
		return hook.Deny(hook.GuardLead + " command unchecked: lore cannot see what it would commit.\n\n" + strings.Join(why, "\n") +
			"\n\nRun the plain form (git add …, then git commit -m …); lore checks it and lets it through when no rule fails."), nil
	}
	var gits []hook.Git
	for _, g := range all {
		if !g.MaybeAlias {
			gits = append(gits, g)
			continue
		}
		if alias := gitAlias(ctx, filepath.Join(dir, g.Dir), g.Verb); alias != "" {
			return hook.Deny(fmt.Sprintf("%s command unchecked: git %s is an alias (%s), and lore cannot see what it would commit.\n\nRun the git command it stands for, written out; lore checks it and lets it through when no rule fails.", hook.GuardLead, g.Verb, clipCommand(alias))), nil
		}
	}
	if len(gits) == 0 {
		return nil, nil
	}
	ix, _, err := h.e.openIndexFor(ctx, b)
	if err != nil {
		return nil, err
	}
	defer h.e.closeIndex(ix)
	rs, err := ruleSet(ctx, ix, b.Project)
	if err != nil {
		return nil, err
	}
	org := ix.Vault().Config.OrgRef
	added := strings.Contains(h.in.ToolInput.Command, "git add") || strings.Contains(h.in.ToolInput.Command, "git stage")
	check := func(repo string, in guard.Input) (string, error) {
		diffs, content, done, err := guard.Changes(ctx, repo, in)
		defer done()
		if err != nil {
			return "", err
		}
		if rep := rs.Check(diffs, content, false); !rep.OK {
			return strings.TrimSpace(rep.Format()), nil
		}
		return "", nil
	}
	var refusals []string
	for _, g := range gits {
		repo := filepath.Join(dir, g.Dir)
		var ins []guard.Input
		switch g.Verb {
		case "commit":
			// What it would commit: the staged changes; the work tree's, new
			// files included, when it commits all or the same line stages
			// first (git add … && git commit).
			if !g.All && !added {
				ins = append(ins, guard.Input{})
				break
			}
			ins = append(ins, guard.Input{WorkTree: true})
			if added {
				if files := untracked(ctx, repo); len(files) > 0 {
					ins = append(ins, guard.Input{Files: files})
				}
			}
		case "push":
			remote, branches := g.PushedBranches()
			if remote == "" {
				remote = "origin"
			}
			pushesOrg := false
			for _, br := range branches {
				pushesOrg = pushesOrg || br == org || (br == "" && currentBranch(ctx, repo) == org)
			}
			if pushesOrg {
				ins = append(ins, guard.Input{Branch: remote + "/" + org})
			}
		}
		for _, in := range ins {
			refusal, err := check(repo, in)
			if err != nil {
				if g.Verb == "push" {
					continue // no remote branch to compare with: the pre-commit hook checked each commit
				}
				return nil, err
			}
			if refusal != "" {
				refusals = append(refusals, refusal)
			}
		}
	}
	if len(refusals) == 0 {
		return nil, nil
	}
	reason := hook.GuardLead + " " + gits[0].Verb + ":\n\n" + clipReason(strings.Join(refusals, "\n\n")) +
		"\n\nFix the change (or, if the rule is wrong, ask the person to change the note that holds it), then commit again."
	return hook.Deny(reason), nil
}

// untracked are the repository's new files git does not ignore, as paths
// from its root (what git add -A would stage besides the changes).
func untracked(ctx context.Context, repo string) []string {
	top, err := gitcli.Run(ctx, repo, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	root := strings.TrimSpace(string(top))
	out, err := gitcli.Run(ctx, root, nil, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, filepath.Join(root, filepath.FromSlash(f)))
		}
	}
	return files
}

// gitAlias is what alias.VERB stands for in repo's config ("" for none).
func gitAlias(ctx context.Context, repo, verb string) string {
	out, err := gitcli.Run(ctx, repo, nil, "config", "--get", "alias."+verb)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// clipCommand bounds a command quoted in a refusal.
func clipCommand(s string) string {
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// currentBranch is the branch checked out in repo ("" when none).
func currentBranch(ctx context.Context, repo string) string {
	out, err := gitcli.Run(ctx, repo, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// clipReason bounds a refusal's text.
func clipReason(s string) string {
	if len(s) <= 4000 {
		return s
	}
	cut := s[:4000]
	if i := strings.LastIndexByte(cut, '\n'); i > 2000 {
		cut = cut[:i]
	}
	return cut + "\n…"
}

// log appends a failure to the vault's hooks.log (or the user's, when no
// vault is known), bounded: past maxHookLog the older half goes.
func (h *hookRun) log(err error) {
	dir := h.logDir
	if dir == "" {
		cfg, cerr := os.UserConfigDir()
		if cerr != nil {
			return
		}
		dir = filepath.Join(cfg, "lore")
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	p := filepath.Join(dir, hookLogFile)
	line := fmt.Sprintf("%s %s %s session %s: %s\n", time.Now().UTC().Format(time.RFC3339), orDash(h.client), h.event, orDash(h.in.SessionID), strings.ReplaceAll(vault.Message(err), "\n", " "))
	if data, rerr := os.ReadFile(p); rerr == nil && len(data)+len(line) > maxHookLog {
		data = data[len(data)/2:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
		os.WriteFile(p, data, 0o600)
	}
	f, ferr := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	io.WriteString(f, line)
	f.Close()
}

const (
	hookLogFile = "hooks.log"
	maxHookLog  = 256 << 10
)
