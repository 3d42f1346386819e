package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/utils/diff"
	toml "github.com/pelletier/go-toml/v2"
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
	// JSON object without keys), so the file is removed.
	Gone bool
	// Remove: the change takes lore out, and writes no backup.
	Remove bool
	// DropBackup: taking lore out gives the file back as setup found it
	// (After is then PATH.lore-backup's own bytes, or the file is Gone and
	// the backup held nothing), so the backup goes too.
	DropBackup bool
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
	files := []struct {
		path string
		edit func([]byte, Options) ([]byte, error)
	}{
		{mcpFile, mcpEdit(o.Client)},
		{hooksFile, hooksFileEdit(o)},
	}
	if o.Client == "claude" && o.Scope == "project" {
		files = append(files, struct {
			path string
			edit func([]byte, Options) ([]byte, error)
		}{ApprovalsFile(o), approvalsEdit})
	}
	var out []Change
	for _, f := range files {
		real, err := resolve(base, f.path, o.Scope == "project")
		if err != nil {
			return nil, err
		}
		f.path = real
		before, err := os.ReadFile(f.path)
		exists := err == nil
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		after, err := f.edit(before, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		c := Change{Path: f.path, Before: before, After: after, Exists: exists, Remove: o.Remove}
		if o.Remove && exists && c.Changed() {
			backup, berr := os.ReadFile(f.path + ".lore-backup")
			switch {
			case berr == nil && sameMeaning(f.path, backup, after):
				c.After, c.DropBackup = backup, true
			case leftEmpty(f.path, after):
				c.After, c.Gone, c.DropBackup = nil, true, berr == nil && leftEmpty(f.path, backup)
			}
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

func hooksFileEdit(o Options) func([]byte, Options) ([]byte, error) {
	if o.Client == "claude" && o.Scope == "user" {
		return claudeSettingsEdit
	}
	return hooksEdit
}

func mcpEdit(client string) func([]byte, Options) ([]byte, error) {
	if client == "codex" {
		return tomlEdit
	}
	return mcpJSONEdit
}

// Apply writes the changes that change something, each after a backup of
// the file as it was (PATH.lore-backup), and returns the paths written (a
// Gone file is removed). Taking lore out writes no backup: when what is
// left means what the backup holds, the backup's own bytes are put back
// and the backup goes, so setup then --remove leaves the folder as it was;
// a folder setup made (.claude, .codex) goes when it is left empty.
func Apply(changes []Change) ([]string, error) {
	var wrote []string
	for _, c := range changes {
		if !c.Changed() {
			continue
		}
		dir := filepath.Dir(c.Path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return wrote, err
		}
		mode := os.FileMode(0o644)
		if c.Exists {
			if st, err := os.Stat(c.Path); err == nil {
				mode = st.Mode().Perm()
			}
			if !c.Remove {
				if err := createNew(c.Path+".lore-backup", c.Before, mode); err != nil {
					return wrote, fmt.Errorf("back up %s: %w", c.Path, err)
				}
			}
		}
		if c.Gone {
			if err := os.Remove(c.Path); err != nil {
				return wrote, err
			}
		} else if err := writeReplace(c.Path, c.After, mode); err != nil {
			return wrote, err
		}
		if c.DropBackup {
			if err := os.Remove(c.Path + ".lore-backup"); err != nil {
				return wrote, err
			}
		}
		if c.Gone {
			removeIfEmpty(dir)
		}
		wrote = append(wrote, c.Path)
	}
	return wrote, nil
}

// writeReplace writes data to a new file beside path and renames it over
// path, so a reader sees the old file or the new one.
func writeReplace(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".lore-tmp"
	if err := createNew(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// removeIfEmpty removes the client's own folder (.claude, .codex) when
// taking lore out left nothing in it.
func removeIfEmpty(dir string) {
	if b := filepath.Base(dir); b != ".claude" && b != ".codex" {
		return
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
		os.Remove(dir)
	}
}

// sameMeaning reports whether two versions of a client file hold the same
// settings: equal JSON values, or equal TOML tables.
func sameMeaning(path string, a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if strings.HasSuffix(path, ".toml") {
		if toml.Unmarshal(a, &x) != nil || toml.Unmarshal(b, &y) != nil {
			return false
		}
	} else if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	p, _ := json.Marshal(pruned(x))
	q, _ := json.Marshal(pruned(y))
	return bytes.Equal(p, q)
}

// pruned is v without empty tables and lists, which taking lore out removes
// ({"hooks": {}} means what {} means to a client).
func pruned(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if e = pruned(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
	}
	return v
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
