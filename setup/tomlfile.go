package setup

import (
	"fmt"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Codex's config.toml: lore's server and the hooks feature, as marked
// lines that setup adds after the user's own and --remove takes out; the
// rest of the file, comments included, keeps its bytes.

const (
	tomlBegin  = "# lore setup: begin (lore setup codex --remove takes this out)"
	tomlEnd    = "# lore setup: end"
	tomlMarked = " # added by lore setup"
)

var featuresHeader = regexp.MustCompile(`(?m)^[ \t]*\[features\][ \t]*(#.*)?$`)

// hooksFeature is the key that turns Codex's hooks on. Codex 0.169 calls
// the older features.codex_hooks deprecated on every run, so setup writes
// this one, and a run over an older setup's lines replaces them.
const hooksFeature = "hooks"

// passedEnv names the variables Codex passes to lore's server: Codex starts
// an MCP server with a short list of its own environment (HOME and PATH
// among them), so without these a person's LORE_MODEL_DIR, binding
// variables and XDG folders (where lore bind keeps bindings and the model
// is cached) did not reach lore mcp, which then found no model, and
// refused activate with search_model_preparing (e2e/clients.test.mjs).
const passedEnv = `["LORE_VAULT", "LORE_PROJECT", "LORE_MODEL_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]`

func tomlEdit(data []byte, o Options) ([]byte, error) {
	var orig map[string]any
	if err := toml.Unmarshal(data, &orig); err != nil {
		return nil, fmt.Errorf("not valid TOML (%v); fix it and run lore setup again (nothing was changed)", err)
	}
	text := string(data)
	// What setup adds is always made anew from the user's own lines, so an
	// older setup's lines (codex_hooks) are replaced, not kept beside.
	own := removeMarked(text)
	if o.Remove {
		if own == text {
			return data, nil
		}
		return checked(own)
	}
	var cfg map[string]any
	if err := toml.Unmarshal([]byte(own), &cfg); err != nil {
		return nil, fmt.Errorf("not valid TOML without lore's lines (%v); fix it and run lore setup again (nothing was changed)", err)
	}
	servers, _ := cfg["mcp_servers"].(map[string]any)
	lore, has := servers["lore"].(map[string]any)
	features, _ := cfg["features"].(map[string]any)
	var block []string
	if !has {
		block = append(block, "[mcp_servers.lore]", "command = "+tomlString(o.Lore), `args = ["mcp"]`, "env_vars = "+passedEnv)
	} else if cmd, _ := lore["command"].(string); !strings.HasSuffix(strings.Trim(cmd, `"`), "lore") {
		return nil, fmt.Errorf("mcp_servers.lore runs %q, not lore; rename that server and run lore setup again (nothing was changed)", cmd)
	}
	out := own
	if v, set := features[hooksFeature]; set && v != true {
		return nil, fmt.Errorf("features.hooks is %v: lore's hooks would not run; set it to true yourself (nothing was changed)", v)
	}
	if features[hooksFeature] != true {
		if features != nil {
			loc := featuresHeader.FindStringIndex(out)
			if loc == nil {
				return nil, fmt.Errorf("[features] is not a table header lore can find; add hooks = true to it yourself")
			}
			out = out[:loc[1]] + "\n" + hooksFeature + " = true" + tomlMarked + out[loc[1]:]
		} else {
			if len(block) > 0 {
				block = append(block, "")
			}
			block = append(block, "[features]", hooksFeature+" = true")
		}
	}
	if len(block) > 0 {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		out += tomlBegin + "\n" + strings.Join(block, "\n") + "\n" + tomlEnd + "\n"
	}
	if out == text {
		return data, nil
	}
	edited, err := checked(out)
	if err != nil {
		return nil, err
	}
	// The edit must mean what it says: a [features] header lore found
	// inside a multi-line string, say, gets lore's line inside the string,
	// and Codex's hooks stay off.
	var v struct {
		MCP      map[string]map[string]any `toml:"mcp_servers"`
		Features map[string]any            `toml:"features"`
	}
	if err := toml.Unmarshal(edited, &v); err != nil || v.Features[hooksFeature] != true || v.MCP["lore"] == nil {
		return nil, fmt.Errorf("lore cannot add its lines safely here (a [features] table it cannot tell apart from text?); add [mcp_servers.lore] and features.hooks = true by hand (lore mcp config --client codex prints them; nothing was changed)")
	}
	return edited, nil
}

// removeMarked takes out lore's block and marked lines.
func removeMarked(text string) string {
	var out []string
	skip := false
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		switch {
		case t == tomlBegin:
			skip = true
			// the blank line setup put before its block goes with it
			if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) == "" {
				out = out[:n-1]
			}
			continue
		case skip && t == tomlEnd:
			skip = false
			continue
		case skip:
			continue
		case strings.HasSuffix(t, tomlMarked):
			continue
		}
		_ = i
		out = append(out, l)
	}
	return strings.Join(out, "")
}

func checked(out string) ([]byte, error) {
	var v map[string]any
	if err := toml.Unmarshal([]byte(out), &v); err != nil {
		return nil, fmt.Errorf("the edited file would not be valid TOML (%v); nothing was changed", err)
	}
	return []byte(out), nil
}

func tomlString(s string) string {
	b, _ := toml.Marshal(map[string]string{"s": s})
	_, v, _ := strings.Cut(strings.TrimSpace(string(b)), "= ")
	return v
}
