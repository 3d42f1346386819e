package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

const claudeSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "model": "opus"
}
`

const mcpJSON = `{
  "mcpServers": {
    "github": {"type": "http", "url": "https://example.com/mcp"}
  }
}
`

const codexConfig = `# my Codex config
model = "gpt-5-codex"   # the default model

[mcp_servers.github]
command = "gh-mcp"  # keeps its comment

[features]
# web search stays on
web_search_request = true
`

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setUp plans and applies, and returns the changes.
func setUp(t *testing.T, o Options) []Change {
	t.Helper()
	cs, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// Claude Code, project scope, over files the user already has: lore's
// server and hooks are added after theirs, nothing of theirs moves; again
// is no change; --remove gives the files back byte for byte, and the
// backups hold what was there.
func TestSetup_ClaudeMergesAndRemovesExactlyItsOwn(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.json"), claudeSettings)
	write(t, filepath.Join(ws, ".mcp.json"), mcpJSON)
	o := Options{Client: "claude", Scope: "project", Workspace: ws, Lore: "/opt/lore bin/lore"}
	dry, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if d := dry[1].Diff(); !strings.Contains(d, `+ `) || !strings.Contains(d, "hook prompt --client claude") {
		t.Errorf("the dry run's diff:\n%s", d)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); string(data) != mcpJSON {
		t.Fatal("planning wrote a file")
	}
	setUp(t, o)
	settings, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.json"))
	s := string(settings)
	for _, want := range []string{`"permissions"`, `"prettier --write"`, `"say done"`, `"model": "opus"`} {
		if !strings.Contains(s, want) {
			t.Errorf("the user's %s is gone:\n%s", want, s)
		}
	}
	if i, j := strings.Index(s, "prettier"), strings.Index(s, "hook pre-tool"); i < 0 || j < i {
		t.Errorf("lore's PreToolUse hook is not after the user's:\n%s", s)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse"} {
		found := false
		for _, g := range gjson.Get(s, "hooks."+ev).Array() {
			for _, h := range g.Get("hooks").Array() {
				found = found || isLoreHook(h.Get("command").String(), "claude")
			}
		}
		if !found {
			t.Errorf("no lore hook for %s:\n%s", ev, s)
		}
	}
	if gjson.Get(s, `hooks.PreToolUse.1.matcher`).String() != "Bash" {
		t.Errorf("lore's pre-tool hook does not match Bash:\n%s", s)
	}
	mcp, _ := os.ReadFile(filepath.Join(ws, ".mcp.json"))
	if gjson.GetBytes(mcp, "mcpServers.github.url").String() == "" || gjson.GetBytes(mcp, "mcpServers.lore.command").String() != "/opt/lore bin/lore" {
		t.Errorf(".mcp.json:\n%s", mcp)
	}
	if bak, _ := os.ReadFile(filepath.Join(ws, ".mcp.json.lore-backup")); string(bak) != mcpJSON {
		t.Errorf("the backup is not the file as it was: %q", bak)
	}
	for _, c := range setUp(t, o) {
		if c.Changed() {
			t.Errorf("setting up again changed %s:\n%s", c.Path, c.Diff())
		}
	}
	o.Remove = true
	setUp(t, o)
	if data, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.json")); string(data) != claudeSettings {
		t.Errorf("--remove did not give settings.json back:\n%s", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); string(data) != mcpJSON {
		t.Errorf("--remove did not give .mcp.json back:\n%s", data)
	}
}

// A server named lore that is not lore is not touched, and nothing is
// written; a file that is not JSON is refused.
func TestSetup_RefusesWhatItCannotMergeSafely(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"lore": {"command": "someone-elses-lore-server"}}}`)
	if _, err := Plan(Options{Client: "claude", Scope: "project", Workspace: ws}); err == nil || !strings.Contains(err.Error(), "not lore") {
		t.Errorf("another lore server: %v", err)
	}
	write(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": [oops`)
	if _, err := Plan(Options{Client: "claude", Scope: "project", Workspace: ws}); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("broken JSON: %v", err)
	}
}

