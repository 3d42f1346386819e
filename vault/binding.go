package vault

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/internal/within"
)

// Binding says which vault and project a working directory uses.
type Binding struct {
	Vault   string // absolute path of the vault folder
	Project string // may be "" when only a vault is bound
	Source  string // where it came from: "env", a .lore.yaml path, or the bindings file
	// Workspace is the code folder bound (the bindings file's workspace,
	// the .lore.yaml's folder, the working folder for LORE_VAULT); "" when
	// lore runs in the vault itself. Its git repository is the code the
	// notes' citations are checked against.
	Workspace string
}

// WorkspaceFile is the per-workspace binding file, found walking up.
const WorkspaceFile = ".lore.yaml"

type workspaceFile struct {
	Vault   string `yaml:"vault"`
	Project string `yaml:"project"`
}

type bindingsFile struct {
	Bindings []userBinding `yaml:"bindings"`
}

type userBinding struct {
	Workspace string `yaml:"workspace"`
	Vault     string `yaml:"vault"`
	Project   string `yaml:"project"`
}

// BindingsPath is the user's bindings file: <user config dir>/lore/bindings.yaml.
func BindingsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", Errorf(CodeConfig, "no user config folder for the bindings file: %v", err)
	}
	return filepath.Join(dir, "lore", "bindings.yaml"), nil
}

// ResolveBinding finds the binding for cwd: LORE_VAULT/LORE_PROJECT from
// getenv, else the binding the person made with `lore bind` (the longest
// matching workspace in the bindings file), else a .lore.yaml in cwd or a
// parent, else the vault cwd is in (vaultFolder), with no project. A .lore.yaml that disagrees with the person's binding is refused
// with an error naming both: a file in the workspace (an agent can write
// one, a pull can bring one) never re-binds what the person bound. No
// binding is a CodeUnbound error that says how to make one.
func ResolveBinding(cwd string, getenv func(string) string, bindingsPath string) (Binding, error) {
	if v := getenv("LORE_VAULT"); v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return Binding{}, err
		}
		return CheckProject(Binding{Vault: abs, Project: getenv("LORE_PROJECT"), Source: "env", Workspace: cwd})
	}
	file, found, err := workspaceBinding(cwd)
	if err != nil {
		return Binding{}, err
	}
	if bindingsPath != "" {
		bf, err := readBindings(bindingsPath)
		if err != nil {
			return Binding{}, err
		}
		best := -1
		for i, b := range bf.Bindings {
			if Within(b.Workspace, cwd) && (best < 0 || len(b.Workspace) > len(bf.Bindings[best].Workspace)) {
				best = i
			}
		}
		if best >= 0 {
			b := bf.Bindings[best]
			bound := Binding{Vault: b.Vault, Project: b.Project, Source: bindingsPath, Workspace: b.Workspace}
			if found && !sameBinding(file, bound) {
				return Binding{}, Errorf(CodeConfig, "%s binds this folder to vault %s, project %q, but you bound %s to vault %s, project %q (lore bind): a file in the workspace does not change your binding. Remove %s, or run lore bind again to choose", file.Source, file.Vault, file.Project, b.Workspace, b.Vault, b.Project, file.Source)
			}
			return CheckProject(bound)
		}
	}
	if found {
		return CheckProject(file)
	}
	if dir, ok := vaultFolder(cwd); ok {
		return Binding{Vault: dir, Source: filepath.Join(dir, ConfigFile)}, nil
	}
	return Binding{}, Errorf(CodeUnbound, "%s is not bound to a vault: run `lore bind --vault DIR --project NAME` here, add a %s with `vault:` and `project:`, or set LORE_VAULT and LORE_PROJECT", cwd, WorkspaceFile)
}

