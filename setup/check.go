package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

// Check says what a person still has to do before a client runs what
// setup wrote: one line per missing step, none when the client is ready.
// Codex loads a project's .codex/ only for a trusted project, and runs a
// hook only after the person approved it (Codex keeps the approval in the
// user's config.toml as [hooks.state."FILE:EVENT:GROUP:HANDLER"] with a
// trusted_hash; lore can see that an approval is there, not recompute
// Codex's hash, so a hook changed since its approval reads as approved
// here and Codex asks again). Claude Code needs the project's server
// approved and the tool allowed, which setup writes itself.
func Check(o Options) []string {
	switch o.Client {
	case "codex":
		return checkCodex(o)
	case "claude":
		return checkClaude(o)
	}
	return nil
}

// CodexHome is Codex's own folder: CODEX_HOME, else ~/.codex.
func CodexHome(home string) string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".codex")
}

var hookEventKeys = map[string]string{"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreToolUse": "pre_tool_use"}

func checkCodex(o Options) []string {
	dir := CodexHome(o.Home)
	if o.Scope == "project" {
		dir = filepath.Join(o.Workspace, ".codex")
	}
	hooksFile := filepath.Join(dir, "hooks.json")
	hooks, err := os.ReadFile(hooksFile)
	if err != nil {
		return []string{fmt.Sprintf("%s: not set up (lore setup codex --scope %s)", hooksFile, o.Scope)}
	}
	var user map[string]any
	userFile := filepath.Join(CodexHome(o.Home), "config.toml")
	if data, err := os.ReadFile(userFile); err == nil {
		if err := toml.Unmarshal(data, &user); err != nil {
			return []string{fmt.Sprintf("%s: not valid TOML (%v)", userFile, err)}
		}
	}
	var cfg map[string]any
	if data, err := os.ReadFile(filepath.Join(dir, "config.toml")); err == nil {
		toml.Unmarshal(data, &cfg)
	}
	var out []string
	features, _ := cfg["features"].(map[string]any)
	if features["hooks"] != true {
		if uf, _ := user["features"].(map[string]any); uf["hooks"] != true {
			out = append(out, "Codex's hooks are off: features.hooks is not true (run lore setup codex again)")
		}
	}
	if o.Scope == "project" {
		projects, _ := user["projects"].(map[string]any)
		p, _ := projects[o.Workspace].(map[string]any)
		if p["trust_level"] != "trusted" {
			out = append(out, fmt.Sprintf("Codex does not trust %s yet, so it loads none of .codex/: start codex there and trust the project (or run codex exec --trust once)", o.Workspace))
		}
	}
	hooksTable, _ := user["hooks"].(map[string]any)
	state, _ := hooksTable["state"].(map[string]any)
	var waiting []string
	for _, ev := range hookEvents {
		for gi, g := range gjson.GetBytes(hooks, "hooks."+ev.event).Array() {
			for hi, h := range g.Get("hooks").Array() {
				if !isLoreHook(h.Get("command").String(), "codex") {
					continue
				}
				key := fmt.Sprintf("%s:%s:%d:%d", hooksFile, hookEventKeys[ev.event], gi, hi)
				entry, _ := state[key].(map[string]any)
				if hash, _ := entry["trusted_hash"].(string); hash == "" || entry["enabled"] == false {
					waiting = append(waiting, ev.event)
				}
			}
		}
	}
	if len(waiting) > 0 {
		out = append(out, fmt.Sprintf("Codex has not approved lore's hooks (%s): start codex in the workspace, open /hooks where it says hooks need review, and approve them", strings.Join(waiting, ", ")))
	}
	return out
}

func checkClaude(o Options) []string {
	settings := ApprovalsFile(o)
	data, err := os.ReadFile(settings)
	if err != nil {
		return []string{fmt.Sprintf("%s: no approvals of lore (lore setup claude --scope %s)", settings, o.Scope)}
	}
	var out []string
	if !hasString(gjson.GetBytes(data, "permissions.allow"), claudeTool) && !hasString(gjson.GetBytes(data, "permissions.allow"), "mcp__lore") {
		out = append(out, fmt.Sprintf("%s does not allow %s: Claude Code asks before each use, and refuses it in claude -p (run lore setup claude again)", settings, claudeTool))
	}
	if o.Scope == "project" && !hasString(gjson.GetBytes(data, "enabledMcpjsonServers"), claudeServer) && !gjson.GetBytes(data, "enableAllProjectMcpServers").Bool() {
		out = append(out, fmt.Sprintf("%s does not approve the server lore in .mcp.json: Claude Code offers to go on without it (run lore setup claude again)", settings))
	}
	return out
}

func hasString(list gjson.Result, s string) bool {
	for _, v := range list.Array() {
		if v.String() == s {
			return true
		}
	}
	return false
}

// Installed reports whether lore's hooks are in the client's hooks file at
// that scope.
func Installed(o Options) bool {
	var file string
	switch {
	case o.Client == "claude" && o.Scope == "project":
		file = filepath.Join(o.Workspace, ".claude", "settings.json")
	case o.Client == "claude":
		file = filepath.Join(o.Home, ".claude", "settings.json")
	case o.Scope == "project":
		file = filepath.Join(o.Workspace, ".codex", "hooks.json")
	default:
		file = filepath.Join(CodexHome(o.Home), "hooks.json")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, ev := range hookEvents {
		for _, g := range gjson.GetBytes(data, "hooks."+ev.event).Array() {
			for _, h := range g.Get("hooks").Array() {
				if isLoreHook(h.Get("command").String(), o.Client) {
					return true
				}
			}
		}
	}
	return false
}
