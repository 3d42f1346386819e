package setup

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
)

// The hooks lore adds, per event: its matcher ("" for none) and lore hook's
// argument. The timeout is the client's (seconds); lore's own deadline
// (hooks.deadline_ms) is well inside it.
var hookEvents = []struct{ event, matcher, arg string }{
	{"SessionStart", "", "session-start"},
	{"UserPromptSubmit", "", "prompt"},
	{"PreToolUse", "Bash", "pre-tool"},
}

const hookTimeout = 10

// hookCommand is the command a client runs for an event.
func hookCommand(o Options, arg string) string {
	return quoteCommand(o.Lore) + " hook " + arg + " --client " + o.Client
}

// isLoreHook reports whether a hook command is lore's for this client.
func isLoreHook(cmd, client string) bool {
	f := strings.Fields(cmd)
	if len(f) < 5 || f[len(f)-2] != "--client" || f[len(f)-1] != client || f[len(f)-4] != "hook" {
		return false
	}
	return filepath.Base(strings.Trim(strings.Join(f[:len(f)-4], " "), `"'`)) == "lore"
}

func quoteCommand(p string) string {
	if strings.ContainsAny(p, " \t'\"$`\\") {
		return strconv.Quote(p)
	}
	return p
}

// checkJSON refuses a file that is not a JSON object: setup never writes
// over what it cannot read.
func checkJSON(data []byte) error {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
		return fmt.Errorf("not a JSON object; fix or move it, and run lore setup again (nothing was changed)")
	}
	if k := duplicateKey(data); k != "" {
		// A client reads one of the two (which one is its parser's
		// choice): setup reported success, and the client saw none of
		// lore's hooks.
		return fmt.Errorf("the key %q appears twice; merge the two into one and run lore setup again (nothing was changed)", k)
	}
	return nil
}

// duplicateKey returns the path of a key an object holds twice ("" when
// none).
func duplicateKey(data []byte) string {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var walk func(path string) string
	walk = func(path string) string {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return ""
				}
				k, _ := kt.(string)
				if seen[k] {
					return strings.TrimPrefix(path+"."+k, ".")
				}
				seen[k] = true
				if d := walk(path + "." + k); d != "" {
					return d
				}
			}
			dec.Token() // }
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d := walk(fmt.Sprintf("%s.%d", path, i)); d != "" {
					return d
				}
			}
			dec.Token() // ]
		}
		return ""
	}
	return walk("")
}

func startJSON(data []byte) []byte {
	if emptyJSON(data) {
		return []byte("{}\n")
	}
	return data
}

// emptyJSON reports whether data holds nothing: blank, or an object
// without keys.
func emptyJSON(data []byte) bool {
	if len(strings.TrimSpace(string(data))) == 0 {
		return true
	}
	o := gjson.ParseBytes(data)
	return o.IsObject() && len(o.Map()) == 0
}

// finish ends the file with a newline; a file setup made new (before was
// empty or {}) is indented throughout (the user's own files keep their layout).
func finish(before, data []byte) []byte {
	if o := gjson.ParseBytes(data); o.IsObject() && len(o.Map()) == 0 {
		return []byte("{}\n")
	}
	if emptyJSON(before) {
		data = pretty.PrettyOptions(data, &pretty.Options{Indent: "  ", Width: 80})
	}
	return []byte(strings.TrimRight(string(data), "\n") + "\n")
}

// mcpServer and hookGroup are what setup adds, in the order a person
// reads them.
type mcpServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

type hookGroup struct {
	Matcher string            `json:"matcher,omitempty"`
	Hooks   []hookCommandJSON `json:"hooks"`
}

type hookCommandJSON struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// mcpJSONEdit adds (or removes) mcpServers.lore in Claude Code's MCP
// files; a server named lore that runs something else is left alone.
func mcpJSONEdit(data []byte, o Options) ([]byte, error) {
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	cur := gjson.GetBytes(data, "mcpServers.lore")
	ours := cur.Exists() && filepath.Base(cur.Get("command").String()) == "lore"
	if o.Remove {
		if !ours {
			return data, nil
		}
		out, err := sjson.DeleteBytes(data, "mcpServers.lore")
		if err != nil {
			return nil, err
		}
		if s := gjson.GetBytes(out, "mcpServers"); s.IsObject() && len(s.Map()) == 0 {
			out, _ = sjson.DeleteBytes(out, "mcpServers")
		}
		return finish(data, out), nil
	}
	if cur.Exists() && !ours {
		return nil, fmt.Errorf("mcpServers.lore runs %q, not lore; rename that server, or remove it, and run lore setup again (nothing was changed)", cur.Get("command").String())
	}
	want := mcpServer{Type: "stdio", Command: o.Lore, Args: []string{"mcp"}}
	if ours && jsonEqual(cur.Raw, want) {
		return data, nil
	}
	out, err := sjson.SetRawBytes(startJSON(data), "mcpServers.lore", indented(want))
	if err != nil {
		return nil, err
	}
	return finish(data, out), nil
}

