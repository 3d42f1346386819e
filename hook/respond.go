package hook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lore-memory/lore/guard"
	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/internal/safe"
	"github.com/lore-memory/lore/vault"
)

// Backend is what answering an event needs of the rest of lore. The
// program wires it (cmd/lore: the bindings file, the index, a warm server
// when one runs); each call opens what it needs and closes it.
type Backend interface {
	// Binding resolves a working directory to its vault and project.
	Binding(dir string) (vault.Binding, error)
	// Activate activates in the bound project (a warm server's answer
	// when one runs, else in process), checking citations of code against
	// the binding's workspace.
	Activate(ctx context.Context, b vault.Binding, req vault.ActivateRequest) (*vault.Activation, error)
	// Loadout is the project's loadout (guard.LoadoutFrom).
	Loadout(ctx context.Context, b vault.Binding) (string, error)
	// Rules is the project's compiled guard rules.
	Rules(ctx context.Context, b vault.Binding) (*guard.RuleSet, error)
}

// PromptFragments is how many fragments a prompt's memory may hold.
const PromptFragments = 6

// Responder answers one hook event of one client: what `lore hook EVENT`
// prints. A hook never stops the person: Respond's error is for the log
// (Log), and the program prints nothing then; only a guard refusal is an
// answer that stops something.
type Responder struct {
	Event   string // an event name, as EventOf gives it
	Client  string // claude or codex ("" when not said): the tool's name and the log
	Start   time.Time
	Backend Backend
	// UserLogDir is where failures are logged when no vault is known
	// (default: lore's folder in the user's config folder).
	UserLogDir string

	in     Input
	cfg    vault.Config // the bound vault's lore.yaml, once read
	logDir string       // the vault's data folder, once known
}

// Respond reads the client's input from r and answers it within the
// deadline (hooks.deadline_ms); past it the answer is nothing, except that
// a commit lore could not check is refused.
func (h *Responder) Respond(ctx context.Context, r io.Reader) ([]byte, error) {
	in, err := ReadInput(r)
	if err != nil {
		return nil, err
	}
	h.in = in
	if h.Event == Stop || h.Event == SessionEnd {
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
		cfg      vault.Config
		logDir   string
		budget   int
		deadline time.Duration
		err      error
	}
	got := make(chan opened, 1)
	go func() {
		b, err := h.Backend.Binding(dir)
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
		got <- opened{b: b, cfg: v.Config, logDir: v.DataDir(), budget: budget, deadline: deadline}
		v.Close()
	}()
	var o opened
	select {
	case o = <-got:
	case <-time.After(vault.DefaultHookDeadline):
		o.err = fmt.Errorf("the binding and lore.yaml could not be read within %v: nothing was added", vault.DefaultHookDeadline)
	}
	if o.err != nil {
		if h.checksCommit() && vault.ErrorCode(o.err) != vault.CodeUnbound {
			return h.refuseUnchecked(oneLine(o.err), "read the workspace's binding or the vault's lore.yaml ("+oneLine(o.err)+"), so it could not check the commit."), nil
		}
		return nil, o.err
	}
	b, budget, deadline := o.b, o.budget, o.deadline
	h.cfg, h.logDir = o.cfg, o.logDir
	ctx, cancel := context.WithTimeout(ctx, deadline-min(deadline/2, time.Since(h.Start)))
	defer cancel()
	type answer struct {
		out []byte
		err error
	}
	done := make(chan answer, 1)
	go func() {
		var out []byte
		err := safe.Call(func() (err error) {
			out, err = h.answer(ctx, b, dir, budget)
			return err
		})
		done <- answer{out, err}
	}()
	select {
	case a := <-done:
		if a.err != nil && h.checksCommit() {
			// A check that failed (rules unreadable, git failing, a bug)
			// and let the commit through would land whatever broke it.
			why := oneLine(a.err)
			return h.refuseUnchecked(why, "check it ("+clipCommand(why)+"). Ask the person to run lore doctor in the vault."), nil
		}
		return a.out, a.err
	case <-ctx.Done():
		if h.checksCommit() {
			// Past the deadline, --no-verify or a slow disk would otherwise
			// land exactly what the check was slow to read.
			return h.refuseUnchecked(fmt.Sprintf("past the deadline of %v (hooks.deadline_ms)", deadline),
				"check it within hooks.deadline_ms ("+deadline.String()+"). Commit fewer files at a time, or ask the person to raise hooks.deadline_ms in lore.yaml."), nil
		}
		return nil, fmt.Errorf("past the deadline of %v (hooks.deadline_ms in lore.yaml): nothing was added", deadline)
	}
}