// Codex, user scope: config.toml keeps every comment and value, gets lore's
// server and the hooks feature, and --remove gives it back byte for byte;
// hooks.json is made new and removed to an empty object.
func TestSetup_CodexKeepsTOMLComments(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".codex", "config.toml"), codexConfig)
	o := Options{Client: "codex", Scope: "user", Home: home, Lore: "lore"}
	setUp(t, o)
	cfg, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	c := string(cfg)
	for _, want := range []string{"# my Codex config", "# the default model", "# keeps its comment", "# web search stays on", "[mcp_servers.lore]"} {
		if !strings.Contains(c, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, c)
		}
	}
	var v struct {
		MCP      map[string]struct{ Command string } `toml:"mcp_servers"`
		Features map[string]bool                     `toml:"features"`
	}
	if err := toml.Unmarshal(cfg, &v); err != nil || v.MCP["lore"].Command != "lore" || v.MCP["github"].Command != "gh-mcp" || !v.Features["hooks"] || v.Features["codex_hooks"] || !v.Features["web_search_request"] {
		t.Errorf("config.toml reads %+v, %v:\n%s", v, err, c)
	}
	hooks, _ := os.ReadFile(filepath.Join(home, ".codex", "hooks.json"))
	if !strings.Contains(string(hooks), "hook prompt --client codex") {
		t.Errorf("hooks.json:\n%s", hooks)
	}
	for _, ch := range setUp(t, o) {
		if ch.Changed() {
			t.Errorf("again changed %s:\n%s", ch.Path, ch.Diff())
		}
	}
	o.Remove = true
	setUp(t, o)
	if data, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); string(data) != codexConfig {
		t.Errorf("--remove did not give config.toml back:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("hooks.json, which setup made, is still there after --remove")
	}
	// A config without a [features] table gets one in lore's block.
	write(t, filepath.Join(home, ".codex", "config.toml"), "model = \"x\"\n")
	o.Remove = false
	setUp(t, o)
	if data, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); !strings.Contains(string(data), "[features]\nhooks = true\n"+tomlEnd) {
		t.Errorf("no [features] table:\n%s", data)
	}
}

// Claude Code's user scope writes ~/.claude.json's mcpServers and
// ~/.claude/settings.json's hooks, files that did not exist before.
func TestSetup_ClaudeUserScope(t *testing.T) {
	home := t.TempDir()
	cs := setUp(t, Options{Client: "claude", Scope: "user", Home: home})
	if len(cs) != 2 || cs[0].Path != filepath.Join(home, ".claude.json") || cs[1].Path != filepath.Join(home, ".claude", "settings.json") || cs[0].Exists {
		t.Fatalf("changes %+v", cs)
	}
	if data, _ := os.ReadFile(cs[0].Path); gjson.GetBytes(data, "mcpServers.lore.args.0").String() != "mcp" {
		t.Errorf("~/.claude.json: %s", data)
	}
}

// In a folder with none of the client's files, setup creates them and
// --remove leaves the folder byte for byte as it was: no file, no backup,
// no folder setup made. Over files the user has, the same holds: the files
// are back byte for byte and no backup is left. A file holding only {} is
// set up as a new one (indented), not written on one line.
func TestSetup_RemoveLeavesTheTreeAsItWas(t *testing.T) {
	for _, client := range Clients {
		for _, start := range []map[string]string{
			{},
			{".mcp.json": mcpJSON, ".claude/settings.json": claudeSettings, ".claude/settings.local.json": "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}", ".codex/config.toml": codexConfig, ".codex/hooks.json": "{\"hooks\":{}}"},
		} {
			ws := t.TempDir()
			for p, data := range start {
				write(t, filepath.Join(ws, p), data)
			}
			before := treeOf(t, ws)
			cs := setUp(t, Options{Client: client, Scope: "project", Workspace: ws, Lore: "lore"})
			for _, c := range cs {
				if _, err := os.Stat(c.Path); err != nil {
					t.Fatalf("%s: %s not made: %v", client, c.Path, err)
				}
			}
			rm := setUp(t, Options{Client: client, Scope: "project", Workspace: ws, Lore: "lore", Remove: true})
			for _, c := range rm {
				if len(start) == 0 && (!c.Gone || !strings.Contains(c.Diff(), "(removed: nothing else was in it)")) {
					t.Errorf("%s: %s is not planned as removed: %+v", client, c.Path, c)
				}
			}
			if after := treeOf(t, ws); after != before {
				t.Errorf("%s (%d files before): setup then --remove changed the folder:\nbefore:\n%s\nafter:\n%s", client, len(start), before, after)
			}
		}
	}
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.json"), "{}\n")
	setUp(t, Options{Client: "claude", Scope: "project", Workspace: ws, Lore: "lore"})
	data, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.json"))
	if !strings.HasPrefix(string(data), "{\n  \"hooks\": {\n") {
		t.Errorf("settings.json made from {}:\n%s", data)
	}
}

// treeOf lists every file and folder under root with its bytes.
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			b.WriteString(rel + "/\n")
			return nil
		}
		data, _ := os.ReadFile(p)
		b.WriteString(rel + ": " + string(data) + "\n")
		return nil
	})
	return b.String()
}