// hooksEdit adds (or removes) lore's hooks in a client's hooks file
// (.claude/settings.json, .codex/hooks.json): one group per event, after
// the user's own; a group of lore's that is already there is kept, or
// updated when its command changed.
func hooksEdit(data []byte, o Options) ([]byte, error) {
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	out := startJSON(data)
	changed := false
	for _, ev := range hookEvents {
		groups := gjson.GetBytes(out, "hooks."+ev.event)
		if groups.Exists() && !groups.IsArray() {
			return nil, fmt.Errorf("hooks.%s is not a list; fix it and run lore setup again (nothing was changed)", ev.event)
		}
		var mine []int
		for i, g := range groups.Array() {
			for _, h := range g.Get("hooks").Array() {
				if isLoreHook(h.Get("command").String(), o.Client) {
					mine = append(mine, i)
					break
				}
			}
		}
		want := hookGroup{Matcher: ev.matcher, Hooks: []hookCommandJSON{{Type: "command", Command: hookCommand(o, ev.arg), Timeout: hookTimeout}}}
		var err error
		switch {
		case o.Remove:
			for k := len(mine) - 1; k >= 0; k-- {
				if out, err = sjson.DeleteBytes(out, fmt.Sprintf("hooks.%s.%d", ev.event, mine[k])); err != nil {
					return nil, err
				}
				changed = true
			}
			if g := gjson.GetBytes(out, "hooks."+ev.event); g.IsArray() && len(g.Array()) == 0 && len(mine) > 0 {
				out, _ = sjson.DeleteBytes(out, "hooks."+ev.event)
			}
		case len(mine) > 0:
			if jsonEqual(groups.Array()[mine[0]].Raw, want) {
				continue
			}
			if out, err = sjson.SetRawBytes(out, fmt.Sprintf("hooks.%s.%d", ev.event, mine[0]), indented(want)); err != nil {
				return nil, err
			}
			changed = true
		default:
			if out, err = sjson.SetRawBytes(out, "hooks."+ev.event+".-1", indented(want)); err != nil {
				return nil, err
			}
			changed = true
		}
	}
	if !changed {
		return data, nil
	}
	if o.Remove {
		if h := gjson.GetBytes(out, "hooks"); h.IsObject() && len(h.Map()) == 0 {
			out, _ = sjson.DeleteBytes(out, "hooks")
		}
	}
	return finish(data, out), nil
}

// The Claude Code settings setup adds beside the hooks, so that the first
// session can use the memory tool without a person's click: the project's
// .mcp.json server approved (enabledMcpjsonServers, project scope only: a
// user-scope server needs no approval), and the tool allowed
// (permissions.allow). The tool only ever reads, or makes a Draft that a
// person reviews, so allowing it asks nothing of the person's trust that a
// review does not keep.
//
// At project scope they go to .claude/settings.local.json, the person's own
// settings for the project (ApprovalsFile), not the shared
// .claude/settings.json: Claude Code 2.1.328 honours a shared file's
// permissions only in a workspace whose trust dialog the person accepted,
// so claude -p in a fresh clone refused the tool with setup's allow rule in
// settings.json, and took it from settings.local.json (measured with the
// real client, e2e/clients.test.mjs). An approval is a person's choice on
// their machine, which is what that file is for; Claude Code writes its own
// approvals of .mcp.json servers there too.
const (
	claudeServer = "lore"
	claudeTool   = "mcp__lore__memory"
)

// ApprovalsFile is where setup writes Claude Code's approvals of lore: the
// project's .claude/settings.local.json, or the user's
// ~/.claude/settings.json.
func ApprovalsFile(o Options) string {
	if o.Scope == "project" {
		return filepath.Join(o.Workspace, ".claude", "settings.local.json")
	}
	return filepath.Join(o.Home, ".claude", "settings.json")
}

// claudeSettingsEdit is hooksEdit and the approvals, for the user's
// ~/.claude/settings.json.
func claudeSettingsEdit(data []byte, o Options) ([]byte, error) {
	out, err := hooksEdit(data, o)
	if err != nil {
		return nil, err
	}
	edited, err := approvalsEdit(out, o)
	if err != nil {
		return nil, err
	}
	if string(edited) == string(out) {
		return out, nil
	}
	return finish(data, edited), nil
}

// approvalsEdit adds (or removes) the approvals.
func approvalsEdit(data []byte, o Options) ([]byte, error) {
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	lists := []struct{ path, value string }{{"permissions.allow", claudeTool}}
	if o.Scope == "project" {
		lists = append(lists, struct{ path, value string }{"enabledMcpjsonServers", claudeServer})
	}
	edited := data
	var err error
	for _, l := range lists {
		if edited, err = listEdit(edited, l.path, l.value, o.Remove); err != nil {
			return nil, err
		}
	}
	if o.Remove {
		if p := gjson.GetBytes(edited, "permissions"); p.IsObject() && len(p.Map()) == 0 {
			edited, _ = sjson.DeleteBytes(edited, "permissions")
		}
	}
	if string(edited) == string(data) {
		return data, nil
	}
	return finish(data, edited), nil
}

// listEdit adds value to the JSON list at path (made when missing), or
// takes it out (and the list with it when nothing else is in it).
func listEdit(data []byte, path, value string, remove bool) ([]byte, error) {
	cur := gjson.GetBytes(data, path)
	if cur.Exists() && !cur.IsArray() {
		return nil, fmt.Errorf("%s is not a list; fix it and run lore setup again (nothing was changed)", path)
	}
	at := -1
	for i, v := range cur.Array() {
		if v.String() == value {
			at = i
		}
	}
	switch {
	case remove && at >= 0:
		out, err := sjson.DeleteBytes(data, fmt.Sprintf("%s.%d", path, at))
		if err == nil && len(gjson.GetBytes(out, path).Array()) == 0 {
			out, err = sjson.DeleteBytes(out, path)
		}
		return out, err
	case !remove && at < 0:
		return sjson.SetBytes(startJSON(data), path+".-1", value)
	}
	return data, nil
}

// jsonEqual compares a raw JSON value with v by meaning.
func jsonEqual(raw string, v any) bool {
	var a, b any
	want, _ := json.Marshal(v)
	if json.Unmarshal([]byte(raw), &a) != nil || json.Unmarshal(want, &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
