package hook

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A Git is a git command in a shell command line that changes what the
// team shares: a commit (the guard checks what it would commit) or a push.
type Git struct {
	Verb string // "commit" or "push"
	Dir  string // git -C DIR, relative to the hook's cwd ("" for it)
	All  bool   // commit -a / --all, -o, -i or pathspecs: the work tree's changes, not only the staged ones
	Args []string
	// Paths are a commit's pathspecs.
	Paths []string
	// MaybeAlias: the verb is none of git's own; the caller asks the
	// repository's config whether it is an alias (which may commit).
	MaybeAlias bool
}

// gitOptionsWithValue are git's global options that take the next word.
var gitOptionsWithValue = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": true, "--config-env": true}

// sudoWithValue are sudo's options that take the next word.
var sudoWithValue = map[string]bool{"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true}

// GitCommands returns the commits and pushes a shell command line runs, in
// order, as a shell parses it: every simple command of &&, ||, ;, pipes,
// subshells and $(…), after its variable assignments, and through env, sudo,
// command, exec and the wrappers that run their arguments as a command
// (timeout, nohup, stdbuf, …). A line that does not parse as shell has none
// (the agent then gets the pre-commit hook's check at the commit).
func GitCommands(line string) []Git {
	gits, _ := Analyze(line)
	return gits
}

// A Suspect is a command that may commit, or skip the hooks that check a
// commit, in a form the check cannot see through: it is refused with the
// reason and the plain form to use instead.
type Suspect struct {
	Command string // the simple command, as written
	Reason  string
}

// Analyze is GitCommands with the suspects: --no-verify (-n) on a commit,
// a shell's -c script or eval that runs git, a command word that expands
// at run time ($g, $(command -v git)), xargs running git, a git alias or
// -c alias.… (checked by the caller against the repository's config for
// a verb git does not have: Git.MaybeAlias), -c core.hooksPath, and
// update-ref or commit-tree, which write commits and branches with no hook
// at all.
func Analyze(line string) (gits []Git, suspects []Suspect) {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, nil
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		words := make([]string, 0, len(call.Args))
		for _, w := range call.Args {
			words = append(words, literal(w))
		}
		src := strings.Join(words, " ")
		if reason := suspect(words); reason != "" {
			suspects = append(suspects, Suspect{Command: src, Reason: reason})
			return true
		}
		if g, ok := gitCommand(words); ok {
			gits = append(gits, g)
		}
		return true
	})
	return gits, suspects
}

// gitVerbs are git's own commands that an alias cannot shadow, the ones an
// agent runs; a verb outside them may be an alias (Git.MaybeAlias).
var gitVerbs = map[string]bool{
	"add": true, "am": true, "apply": true, "bisect": true, "blame": true, "branch": true, "cat-file": true, "checkout": true,
	"cherry-pick": true, "clean": true, "clone": true, "commit": true, "config": true, "describe": true, "diff": true,
	"fetch": true, "grep": true, "init": true, "log": true, "ls-files": true, "ls-tree": true, "merge": true, "mv": true,
	"pull": true, "push": true, "rebase": true, "reflog": true, "remote": true, "reset": true, "restore": true, "rev-list": true,
	"rev-parse": true, "revert": true, "rm": true, "show": true, "stage": true, "stash": true, "status": true, "switch": true,
	"symbolic-ref": true, "tag": true, "worktree": true, "help": true, "version": true, "shortlog": true, "format-patch": true,
	"submodule": true, "notes": true, "gc": true, "fsck": true, "archive": true, "sparse-checkout": true, "update-index": true,
	"hash-object": true, "for-each-ref": true, "merge-base": true, "name-rev": true, "show-ref": true, "var": true,
}

// wrappers run their arguments as a command, after their own options (and,
// for some, one more word).
var wrappers = map[string]int{"timeout": 1, "nohup": 0, "stdbuf": 0, "setsid": 0, "ionice": 0, "chrt": 1, "taskset": 1, "unbuffer": 0, "nice": 0, "time": 0, "env": 0, "sudo": 0, "command": 0, "exec": 0, "doas": 0}

// unwrap drops the wrappers, options and variable assignments in front of
// a command.
func unwrap(words []string) []string {
	for len(words) > 0 {
		w := unescape(words[0])
		if extra, ok := wrappers[filepath.Base(w)]; ok {
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
				if w == "sudo" && sudoWithValue[words[0]] && len(words) > 1 {
					words = words[1:]
				}
				words = words[1:]
			}
			for ; extra > 0 && len(words) > 0; extra-- {
				words = words[1:] // timeout's duration, taskset's mask, chrt's priority
			}
			continue
		}
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			words = words[1:] // FOO=bar git commit
			continue
		}
		break
	}
	return words
}

