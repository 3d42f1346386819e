package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/lore-memory/lore/internal/lazyre"
)

// ConfigFile is the name of the vault's configuration file at its root.
const ConfigFile = "lore.yaml"

// Config is lore.yaml. Every key is optional; an unknown key is an error that
// names it, so a typo never silently falls back to a default.
type Config struct {
	// OrgRef is the branch that holds published memory. Default "main".
	OrgRef string `yaml:"org_ref"`
	// Guidelines is the vault-relative path of the guideline file. Default "LORE.md".
	Guidelines string `yaml:"guidelines"`
	// Projects names the vault's consumers; resources under projects/<name>/
	// belong to that project.
	Projects map[string]ProjectConfig `yaml:"projects"`
	// Embedding chooses the embedding model (used from the hybrid-retrieval issue on).
	Embedding EmbeddingConfig `yaml:"embedding"`
	// Retrieval holds assembly limits.
	Retrieval RetrievalConfig `yaml:"retrieval"`
	// Rerank configures an optional cross-encoder endpoint (off when empty).
	Rerank RerankConfig `yaml:"rerank"`
	// AutoPublish is kept so older lore.yaml files still load; it is
	// ignored: nothing an agent stores is published (drafts/doc.go), and
	// lore doctor says so.
	AutoPublish []string `yaml:"auto_publish"`
	// Remote is the git remote `lore sync` pushes Drafts to. Default "origin".
	Remote string `yaml:"remote"`
	// FetchEverySeconds is how often a running lore mcp fetches the remote
	// for teammates' Drafts and published memory, with nothing of its own
	// to push (default 300; a negative value: never, only when it pushes).
	FetchEverySeconds int `yaml:"fetch_every_seconds"`
	// Journal configures the journal tools' notes (journal/<user>/<project>/).
	Journal JournalConfig `yaml:"journal"`
	// Folders maps flush_session categories to vault folders (defaults:
	// decision → decisions, log → logs, concept and card → concepts, skill →
	// skills; any other category is its own folder name).
	Folders map[string]string `yaml:"folders"`
	// Offload bounds the logs offload_context keeps for the vault (under
	// the git directory's lore/offload/): the oldest are collected first.
	Offload OffloadConfig `yaml:"offload"`
	// CommitEdits: lore records a person's uncommitted edits to notes as
	// their own commit on the org ref before it merges Drafts, and on
	// `lore commit` (default true). false: people commit themselves, and a
	// merge that touches an uncommitted note waits for them.
	CommitEdits *bool `yaml:"commit_edits"`
	// Hooks bounds what lore hook adds to an agent's context.
	Hooks HooksConfig `yaml:"hooks"`
}

// HooksConfig bounds lore hook; zero is the default.
type HooksConfig struct {
	PromptBudget int `yaml:"prompt_budget"` // tokens a prompt's memory may take (default 600)
	DeadlineMS   int `yaml:"deadline_ms"`   // past it a hook prints nothing (default 2000)
}

// Defaults of HooksConfig.
const (
	DefaultHookPromptBudget = 600
	DefaultHookDeadline     = 2 * time.Second
)

// HookLimits returns lore hook's prompt budget and deadline.
func (c Config) HookLimits() (budget int, deadline time.Duration) {
	budget, deadline = c.Hooks.PromptBudget, time.Duration(c.Hooks.DeadlineMS)*time.Millisecond
	if budget <= 0 {
		budget = DefaultHookPromptBudget
	}
	if deadline <= 0 {
		deadline = DefaultHookDeadline
	}
	return budget, deadline
}

// FetchEvery is how often lore mcp fetches the remote (0: never by itself).
func (c Config) FetchEvery() time.Duration {
	switch {
	case c.FetchEverySeconds < 0:
		return 0
	case c.FetchEverySeconds == 0:
		return 5 * time.Minute
	}
	return time.Duration(c.FetchEverySeconds) * time.Second
}

// CommitsEdits reports whether lore commits a person's pending edits.
func (c Config) CommitsEdits() bool { return c.CommitEdits == nil || *c.CommitEdits }

// OffloadConfig bounds the offloaded logs of a vault; zero is the default.
type OffloadConfig struct {
	MaxMB    int `yaml:"max_mb"`    // all logs together (default 256)
	MaxNodes int `yaml:"max_nodes"` // how many logs (default 1000)
}

// Defaults of OffloadConfig.
const (
	DefaultOffloadMB    = 256
	DefaultOffloadNodes = 1000
)

// OffloadLimits returns the offloaded logs' bounds: bytes and count.
func (c Config) OffloadLimits() (maxBytes int64, maxNodes int) {
	mb, n := c.Offload.MaxMB, c.Offload.MaxNodes
	if mb <= 0 {
		mb = DefaultOffloadMB
	}
	if n <= 0 {
		n = DefaultOffloadNodes
	}
	return int64(mb) << 20, n
}

