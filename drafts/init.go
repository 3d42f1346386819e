package drafts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/lore-memory/lore/vault"
)

// InitResult says what Init did.
type InitResult struct {
	Root        string
	CreatedRepo bool
	Wrote       []string // files Init created (never an existing one)
	// Ignore is what a .gitignore that was there already lacks of
	// Obsidian's per-device files (Init does not edit a person's file).
	Ignore []string
	// NoIdentity: git has no user.name and user.email here, so lore
	// commits as "lore <lore@localhost>" until they are set.
	NoIdentity bool
	OrgRef     string // the adopted repository's branch, when it is not main
	Committed  int    // files in the initial commit (0 when the repo existed)
	Notes      int    // memory files found
}

// InitRepo makes dir (created if needed) a git repository on branch main
// unless it is inside one already — or, with own, unless it is the top of one
// itself (a repository nested in another is then created) — and reports
// whether it created it.
func InitRepo(dir string, own bool) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", dir, err)
	}
	if own {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return false, nil
		}
	} else if _, err := vault.FindGitDir(dir); err == nil {
		return false, nil
	}
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return false, fmt.Errorf("git init %s: %w", dir, err)
	}
	return true, nil
}

// Init makes dir a vault: it creates the folder and a git repository when
// there is none (branch main; with ownRepo, also when dir is only inside
// another repository), writes lore.yaml and LORE.md only when they are
// missing, and — only when it created the repository — commits what is there so
// the org ref holds it. It never rewrites an existing file.
func Init(dir string, ownRepo bool, now func() time.Time) (InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return InitResult{}, err
	}
	res := InitResult{Root: abs}
	if res.CreatedRepo, err = InitRepo(abs, ownRepo); err != nil {
		return res, err
	}
	// An adopted repository keeps its own branch as the org ref (a
	// repository on master once got org_ref: main, and every store failed).
	config := vault.ConfigTemplate
	if !res.CreatedRepo {
		if gd, err := vault.FindGitDir(abs); err == nil {
			if b := strings.TrimPrefix(headBranch(gd), "refs/heads/"); b != "" && b != "main" && vault.CheckBranchName(b) == nil {
				config = strings.Replace(config, "\norg_ref: main\n", "\norg_ref: "+b+"\n", 1)
				res.OrgRef = b
			}
		}
	}
	files := []struct{ name, body string }{
		{vault.ConfigFile, config},
		{"LORE.md", vault.Guidelines(topFolders(abs))},
	}
	if st, err := os.Stat(filepath.Join(abs, ".obsidian")); err == nil && st.IsDir() {
		if have, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
			res.Ignore = missingLines(string(have), obsidianIgnores)
		} else {
			files = append(files, struct{ name, body string }{".gitignore", obsidianGitignore})
		}
	}
	for _, f := range files {
		p := filepath.Join(abs, f.name)
		if _, err := os.Lstat(p); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
		if err := vault.WriteFileAtomic(p, []byte(f.body)); err != nil {
			return res, fmt.Errorf("write %s: %w", p, err)
		}
		res.Wrote = append(res.Wrote, f.name)
	}
	v, err := vault.Open(abs)
	if err != nil {
		return res, err
	}
	defer v.Close()
	notes, _, err := v.Scan()
	if err != nil {
		return res, err
	}
	res.Notes = len(notes)
	if repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true}); err == nil {
		res.NoIdentity = !HasIdentity(repo)
	}
	if res.CreatedRepo {
		repo, err := git.PlainOpen(abs)
		if err == nil {
			res.Committed, err = commitAll(abs, repo, now())
		}
		if err != nil {
			// All or nothing: a repository without its first commit would
			// be adopted as it is by the next init and refuse every store.
			os.RemoveAll(filepath.Join(abs, ".git"))
			for _, name := range res.Wrote {
				os.Remove(filepath.Join(abs, name))
			}
			return InitResult{Root: abs}, fmt.Errorf("%w (nothing was left behind: the new repository and the files lore wrote were removed)", err)
		}
	}
	return res, nil
}