// checksCommit reports whether this call is a pre-tool check of a command
// that may commit: one lore refuses when it cannot finish the check.
func (h *Responder) checksCommit() bool { return h.Event == PreToolUse && h.commits() }

// refuseUnchecked refuses a commit lore could not check, whatever stopped
// it (the binding unreadable, an error, the deadline), and logs why: a
// check that failed open would let through exactly what broke it. told
// ends "lore could not …" in the refusal.
func (h *Responder) refuseUnchecked(why, told string) []byte {
	h.Log(fmt.Errorf("%s: the commit was refused unchecked", why))
	return Deny(GuardLead + " commit: lore could not " + told)
}

// oneLine is err's message on one line, without lore's error code.
func oneLine(err error) string { return strings.Join(strings.Fields(vault.Message(err)), " ") }

// answer is the event's work.
func (h *Responder) answer(ctx context.Context, b vault.Binding, dir string, budget int) ([]byte, error) {
	switch h.Event {
	case SessionStart:
		return h.sessionStart(ctx, b)
	case UserPromptSubmit:
		return h.prompt(ctx, b, budget)
	case PreToolUse:
		return h.preTool(ctx, b, dir)
	}
	return nil, nil
}

// sessions is where the client sessions' activation states are kept.
func (h *Responder) sessions() Sessions {
	return Sessions{Dir: filepath.Join(h.logDir, "hook-sessions")} // as SessionsOf
}

func (h *Responder) sessionStart(ctx context.Context, b vault.Binding) ([]byte, error) {
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
		return Start("", waiting), nil
	}
	loadout, err := h.Backend.Loadout(ctx, b)
	if err != nil {
		return nil, err
	}
	handle, err := h.sessions().Handle(h.in.SessionID)
	if err != nil {
		return nil, err
	}
	text := StartText(StartInfo{
		Vault: filepath.Base(b.Vault), Project: b.Project, Loadout: loadout,
		Guidelines: h.cfg.Guidelines, Tool: ToolName(h.Client), Handle: handle,
	})
	return Start(text, waiting), nil
}

// draftsWaiting says how many Drafts wait for a person's review, and how
// long the oldest has: "" when none do, or when git cannot tell (the
// session starts all the same).
func (h *Responder) draftsWaiting(ctx context.Context, b vault.Binding) string {
	out, err := gitcli.Run(ctx, b.Vault, nil, "for-each-ref", "--no-merged=refs/heads/"+h.cfg.OrgRef, "--format=%(creatordate:unix)", "refs/heads/drafts/")
	if err != nil {
		return ""
	}
	var times []time.Time
	for _, l := range strings.Fields(string(out)) {
		if n, err := strconv.ParseInt(l, 10, 64); err == nil {
			times = append(times, time.Unix(n, 0))
		}
	}
	return Waiting(times, h.Start)
}

// PromptRequest is the activation the prompt hook asks for: reviewed
// memory only, what clears the relevance bar, at most PromptFragments
// within budget tokens of fragment text.
func PromptRequest(q, project, state string, budget int) vault.ActivateRequest {
	return vault.ActivateRequest{Query: q, Project: project, State: state, PublishedOnly: true, RelevantOnly: true,
		Limits: vault.Limits{TokenBudget: budget, MaxFragments: PromptFragments, PerResource: 2}}
}