// JournalConfig configures the journal profile.
type JournalConfig struct {
	// AutoPublish publishes the journal's remembered notes (new notes in a
	// namespace's own folder) as soon as they are stored (default true).
	AutoPublish *bool `yaml:"auto_publish"`
}

// JournalAutoPublish reports whether journal notes merge on store.
func (c Config) JournalAutoPublish() bool {
	return c.Journal.AutoPublish == nil || *c.Journal.AutoPublish
}

// Folder returns the vault folder of a flush_session category.
func (c Config) Folder(category string) string {
	category = strings.ToLower(strings.TrimSpace(category))
	if f, ok := c.Folders[category]; ok && f != "" {
		return strings.Trim(f, "/")
	}
	switch category {
	case "", "log":
		return "logs"
	case "decision", "adr":
		return "decisions"
	case "concept", "card":
		return "concepts"
	case "skill":
		return "skills"
	case "incident":
		return "incidents"
	}
	return category
}

// ProjectConfig describes one project.
type ProjectConfig struct {
	Description string `yaml:"description"`
}

// EmbeddingConfig selects the embedder: "builtin" (default), "none", "openai" or "ollama".
type EmbeddingConfig struct {
	Provider  string `yaml:"provider"`
	Endpoint  string `yaml:"endpoint"`
	Model     string `yaml:"model"`
	Dimension int    `yaml:"dimension"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// RerankConfig configures an HTTP /rerank endpoint (Cohere, Jina or TEI style).
type RerankConfig struct {
	Endpoint  string `yaml:"endpoint"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// RetrievalConfig holds the assembly limits of activate. Zero means the default.
type RetrievalConfig struct {
	MaxFragments int    `yaml:"max_fragments"`
	PerResource  int    `yaml:"per_resource"`
	TokenBudget  int    `yaml:"token_budget"`
	Fusion       string `yaml:"fusion"` // "score" (default) or "rrf"
	// VectorWeight is the weight of cosine similarity in score fusion
	// (default 0.3; 0 to 10). A stronger embedding model earns more.
	VectorWeight float64 `yaml:"vector_weight"`
}

var yamlLine = lazyre.New(`line (\d+): `)

// yamlError rewrites yaml.v3's messages so each names the source line it is
// about ("line 3 (`retries: many`): cannot unmarshal …"), since type errors do
// not name the key.
func yamlError(err error, data []byte) string {
	lines := strings.Split(string(data), "\n")
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = yamlLine().ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(yamlLine().FindStringSubmatch(m)[1])
		if n < 1 || n > len(lines) {
			return m
		}
		return fmt.Sprintf("line %d (`%s`): ", n, strings.TrimSpace(lines[n-1]))
	})
	// "field orgref not found in type vault.Config": name the key and the
	// keys that are allowed there, not a Go type.
	msg = unknownField().ReplaceAllStringFunc(msg, func(m string) string {
		sub := unknownField().FindStringSubmatch(m)
		if keys := allowedKeys[sub[2]]; keys != "" {
			return fmt.Sprintf("unknown key %q (allowed here: %s)", sub[1], keys)
		}
		return fmt.Sprintf("unknown key %q", sub[1])
	})
	return strings.Join(strings.Fields(msg), " ")
}

var unknownField = lazyre.New(`field (\S+) not found in type ([\w.]+)`)

// allowedKeys lists, by Go type, the keys lore.yaml allows in that mapping.
var allowedKeys = map[string]string{}

func init() {
	for name, v := range map[string]any{"vault.Config": Config{}, "vault.JournalConfig": JournalConfig{}, "vault.ProjectConfig": ProjectConfig{},
		"vault.RetrievalConfig": RetrievalConfig{}, "vault.EmbeddingConfig": EmbeddingConfig{}, "vault.RerankConfig": RerankConfig{}} {
		t := reflect.TypeOf(v)
		var keys []string
		for i := 0; i < t.NumField(); i++ {
			if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
				keys = append(keys, k)
			}
		}
		allowedKeys[name] = strings.Join(keys, ", ")
	}
}

var projectName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ProjectNameRules says what a project name may be, for error messages.
const ProjectNameRules = `1–64 letters, digits, '.', '_' or '-', starting with a letter or digit; no "..", not ending in "." or ".lock"`

// ValidProjectName reports whether name can be a project: it becomes a
// folder and one segment of a git branch name, so besides letters, digits,
// '.', '_' and '-' it must pass git's ref-name rules (no "..", not ending in
// "." or ".lock").
func ValidProjectName(name string) bool {
	return projectName().MatchString(name) && ValidRefComponent(name)
}

