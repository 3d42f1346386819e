package hook

import (
	"fmt"
	"strings"
	"time"

	"github.com/lore-memory/lore/internal/termtext"
	"github.com/lore-memory/lore/vault"
)

// ToolName is the memory tool's name as the client lists it to the model:
// Claude Code defers MCP tools and loads one only by that name
// (ToolSearch "select:mcp__lore__memory"); Codex lists the server's tools
// under the namespace mcp__lore.
func ToolName(client string) string {
	if client == "codex" {
		return "mcp__lore.memory"
	}
	return "mcp__lore__memory"
}

// StartInfo is what a session start's text says.
type StartInfo struct {
	Vault, Project string
	Loadout        string // the project's loadout (get_project_loadout's text)
	Guidelines     string // the vault's guidelines file
	Tool           string // the memory tool's name in the client (ToolName)
	Handle         string // the session's handle ("" when the client sent no session id)
}

// StartText is what a session start adds to the model's context: the lead
// (StartLead), the loadout, and how to reach the rest, with the state to
// pass so that the agent's activate shares the session's record of what it
// was given.
func StartText(i StartInfo) string {
	var s strings.Builder
	s.WriteString(StartLead + " (vault " + i.Vault)
	if i.Project != "" {
		s.WriteString(", project " + i.Project)
	}
	s.WriteString(").\n\n")
	s.WriteString(strings.TrimSpace(i.Loadout))
	fmt.Fprintf(&s, "\n\nThe tool %s has the rest: activate for a task, load for whole notes.", i.Tool)
	if i.Handle != "" {
		fmt.Fprintf(&s, " Pass state %q to activate: it then sends only what this session was not given yet.", i.Handle)
	}
	fmt.Fprintf(&s, " Before storing memory, load %s, the vault's guidelines; what you store is a Draft that a person reviews.", i.Guidelines)
	s.WriteString(" A fragment marked \"may be stale\" cites code that changed since it was written: check the code before relying on it.\n")
	return s.String()
}

// Start is a session start's output: text for the model's context (none
// when ""), and waiting, a line for the person only, in the clients'
// user-visible systemMessage, which neither client puts before the model.
// Nothing at all when both are "".
func Start(text, waiting string) []byte {
	out := map[string]any{}
	if text != "" {
		out["hookSpecificOutput"] = map[string]any{"hookEventName": SessionStart, "additionalContext": termtext.Visible(text)}
	}
	if waiting != "" {
		out["systemMessage"] = termtext.Visible(waiting)
	}
	if len(out) == 0 {
		return nil
	}
	return mustJSON(out)
}

// Waiting is the person's line about Drafts waiting for review (each
// Draft's creation time), as of now; "" when none wait.
func Waiting(created []time.Time, now time.Time) string {
	if len(created) == 0 {
		return ""
	}
	oldest := created[0]
	for _, t := range created {
		if t.Before(oldest) {
			oldest = t
		}
	}
	what := "1 Draft waits"
	if len(created) > 1 {
		what = fmt.Sprintf("%d Drafts wait", len(created))
	}
	return fmt.Sprintf("lore: %s for your review (oldest %s): lore drafts", what, age(now.Sub(oldest)))
}

func age(d time.Duration) string {
	switch days := int(d.Hours() / 24); {
	case days >= 2:
		return fmt.Sprintf("%d days", days)
	case days == 1:
		return "1 day"
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	default:
		return "under 2 hours"
	}
}

// countedRun stands for any run id when a prompt's text is counted against
// its budget. Run ids are random (retrieve's newRunID: "run_", 12 hex
// digits of time, 12 random), and the estimate of a hex string depends on
// how its letters and digits alternate (27 to 37 tokens were seen), so
// counting the real id made the same prompt, vault and state deliver 5
// fragments one time and 6 the next. This id alternates throughout, the
// most an id of that length can count.
const countedRun = "run_0a0a0a0a0a0a0a0a0a0a0a0a"

// Tokens is text's token estimate with its run id counted at countedRun's
// size and its mark at countedMark's: the same fragments always count the
// same.
func Tokens(text, runID string) int {
	if runID != "" {
		text = strings.Replace(text, runID, countedRun, 1)
	}
	// The mark lore's lines begin with is random too: counted, wherever
	// it stands, at the most six hex digits can cost.
	first, _, _ := strings.Cut(text, "\n")
	if m := memoryHead().FindStringSubmatch(first); m != nil && m[2] != "" {
		text = strings.ReplaceAll(text, m[2], countedMark)
	}
	return vault.EstimateTokens(text)
}

const countedMark = "0a0a0a"
