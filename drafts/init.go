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
	OrgRef      string   // the adopted repository's branch, when it is not main
	Committed   int      // files in the initial commit (0 when the repo existed)
	Notes       int      // memory files found
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
	for _, f := range []struct{ name, body string }{
		{vault.ConfigFile, config},
		{"LORE.md", vault.GuidelinesTemplate},
	} {
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
	files, _, err := v.Scan()
	if err != nil {
		return res, err
	}
	res.Notes = len(files)
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

// Signature is the author lore commits as: git's user.name and user.email
// (repository, then global config), else "lore <lore@localhost>".
func Signature(repo *git.Repository, when time.Time) *object.Signature {
	sig := &object.Signature{Name: "lore", Email: "lore@localhost", When: when}
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
