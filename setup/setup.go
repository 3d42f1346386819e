package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Clients and scopes lore sets up.
var (
	Clients = []string{"claude", "codex"}
	Scopes  = []string{"project", "user"}
)

// Options say what to set up.
type Options struct {
	Client    string // claude or codex
	Scope     string // project (the workspace's files) or user (the home folder's)
	Workspace string // the code folder (project scope)
	Home      string // the user's home folder (user scope)
	Lore      string // the command that runs lore: "lore" when it is on PATH, else its path
	Remove    bool   // take out what setup added
}

// Change is one file's change.
type Change struct {
	Path          string
	Before, After []byte
	Exists        bool // the file was there before
	// Gone: removing lore's parts left nothing of the file (blank, or a
	// JSON object without keys), so the file is removed (after its backup).
	Gone bool
}

// Changed reports whether the change changes anything.
func (c Change) Changed() bool { return !bytes.Equal(c.Before, c.After) }

// Plan returns the changes setting up (or removing) lore makes, without
// writing anything.
func Plan(o Options) ([]Change, error) {
	if o.Lore == "" {
		o.Lore = "lore"
	}
	base := o.Workspace
	if o.Scope == "user" {
		base = o.Home
	} else if o.Scope != "project" {
		return nil, fmt.Errorf("scope %q: want project or user", o.Scope)
	}
	if base == "" {
		return nil, fmt.Errorf("no folder to set up in")
	}
	var mcpFile, hooksFile string
	switch o.Client {
	case "claude":
		mcpFile, hooksFile = filepath.Join(base, ".mcp.json"), filepath.Join(base, ".claude", "settings.json")
		if o.Scope == "user" {
			mcpFile = filepath.Join(base, ".claude.json")
		}
	case "codex":
		mcpFile, hooksFile = filepath.Join(base, ".codex", "config.toml"), filepath.Join(base, ".codex", "hooks.json")
	default:
		return nil, fmt.Errorf("client %q: want claude or codex", o.Client)
	}
	var out []Change
	for _, f := range []struct {
		path string
		edit func([]byte, Options) ([]byte, error)
	}{
		{mcpFile, mcpEdit(o.Client)},
		{hooksFile, hooksEdit},
	} {
		before, err := os.ReadFile(f.path)
		exists := err == nil
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		after, err := f.edit(before, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		c := Change{Path: f.path, Before: before, After: after, Exists: exists}
		if o.Remove && exists && c.Changed() && leftEmpty(f.path, after) {
			c.After, c.Gone = nil, true
		}
		out = append(out, c)
	}
	return out, nil
}

// leftEmpty reports whether a file holds nothing of anyone's.
func leftEmpty(path string, data []byte) bool {
	if strings.HasSuffix(path, ".toml") {
		return len(strings.TrimSpace(string(data))) == 0
	}
	return emptyJSON(data)
}

func mcpEdit(client string) func([]byte, Options) ([]byte, error) {
	if client == "codex" {
		return tomlEdit
	}
	return mcpJSONEdit
}

// Apply writes the changes that change something, each after a backup of
// the file as it was (PATH.lore-backup), and returns the paths written (a
// Gone file is removed).
func Apply(changes []Change) ([]string, error) {
	var wrote []string
	for _, c := range changes {
		if !c.Changed() {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
			return wrote, err
		}
		mode := os.FileMode(0o644)
		if c.Exists {
			if st, err := os.Stat(c.Path); err == nil {
				mode = st.Mode().Perm()
			}
			if err := os.WriteFile(c.Path+".lore-backup", c.Before, mode); err != nil {
				return wrote, fmt.Errorf("back up %s: %w", c.Path, err)
			}
		}
		if c.Gone {
			if err := os.Remove(c.Path); err != nil {
				return wrote, err
			}
			wrote = append(wrote, c.Path)
			continue
		}
		tmp := c.Path + ".lore-tmp"
		if err := os.WriteFile(tmp, c.After, mode); err != nil {
			return wrote, err
		}
		if err := os.Rename(tmp, c.Path); err != nil {
			os.Remove(tmp)
			return wrote, err
		}
		wrote = append(wrote, c.Path)
	}
	return wrote, nil
}

// Diff is the change as a person reviews it: removed lines with "-",
// added ones with "+", a few lines of context around them.
func (c Change) Diff() string {
	if !c.Changed() {
		return ""
	}
	var b strings.Builder
	after := c.Path
	if c.Gone {
		after = "(removed: nothing else was in it)"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", orNew(c), after)
	type line struct {
		op   diffmatchpatch.Operation
		text string
	}
	var lines []line
	for _, d := range diff.Do(string(c.Before), string(c.After)) {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				lines = append(lines, line{d.Type, strings.TrimSuffix(l, "\n")})
			}
		}
	}
	const context = 2
	show := make([]bool, len(lines))
	for i, l := range lines {
		if l.op != diffmatchpatch.DiffEqual {
			for j := max(0, i-context); j <= min(len(lines)-1, i+context); j++ {
				show[j] = true
			}
		}
	}
	gap := false
	for i, l := range lines {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			b.WriteString("  …\n")
			gap = false
		}
		switch l.op {
		case diffmatchpatch.DiffInsert:
			b.WriteString("+ " + l.text + "\n")
		case diffmatchpatch.DiffDelete:
			b.WriteString("- " + l.text + "\n")
		default:
			b.WriteString("  " + l.text + "\n")
		}
	}
	return b.String()
}

func orNew(c Change) string {
	if !c.Exists {
		return "(new file)"
	}
	return c.Path
}

// indented is v as indented JSON, for a value setup adds.
func indented(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return b
}