func (h *Responder) prompt(ctx context.Context, b vault.Binding, budget int) ([]byte, error) {
	q := strings.TrimSpace(h.in.Prompt)
	if q == "" || strings.HasPrefix(q, "/") {
		return nil, nil // a slash command or nothing: no memory
	}
	sessions := h.sessions()
	state := sessions.State(h.in.SessionID)
	req := PromptRequest(q, b.Project, state, budget)
	act, err := h.Backend.Activate(ctx, b, req)
	if vault.ErrorCode(err) == vault.CodeInvalidState && state != "" {
		req.State = "" // the state expired or the index was rebuilt: start afresh
		act, err = h.Backend.Activate(ctx, b, req)
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
	text := Memory(act, uncommitted)
	for try := 0; try < 3 && act != nil && Tokens(text, act.RunID) > budget; try++ {
		want := fitting(act, budget, uncommitted)
		if want < 1 || want >= req.Limits.TokenBudget {
			act, text = nil, ""
			break
		}
		req.Limits.TokenBudget = want
		if act, err = h.Backend.Activate(ctx, b, req); err != nil {
			return nil, err
		}
		text = Memory(act, uncommitted)
	}
	if act == nil || Tokens(text, act.RunID) > budget {
		return nil, nil
	}
	if err := sessions.Save(h.in.SessionID, act.NextState); err != nil {
		return nil, err
	}
	if text == "" {
		return nil, nil
	}
	return Context(UserPromptSubmit, text), nil
}

// fitting returns how much fragment text fits in budget once the lead
// and each fragment's header line are counted: the text of the answer's
// first fragments that fit whole.
func fitting(act *vault.Activation, budget int, uncommitted map[string]bool) int {
	used := Tokens(Memory(&vault.Activation{RunID: act.RunID, Removed: act.Removed, RemovedLabels: act.RemovedLabels}, nil), act.RunID)
	if used == 0 {
		used = Tokens(MemoryLead(act.RunID, Mark(act.RunID)), act.RunID)
	}
	text := 0
	for _, f := range act.Fragments {
		part := MemoryFragment(f, Mark(act.RunID), uncommitted[f.Path])
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

// shellTool reports whether the pre-tool call runs a shell command.
func (h *Responder) shellTool() bool {
	return h.in.ToolName == "Bash" || h.in.ToolName == "bash" || h.in.ToolName == "shell"
}

// commits reports whether the pre-tool call's command may commit.
func (h *Responder) commits() bool {
	if !h.shellTool() {
		return false
	}
	gits, suspects := Analyze(h.in.ToolInput.Command)
	for _, g := range gits {
		if g.Verb == "commit" || g.MaybeAlias {
			return true
		}
	}
	return len(suspects) > 0
}

func (h *Responder) preTool(ctx context.Context, b vault.Binding, dir string) ([]byte, error) {
	if !h.shellTool() {
		return nil, nil
	}
	all, suspects := Analyze(h.in.ToolInput.Command)
	if len(suspects) > 0 {
		var why []string
		for _, s := range suspects {
			why = append(why, fmt.Sprintf("- `%s`: %s", clipCommand(s.Command), s.Reason))
		}
		return Deny(GuardLead + " command unchecked: lore cannot see what it would commit.\n\n" + strings.Join(why, "\n") +
			"\n\nRun the plain form (git add …, then git commit -m …); lore checks it and lets it through when no rule fails."), nil
	}
	var gits []Git
	for _, g := range all {
		if !g.MaybeAlias {
			gits = append(gits, g)
			continue
		}
		if alias := gitAlias(ctx, filepath.Join(dir, g.Dir), g.Verb); alias != "" {
			return Deny(fmt.Sprintf("%s command unchecked: git %s is an alias (%s), and lore cannot see what it would commit.\n\nRun the git command it stands for, written out; lore checks it and lets it through when no rule fails.", GuardLead, g.Verb, clipCommand(alias))), nil
		}
	}
	if len(gits) == 0 {
		return nil, nil
	}
	rs, err := h.Backend.Rules(ctx, b)
	if err != nil {
		return nil, err
	}
	org := h.cfg.OrgRef
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
	reason := GuardLead + " " + gits[0].Verb + ":\n\n" + clipReason(strings.Join(refusals, "\n\n")) +
		"\n\nFix the change (or, if the rule is wrong, ask the person to change the note that holds it), then commit again."
	return Deny(reason), nil
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

// LogFile is the name of the hooks' failure log, in the vault's data
// folder (lore doctor reads it) or the user's lore folder.
const LogFile = "hooks.log"

// maxLog bounds the log: past it the older half goes.
const maxLog = 256 << 10

// Log appends a failure to the vault's hooks.log (or the user's, when no
// vault is known), bounded: past maxLog the older half goes.
func (h *Responder) Log(err error) {
	dir := h.logDir
	if dir == "" {
		dir = h.UserLogDir
	}
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
	p := filepath.Join(dir, LogFile)
	line := fmt.Sprintf("%s %s %s session %s: %s\n", time.Now().UTC().Format(time.RFC3339), orDash(h.Client), h.Event, orDash(h.in.SessionID), strings.ReplaceAll(vault.Message(err), "\n", " "))
	if data, rerr := os.ReadFile(p); rerr == nil && len(data)+len(line) > maxLog {
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