// unescape drops the backslashes a shell drops from a word (\git is git).
func unescape(w string) string { return strings.ReplaceAll(w, `\`, "") }

// suspect is why a simple command is refused unchecked ("" when it is not).
func suspect(words []string) string {
	words = unwrap(words)
	if len(words) == 0 {
		return ""
	}
	cmd := filepath.Base(unescape(words[0]))
	rest := strings.Join(words[1:], " ")
	mentionsGit := strings.Contains(rest, "git")
	switch {
	case strings.Contains(words[0], "$") && (mentionsGit || strings.Contains(rest, "commit") || strings.Contains(rest, "update-ref")):
		return "the command is named by a variable or $(…), so what it runs cannot be checked; run git by its name"
	case (cmd == "bash" || cmd == "sh" || cmd == "zsh" || cmd == "dash" || cmd == "ksh") && hasShellScript(words[1:]) && mentionsGit:
		return "git inside a shell's -c script is not checked; run the git command itself"
	case cmd == "eval" && mentionsGit:
		return "git inside eval is not checked; run the git command itself"
	case cmd == "xargs" && mentionsGit:
		return "xargs gives git arguments the check cannot see; run git with its arguments written out"
	}
	if cmd != "git" {
		return ""
	}
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		opt, val := words[i], ""
		if name, v, ok := strings.Cut(opt, "="); ok && gitOptionsWithValue[name] {
			opt, val = name, v
		} else if gitOptionsWithValue[opt] && i+1 < len(words) {
			i++
			val = words[i]
		}
		if opt == "-c" || opt == "--config-env" {
			key := strings.ToLower(strings.SplitN(val, "=", 2)[0])
			if strings.HasPrefix(key, "alias.") || key == "core.hookspath" {
				return "git -c " + key + " changes what git runs or which hooks check it; run git without it"
			}
		}
		i++
	}
	if i >= len(words) {
		return ""
	}
	switch verb := unescape(words[i]); verb {
	case "update-ref", "commit-tree":
		return "git " + verb + " writes commits or branches with no hook to check them; commit with git commit"
	case "commit":
		for _, a := range words[i+1:] {
			if a == "--" {
				break
			}
			if a == "--no-verify" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && shortFlags(a[1:], 'n')) {
				return "git commit --no-verify (-n) skips the pre-commit hook that checks the rules; commit without it"
			}
		}
	}
	return ""
}

// hasShellScript reports whether a shell's arguments hold -c (alone or in
// a cluster such as -lc).
func hasShellScript(args []string) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a[1:], "c") {
			return true
		}
	}
	return false
}

// commitValueFlags are git commit's short options whose value follows
// (attached or as the next word): in a cluster, what follows one of them is
// its value, not more flags.
const commitValueFlags = "mFCctS"

// shortFlags reports whether a cluster of short options (without its dash)
// holds flag before any option that takes a value.
func shortFlags(cluster string, flag byte) bool {
	for i := 0; i < len(cluster); i++ {
		if cluster[i] == flag {
			return true
		}
		if strings.IndexByte(commitValueFlags, cluster[i]) >= 0 {
			return false
		}
	}
	return false
}

// literal is a word as the shell would pass it, its quotes removed; parts
// that expand at run time ($VAR, $(…)) are kept as written.
func literal(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					b.WriteString("$")
				}
			}
		default:
			b.WriteString("$")
		}
	}
	return b.String()
}

// gitCommand reads one simple command's words.
func gitCommand(words []string) (Git, bool) {
	words = unwrap(words)
	if len(words) < 2 || filepath.Base(unescape(words[0])) != "git" {
		return Git{}, false
	}
	var g Git
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		opt := words[i]
		if name, _, ok := strings.Cut(opt, "="); ok && gitOptionsWithValue[name] {
			i++
			continue
		}
		if gitOptionsWithValue[opt] && i+1 < len(words) {
			if opt == "-C" {
				g.Dir = filepath.Join(g.Dir, words[i+1])
			}
			i += 2
			continue
		}
		i++
	}
	if i >= len(words) {
		return Git{}, false
	}
	g.Verb, g.Args = unescape(words[i]), words[i+1:]
	switch g.Verb {
	case "commit":
		g.All, g.Paths = commitShape(g.Args)
		return g, true
	case "push":
		return g, true
	}
	if !gitVerbs[g.Verb] && !strings.HasPrefix(g.Verb, "-") {
		g.MaybeAlias = true
		return g, true
	}
	return Git{}, false
}

// commitLongWithValue are git commit's long options whose value may be the
// next word.
var commitLongWithValue = map[string]bool{"--message": true, "--file": true, "--author": true, "--date": true, "--template": true,
	"--reuse-message": true, "--reedit-message": true, "--fixup": true, "--squash": true, "--cleanup": true, "--trailer": true, "--gpg-sign": false}

// commitShape reads a commit's arguments: whether it commits every tracked
// change (-a, --all, and -o/--only, -i/--include and pathspecs, which take
// the work tree's version of the paths they name: the check then reads the
// work tree), and the pathspecs.
func commitShape(args []string) (all bool, paths []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			paths = append(paths, args[i+1:]...)
			i = len(args)
		case a == "--all" || a == "--only" || a == "--include" || a == "--pathspec-from-file" || strings.HasPrefix(a, "--pathspec-from-file="):
			all = true
		case strings.HasPrefix(a, "--"):
			if commitLongWithValue[a] && i+1 < len(args) {
				i++
			}
		case len(a) > 1 && a[0] == '-':
			cluster := a[1:]
			for j := 0; j < len(cluster); j++ {
				c := cluster[j]
				if c == 'a' || c == 'o' || c == 'i' {
					all = true
				}
				if strings.IndexByte(commitValueFlags, c) >= 0 {
					if j == len(cluster)-1 && i+1 < len(args) && c != 'S' {
						i++ // the value is the next word
					}
					break
				}
			}
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) > 0 {
		all = true
	}
	return all, paths
}

// PushedBranches are the branches a push names on the remote ("" in the
// list for a push of the current branch, with no refspec).
func (g Git) PushedBranches() (remote string, branches []string) {
	var pos []string
	for _, a := range g.Args {
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 {
		return "", []string{""}
	}
	remote = pos[0]
	if len(pos) == 1 {
		return remote, []string{""}
	}
	for _, spec := range pos[1:] {
		spec = strings.TrimPrefix(spec, "+")
		if _, dst, ok := strings.Cut(spec, ":"); ok {
			spec = dst
		}
		branches = append(branches, strings.TrimPrefix(spec, "refs/heads/"))
	}
	return remote, branches
}