// ValidRefComponent reports whether s can be one '/'-separated component of
// a git ref name (git check-ref-format): not empty, not starting with '.',
// not ending with '.' or ".lock", no "..", no "@{", not "@", and none of
// control characters, space, ~ ^ : ? * [ or backslash.
func ValidRefComponent(s string) bool {
	if s == "" || s == "@" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") ||
		strings.HasSuffix(s, ".lock") || strings.Contains(s, "..") || strings.Contains(s, "@{") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	return true
}

// CheckBranchName refuses an org_ref that is not a plain branch name: the
// short name under refs/heads/ (so "../../HEAD", "../tags/v1" or
// "refs/heads/main" are refused), each component valid for git, not "HEAD"
// and not starting with '-'.
func CheckBranchName(name string) error {
	bad := func(why string) error {
		return Errorf(CodeConfig, "%s: org_ref %q is not a branch name: %s (write the branch's short name, such as main)", ConfigFile, name, why)
	}
	switch {
	case name == "HEAD":
		return bad("HEAD is not a branch")
	case strings.HasPrefix(name, "-"):
		return bad("it starts with '-'")
	case strings.HasPrefix(name, "refs/"):
		return bad("give the short name, without refs/heads/")
	case !utf8.ValidString(name):
		return bad("it is not valid UTF-8")
	}
	for _, c := range strings.Split(name, "/") {
		if !ValidRefComponent(c) {
			return bad(fmt.Sprintf("%q is not a valid part of a git ref name", c))
		}
	}
	return nil
}

// DefaultConfig returns the configuration a vault without lore.yaml has.
func DefaultConfig() Config {
	return Config{OrgRef: "main", Guidelines: "LORE.md", Remote: "origin"}
}

// ParseConfig decodes lore.yaml strictly. The error names the file, the line and

// OrgBranch is the full ref name of the org ref (org_ref is a branch name,
// "main" by default).
func (c Config) OrgBranch() string { return "refs/heads/" + c.OrgRef }

// the offending key or value.
func ParseConfig(data []byte) (Config, error) {
	cfg := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, Errorf(CodeConfig, "%s: %s", ConfigFile, yamlError(err, data))
	}
	if cfg.OrgRef == "" {
		cfg.OrgRef = "main"
	}
	if err := CheckBranchName(cfg.OrgRef); err != nil {
		return Config{}, err
	}
	if cfg.Guidelines == "" {
		cfg.Guidelines = "LORE.md"
	}
	if cfg.Remote == "" {
		cfg.Remote = "origin"
	}
	for _, g := range cfg.AutoPublish {
		if _, err := path.Match(g, "x"); err != nil {
			return Config{}, Errorf(CodeConfig, "%s: auto_publish: %q is not a valid glob: %v", ConfigFile, g, err)
		}
	}
	guide, err := CleanPath(cfg.Guidelines)
	if err != nil {
		return Config{}, Errorf(CodeConfig, "%s: guidelines: %v", ConfigFile, err)
	}
	cfg.Guidelines = guide // as index rows name it: activate leaves it out by name
	for name := range cfg.Projects {
		if !ValidProjectName(name) {
			return Config{}, Errorf(CodeConfig, "%s: projects: %q is not a valid project name (%s)", ConfigFile, name, ProjectNameRules)
		}
	}
	if w := cfg.Retrieval.VectorWeight; w < 0 || w > 10 || w != w {
		return Config{}, Errorf(CodeConfig, "%s: retrieval.vector_weight: %v is not between 0 and 10", ConfigFile, w)
	}
	switch cfg.Retrieval.Fusion {
	case "", "score", "rrf":
	default:
		return Config{}, Errorf(CodeConfig, "%s: retrieval.fusion: %q is not one of score, rrf", ConfigFile, cfg.Retrieval.Fusion)
	}
	if cfg.Offload.MaxMB < 0 || cfg.Offload.MaxNodes < 0 {
		return Config{}, Errorf(CodeConfig, "%s: offload: max_mb and max_nodes are positive (0 or absent: the defaults, %d MB and %d logs)", ConfigFile, DefaultOffloadMB, DefaultOffloadNodes)
	}
	switch cfg.Embedding.Provider {
	case "", "builtin", "none", "openai", "ollama":
	default:
		return Config{}, Errorf(CodeConfig, "%s: embedding.provider: %q is not one of builtin, none, openai, ollama", ConfigFile, cfg.Embedding.Provider)
	}
	return cfg, nil
}

// LoadConfig reads lore.yaml from the vault root; a missing file gives the defaults.
func LoadConfig(root string) (Config, error) {
	data, err := ReadConfigFile(filepath.Join(root, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	return ParseConfig(data)
}
