package eval

import (
	"bufio"
	"context"
	"os"
	"strings"

	"github.com/lore-memory/lore/hook"
	"github.com/lore-memory/lore/vault"
)

// The prompt hook's bar: lore hook prompt sends reviewed memory that
// clears a relevance bar, and nothing when nothing does. It is judged on
// two kinds of prompt: on-topic ones (the question sets, each with the
// section that answers it) and everyday off-topic ones a developer types
// in a bound code repository ("run the tests", "add a field"), which
// should get nothing.

// HookRequest is activate as lore hook prompt asks it (hook.PromptRequest)
// at a new session's first prompt, within the default budget.
func HookRequest(query, project string) vault.ActivateRequest {
	return hook.PromptRequest(query, project, "", vault.DefaultHookPromptBudget)
}

// HookFigures are the hook's figures on a vault: the share of on-topic
// prompts whose answering section it sends (and sends first), and the
// share of off-topic prompts it sends nothing for.
type HookFigures struct {
	On              int
	Answered, First float64
	Off             []OffTopic // one for each file of off-topic prompts
}

// OffTopic is the hook's figure on one file of off-topic prompts.
type OffTopic struct {
	Prompts int
	Silent  float64  // the share of them that got nothing
	Sent    []string // those that got something
}

// ScoreHook asks each prompt as the hook does, off-topic ones set by set.
func ScoreHook(ctx context.Context, a vault.Activator, on []Question, off [][]string) (HookFigures, error) {
	f := HookFigures{On: len(on)}
	for _, q := range on {
		act, err := a.Activate(ctx, HookRequest(q.Query, q.Project))
		if err != nil {
			return f, err
		}
		var ans Answer
		ans.Question = q
		ans.rank(placesOf(act))
		if ans.Rank > 0 {
			f.Answered++
		}
		if ans.Rank == 1 {
			f.First++
		}
	}
	for _, set := range off {
		o := OffTopic{Prompts: len(set)}
		for _, p := range set {
			act, err := a.Activate(ctx, HookRequest(p, ""))
			if err != nil {
				return f, err
			}
			if len(act.Fragments) == 0 {
				o.Silent++
			} else {
				o.Sent = append(o.Sent, p)
			}
		}
		if o.Prompts > 0 {
			o.Silent /= float64(o.Prompts)
		}
		f.Off = append(f.Off, o)
	}
	if f.On > 0 {
		f.Answered, f.First = f.Answered/float64(f.On), f.First/float64(f.On)
	}
	return f, nil
}

// LoadPrompts reads a file of prompts, one a line (blank lines skipped).
func LoadPrompts(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// placesOf is where each delivered fragment is, in order.
func placesOf(act *vault.Activation) []place {
	var out []place
	for _, f := range act.Fragments {
		out = append(out, place{f.Path, f.HeadingPath})
	}
	return out
}