// commitAll commits every file in a new repository with the git CLI (which
// takes any file name git allows; go-git refuses some, such as names with a
// newline) as the person from git's configuration, hooks and signing off.
func commitAll(dir string, repo *git.Repository, when time.Time) (int, error) {
	sig := Signature(repo, when)
	ctx := context.Background()
	if _, err := runGit(ctx, dir, "add", "-A"); err != nil {
		return 0, err
	}
	// Per-device files are never in the first commit, whatever a
	// .gitignore the folder already had says (init names the lines to add).
	if _, err := runGit(ctx, dir, append([]string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}, obsidianIgnores...)...); err != nil {
		return 0, err
	}
	out, err := runGit(ctx, dir, "diff", "--cached", "--name-only", "-z")
	if err != nil {
		return 0, err
	}
	n := strings.Count(out, "\x00")
	if _, err := runGit(ctx, dir, "-c", "user.name="+sig.Name, "-c", "user.email="+sig.Email, "-c", "commit.gpgsign=false",
		"commit", "-q", "--no-verify", "--allow-empty", "-m", "Start a lore vault"); err != nil {
		return 0, err
	}
	return n, nil
}

// obsidianIgnores are Obsidian's per-device files: the open panes and the
// local trash, which change on every device and are not memory.
var obsidianIgnores = []string{".obsidian/workspace.json", ".obsidian/workspace-mobile.json", ".obsidian/workspaces.json", ".trash/"}

const obsidianGitignore = "# Obsidian's per-device files (lore init wrote this file; edit it as you like)\n.obsidian/workspace.json\n.obsidian/workspace-mobile.json\n.obsidian/workspaces.json\n.trash/\n"

// missingLines returns the lines of want that text does not have.
func missingLines(text string, want []string) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var out []string
	for _, w := range want {
		if !have[w] && !have["/"+w] {
			out = append(out, w)
		}
	}
	return out
}

// topFolders returns the vault's top-level folders that hold notes (not
// dot-folders), with how many notes each holds, by name.
func topFolders(root string) []vault.Folder {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []vault.Folder
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "projects" {
			continue
		}
		n := 0
		filepath.WalkDir(filepath.Join(root, e.Name()), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(d.Name()), ".md") {
				n++
			}
			return nil
		})
		if n > 0 {
			out = append(out, vault.Folder{Name: e.Name(), Notes: n})
		}
	}
	return out
}

// HasIdentity reports whether git's configuration names the person lore
// commits as (user.name and user.email, in the repository or globally).
func HasIdentity(repo *git.Repository) bool {
	if os.Getenv("GIT_AUTHOR_NAME") != "" && os.Getenv("GIT_AUTHOR_EMAIL") != "" {
		return true
	}
	for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope} {
		if cfg, err := repo.ConfigScoped(scope); err == nil && cfg.User.Name != "" && cfg.User.Email != "" {
			return true
		}
	}
	return false
}

// Signature is the author lore commits as: GIT_AUTHOR_NAME and
// GIT_AUTHOR_EMAIL, else git's user.name and user.email (repository, then
// global config), else "lore <lore@localhost>" (lore init and doctor say
// so, with the command that sets them).
func Signature(repo *git.Repository, when time.Time) *object.Signature {
	sig := &object.Signature{Name: "lore", Email: "lore@localhost", When: when}
	if n, m := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL"); n != "" && m != "" {
		sig.Name, sig.Email = n, m // as git takes them
		return sig
	}
	for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope} {
		cfg, err := repo.ConfigScoped(scope)
		if err != nil {
			continue
		}
		if cfg.User.Name != "" && cfg.User.Email != "" {
			sig.Name, sig.Email = cfg.User.Name, cfg.User.Email
			return sig
		}
	}
	return sig
}