// vaultFolder finds the vault cwd is in: the nearest folder, cwd or a
// parent inside the same git repository, that holds lore.yaml. A person who
// types lore in their notes folder means that vault, with no project: its
// published memory, and every project's Drafts to review.
func vaultFolder(cwd string) (string, bool) {
	for d := cwd; ; {
		if st, err := os.Stat(filepath.Join(d, ConfigFile)); err == nil && st.Mode().IsRegular() {
			return d, true
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", false // the repository's root: a lore.yaml above it is another repository's
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// workspaceBinding reads the .lore.yaml nearest cwd (in it or a parent).
func workspaceBinding(cwd string) (Binding, bool, error) {
	for d := cwd; ; {
		p := filepath.Join(d, WorkspaceFile)
		data, err := ReadConfigFile(p)
		if err != nil && !isMissing(err) {
			return Binding{}, false, err
		}
		if err == nil {
			var wf workspaceFile
			if err := strictYAML(data, &wf); err != nil {
				return Binding{}, false, Errorf(CodeConfig, "%s: %s", p, yamlError(err, data))
			}
			if wf.Vault == "" {
				return Binding{}, false, Errorf(CodeConfig, "%s: `vault:` is missing", p)
			}
			v := wf.Vault
			if !filepath.IsAbs(v) {
				v = filepath.Join(d, v)
			}
			return Binding{Vault: filepath.Clean(v), Project: wf.Project, Source: p, Workspace: d}, true, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Binding{}, false, nil
		}
		d = parent
	}
}

// sameBinding reports whether two bindings name one vault folder (through
// symlinks too) and one project.
func sameBinding(a, b Binding) bool {
	if a.Project != b.Project {
		return false
	}
	if filepath.Clean(a.Vault) == filepath.Clean(b.Vault) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a.Vault)
	rb, err2 := filepath.EvalSymlinks(b.Vault)
	return err1 == nil && err2 == nil && ra == rb
}

// CheckProject refuses a binding whose project is not a valid project name.
func CheckProject(b Binding) (Binding, error) {
	if b.Project != "" && !ValidProjectName(b.Project) {
		return Binding{}, Errorf(CodeConfig, "project %q (from %s) is not a valid project name (%s)", b.Project, b.Source, ProjectNameRules)
	}
	return b, nil
}

// Within reports whether dir is base or inside it (both cleaned, absolute
// or both relative; no symlink is followed): within.Dir.
func Within(base, dir string) bool { return within.Dir(base, dir) }

func strictYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func readBindings(p string) (bindingsFile, error) {
	var bf bindingsFile
	data, err := ReadConfigFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return bf, nil
	}
	if err != nil {
		return bf, fmt.Errorf("read bindings %s: %w", p, err)
	}
	if err := strictYAML(data, &bf); err != nil {
		return bf, Errorf(CodeConfig, "%s: %s", p, yamlError(err, data))
	}
	return bf, nil
}

// Bind records workspace → (vault, project) in the bindings file at p, replacing
// an earlier binding of the same workspace. The file is replaced atomically.
func Bind(p, workspace, vaultDir, project string) error {
	if !ValidProjectName(project) {
		return Errorf(CodeInvalid, "project %q is not a valid project name (%s)", project, ProjectNameRules)
	}
	bf, err := readBindings(p)
	if err != nil {
		return err
	}
	out := bf.Bindings[:0]
	for _, b := range bf.Bindings {
		if b.Workspace != workspace {
			out = append(out, b)
		}
	}
	bf.Bindings = append(out, userBinding{Workspace: workspace, Vault: vaultDir, Project: project})
	data, err := yaml.Marshal(bf)
	if err != nil {
		return err
	}
	return WriteFileAtomic(p, data)
}

// WriteFileAtomic writes data to p through a temporary file and a rename, so a
// reader never sees half a file.
func WriteFileAtomic(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+filepath.Base(p)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// WorkspaceBinding is one entry of the bindings file.
type WorkspaceBinding struct {
	Workspace, Vault, Project string
}

// ListBindings returns the bindings file's entries (none when it is missing).
func ListBindings(p string) ([]WorkspaceBinding, error) {
	bf, err := readBindings(p)
	if err != nil {
		return nil, err
	}
	out := make([]WorkspaceBinding, len(bf.Bindings))
	for i, b := range bf.Bindings {
		out[i] = WorkspaceBinding(b)
	}
	return out, nil
}