// Claude Code's settings get what the first session needs to use the
// memory tool with no person's click: the project's server approved and
// the tool allowed, after the user's own entries, in the person's own
// settings.local.json at project scope.
func TestSetup_ClaudeApprovesTheServerAndTheTool(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.local.json"), claudeSettings)
	setUp(t, Options{Client: "claude", Scope: "project", Workspace: ws, Lore: "lore"})
	if data, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.json")); gjson.GetBytes(data, "permissions").Exists() {
		t.Errorf("the approvals went into the shared settings.json, which Claude Code honours only in a trusted workspace:\n%s", data)
	}
	data, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.local.json"))
	if got := gjson.GetBytes(data, "permissions.allow").String(); got != `["Bash(go test:*)","mcp__lore__memory"]` {
		t.Errorf("permissions.allow = %s", got)
	}
	if got := gjson.GetBytes(data, "enabledMcpjsonServers").String(); got != `["lore"]` {
		t.Errorf("enabledMcpjsonServers = %s", got)
	}
	home := t.TempDir()
	setUp(t, Options{Client: "claude", Scope: "user", Home: home, Lore: "lore"})
	data, _ = os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if gjson.GetBytes(data, "enabledMcpjsonServers").Exists() || gjson.GetBytes(data, "permissions.allow.0").String() != "mcp__lore__memory" {
		t.Errorf("user scope settings:\n%s", data)
	}
}

// A config.toml an older lore set up (features.codex_hooks, which Codex
// 0.169 calls deprecated) gets features.hooks in its place.
func TestSetup_CodexReplacesTheDeprecatedKey(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".codex", "config.toml"), "model = \"x\"\n\n"+tomlBegin+"\n[mcp_servers.lore]\ncommand = 'lore'\nargs = [\"mcp\"]\n\n[features]\ncodex_hooks = true\n"+tomlEnd+"\n")
	setUp(t, Options{Client: "codex", Scope: "project", Workspace: ws, Lore: "lore"})
	data, _ := os.ReadFile(filepath.Join(ws, ".codex", "config.toml"))
	if strings.Contains(string(data), "codex_hooks") || !strings.Contains(string(data), "[features]\nhooks = true\n") {
		t.Errorf("config.toml:\n%s", data)
	}
}

// Check names what a person still has to do before Codex runs what setup
// wrote (trust the project, approve the hooks), and nothing once Codex's
// own config holds both; for Claude Code, setup's own approvals suffice.
func TestCheck_NamesWhatThePersonStillHasToDo(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	t.Setenv("CODEX_HOME", "")
	o := Options{Client: "codex", Scope: "project", Workspace: ws, Home: home, Lore: "lore"}
	if todo := Check(o); len(todo) != 1 || !strings.Contains(todo[0], "not set up") {
		t.Errorf("before setup: %q", todo)
	}
	setUp(t, o)
	todo := Check(o)
	if len(todo) != 2 || !strings.Contains(todo[0], "does not trust "+ws) || !strings.Contains(todo[1], "SessionStart, UserPromptSubmit, PreToolUse") {
		t.Fatalf("after setup: %q", todo)
	}
	hooksFile := filepath.Join(ws, ".codex", "hooks.json")
	user := "[projects." + tomlString(ws) + "]\ntrust_level = \"trusted\"\n"
	for _, ev := range []string{"session_start", "user_prompt_submit"} {
		user += "[hooks.state." + tomlString(hooksFile+":"+ev+":0:0") + "]\ntrusted_hash = \"sha256:00\"\n"
	}
	write(t, filepath.Join(home, ".codex", "config.toml"), user)
	if todo := Check(o); len(todo) != 1 || !strings.Contains(todo[0], "(PreToolUse)") {
		t.Errorf("trusted, two hooks approved: %q", todo)
	}
	write(t, filepath.Join(home, ".codex", "config.toml"), user+"[hooks.state."+tomlString(hooksFile+":pre_tool_use:0:0")+"]\ntrusted_hash = \"sha256:00\"\n")
	if todo := Check(o); len(todo) != 0 {
		t.Errorf("all approved: %q", todo)
	}
	c := Options{Client: "claude", Scope: "project", Workspace: ws, Home: home, Lore: "lore"}
	setUp(t, c)
	if todo := Check(c); len(todo) != 0 {
		t.Errorf("Claude Code after setup: %q", todo)
	}
}

