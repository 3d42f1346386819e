package guard

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/markdown"
	"github.com/lore-memory/lore/vault"
)

// Committed returns the rule sources as the org ref's committed tree holds
// them: the index reads the vault's work tree, where an agent whose
// workspace holds the vault (memory/ in a code repository), a sync client
// or a plugin can edit a rule note, or plant one, without anyone's review;
// and where a person who checked out a Draft branch to review it finds
// that Draft's rules in force. So every note whose work tree differs from
// the org ref (edited, added, deleted, or another branch checked out) is
// read from the org ref instead: its committed rules apply, an uncommitted
// note's rules do not. Notes say so when it matters: rule notes changed
// and not committed, another branch checked out in the vault. A vault with
// no commit on its org ref yet (a new one) has only its work tree, and the
// sources are returned as they are.
func Committed(ctx context.Context, v *vault.Vault, src []Source) (out []Source, notes []string, err error) {
	org, ref := v.Config.OrgRef, v.Config.OrgBranch()
	git := func(args ...string) ([]byte, error) { return gitcli.Run(ctx, v.Root, nil, args...) }
	changed, prefix, err := uncommitted(ctx, v, ref)
	if err != nil {
		return nil, nil, err
	}
	if changed == nil {
		return src, nil, nil
	}
	pending := 0
	for _, s := range src {
		if !changed[s.Path] {
			out = append(out, s)
		} else if len(s.Rules) > 0 {
			pending++
		}
	}
	if pending > 0 {
		notes = append(notes, plural(pending, "rule note")+" changed in the vault's work tree and not committed: the committed rules apply until the change is committed")
	}
	for p := range changed {
		data, err := git("cat-file", "blob", ref+":"+prefix+p)
		if err != nil {
			continue // not in the org ref: an uncommitted note's rules do not apply
		}
		r, err := markdown.Parse(p, data)
		if err != nil || (len(r.Rules) == 0 && r.Front.Tier == "") {
			continue
		}
		out = append(out, Source{ResourceID: r.ID, Path: r.Path, Title: r.Title, Description: r.Description, Status: r.Status(),
			Tier: r.Front.Tier, Tags: []string(r.Front.Tags), Rules: r.Rules})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	short := org
	if head, err := git("symbolic-ref", "-q", "--short", "HEAD"); err != nil {
		notes = append(notes, "the vault's HEAD is detached: the rules are read from "+short)
	} else if b := strings.TrimSpace(string(head)); b != "" && b != short {
		notes = append(notes, "the vault has "+b+" checked out, not "+short+": the rules are read from "+short)
	}
	return out, notes, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Uncommitted returns the vault's notes whose work tree differs from the
// org ref (edited, added, deleted, or another branch checked out), by
// vault path; nil when the org ref has no commit yet.
func Uncommitted(ctx context.Context, v *vault.Vault) (map[string]bool, error) {
	changed, _, err := uncommitted(ctx, v, v.Config.OrgBranch())
	return changed, err
}

// uncommitted is Uncommitted against ref, with the vault's folder in its
// repository ("" or "memory/"). With the org branch checked out in a plain
// repository (the usual case), one git status says it all; otherwise the
// work tree is compared with ref itself.
func uncommitted(ctx context.Context, v *vault.Vault, ref string) (changed map[string]bool, prefix string, err error) {
	if head, err := os.ReadFile(filepath.Join(v.GitDir, "HEAD")); err == nil && strings.TrimSpace(string(head)) == "ref: "+ref && filepath.Base(v.GitDir) == ".git" {
		if rel, ok := within.Rel(filepath.Dir(v.GitDir), v.Root); ok {
			if rel == "." {
				rel = ""
			} else {
				rel = filepath.ToSlash(rel) + "/"
			}
			if out, err := gitcli.Run(ctx, v.Root, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."); err == nil {
				changed = map[string]bool{}
				for _, rec := range strings.Split(string(out), "\x00") {
					if len(rec) < 4 {
						continue
					}
					if p, ok := strings.CutPrefix(rec[3:], rel); ok && strings.HasSuffix(strings.ToLower(p), ".md") {
						changed[p] = true
					}
				}
				return changed, rel, nil
			}
		}
	}
	return uncommittedSlow(ctx, v, ref)
}

func uncommittedSlow(ctx context.Context, v *vault.Vault, ref string) (changed map[string]bool, prefix string, err error) {
	// Three git commands at once (a prompt hook pays for this on every
	// prompt): the vault's folder in its repository, what differs from the
	// org ref, what git does not track. An org ref with no commit yet
	// makes the diff fail, and there is nothing committed to compare with.
	var outs [3][]byte
	var errs [3]error
	var wg sync.WaitGroup
	for i, args := range [][]string{
		{"rev-parse", "--show-prefix"},
		{"diff", "--name-only", "-z", "--no-renames", "--relative", ref + "^{commit}", "--", "."},
		{"ls-files", "--others", "--exclude-standard", "-z"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = gitcli.Run(ctx, v.Root, nil, args...)
		}()
	}
	wg.Wait()
	if errs[1] != nil {
		if _, err := gitcli.Run(ctx, v.Root, nil, "rev-parse", "--verify", "-q", ref+"^{commit}"); err != nil {
			return nil, "", nil // no commit on the org ref yet
		}
		return nil, "", errs[1]
	}
	for _, err := range errs {
		if err != nil {
			return nil, "", err
		}
	}
	prefixOut, diff, untracked := outs[0], outs[1], outs[2]
	changed = map[string]bool{}
	for _, p := range strings.Split(string(diff)+string(untracked), "\x00") {
		if strings.HasSuffix(strings.ToLower(p), ".md") {
			changed[p] = true
		}
	}
	return changed, strings.TrimSpace(string(prefixOut)), nil
}