// TestAttack_SetupWritesNothingThroughAPlantedLink: a cloned repository's
// links redirected setup's writes outside the workspace (a backup link to a
// stand-in ~/.bashrc got the repository's settings; a .lore-tmp link got
// the new .mcp.json; .claude and .codex links to outside folders got the
// settings, the user's global Codex config among them). Each is refused
// now, naming the link, and nothing outside the workspace changes.
func TestAttack_SetupWritesNothingThroughAPlantedLink(t *testing.T) {
	for _, c := range []struct {
		client, link, target string // link: inside the workspace; target: a file or folder outside
		dir                  bool
	}{
		{"claude", ".claude/settings.json.lore-backup", "bashrc", false},
		{"claude", ".mcp.json.lore-tmp", "elsewhere.json", false},
		{"claude", ".claude", "outside", true},
		{"codex", ".codex", "dot-codex", true},
	} {
		ws, outside := t.TempDir(), t.TempDir()
		write(t, filepath.Join(ws, ".claude", "settings.json"), claudeSettings)
		target := filepath.Join(outside, c.target)
		if c.dir {
			os.MkdirAll(target, 0o755)
			if c.link == ".claude" {
				os.RemoveAll(filepath.Join(ws, ".claude"))
			}
		} else {
			write(t, target, "# the user's own file\n")
		}
		os.MkdirAll(filepath.Dir(filepath.Join(ws, c.link)), 0o755)
		if err := os.Symlink(target, filepath.Join(ws, c.link)); err != nil {
			t.Fatal(err)
		}
		before := treeOf(t, outside)
		o := Options{Client: c.client, Scope: "project", Workspace: ws, Home: t.TempDir(), Lore: "lore"}
		cs, err := Plan(o)
		if err == nil {
			_, err = Apply(cs)
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Join(ws, c.link)) {
			t.Errorf("%s through %s: %v", c.client, c.link, err)
		}
		if after := treeOf(t, outside); after != before {
			t.Errorf("%s through %s wrote outside the workspace:\n%s", c.client, c.link, after)
		}
	}
}

// TestSetup_ALinkedUserFileIsEditedWhereItIs: a dotfile manager's link
// (~/.claude/settings.json → ~/dotfiles/…, outside any repository) is edited
// at its target and stays a link; a link into a git repository is refused.
func TestSetup_ALinkedUserFileIsEditedWhereItIs(t *testing.T) {
	home, dots := t.TempDir(), t.TempDir()
	target := filepath.Join(dots, "claude-settings.json")
	write(t, target, "{\"model\": \"opus\"}\n")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	link := filepath.Join(home, ".claude", "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	setUp(t, Options{Client: "claude", Scope: "user", Home: home, Lore: "lore"})
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v", err)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), "hook prompt --client claude") || !strings.Contains(string(data), `"model": "opus"`) {
		t.Errorf("the target:\n%s", data)
	}
	os.MkdirAll(filepath.Join(dots, ".git"), 0o755) // the dotfiles are a repository now
	os.Remove(target + ".lore-backup")
	if _, err := Plan(Options{Client: "claude", Scope: "user", Home: home, Lore: "/other/lore"}); err == nil || !strings.Contains(err.Error(), "inside the git repository") {
		t.Errorf("a link into a repository: %v", err)
	}
}

// TestSetup_RefusesFilesItWouldCorrupt: "hooks" twice in a settings file
// (the client reads one; setup reported success) and a [features] header
// inside a TOML multi-line string (setup's line landed in the string) are
// refused, and nothing is written.
func TestSetup_RefusesFilesItWouldCorrupt(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{"hooks": {}, "model": "x", "hooks": {"Stop": []}}`)
	before := treeOf(t, ws)
	if _, err := Plan(Options{Client: "claude", Scope: "project", Workspace: ws, Lore: "lore"}); err == nil || !strings.Contains(err.Error(), `"hooks" appears twice`) {
		t.Errorf("hooks twice: %v", err)
	}
	if after := treeOf(t, ws); after != before {
		t.Errorf("hooks twice: the workspace changed:\n%s\nwas:\n%s", after, before)
	}
	ws = t.TempDir()
	write(t, filepath.Join(ws, ".codex", "config.toml"), "notes = \"\"\"\n[features]\nnot a table\n\"\"\"\n\n[features]\nweb_search_request = true\n")
	before = treeOf(t, ws)
	if _, err := Plan(Options{Client: "codex", Scope: "project", Workspace: ws, Lore: "lore"}); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("[features] inside a string: %v", err)
	}
	if after := treeOf(t, ws); after != before {
		t.Errorf("[features] inside a string: the workspace changed:\n%s\nwas:\n%s", after, before)
	}
}
