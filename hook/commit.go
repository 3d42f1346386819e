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
	All  bool   // commit -a / --all: the tracked files' changes, not only the staged ones
	Args []string
}

// gitOptionsWithValue are git's global options that take the next word.
var gitOptionsWithValue = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": true, "--config-env": true}

// sudoWithValue are sudo's options that take the next word.
var sudoWithValue = map[string]bool{"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true}

// GitCommands returns the commits and pushes a shell command line runs, in
// order, as a shell parses it: every simple command of &&, ||, ;, pipes,
// subshells and $(…), after its variable assignments, and through env, sudo,
// command and exec. A line that does not parse as shell has none (the agent
// then gets the pre-commit hook's check at the commit).
func GitCommands(line string) []Git {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil
	}
	var out []Git
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		words := make([]string, 0, len(call.Args))
		for _, w := range call.Args {
			words = append(words, literal(w))
		}
		if g, ok := gitCommand(words); ok {
			out = append(out, g)
		}
		return true
	})
	return out
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
	for len(words) > 0 {
		switch w := words[0]; {
		case w == "env" || w == "sudo" || w == "command" || w == "exec" || w == "nice" || w == "time":
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
				if w == "sudo" && sudoWithValue[words[0]] && len(words) > 1 {
					words = words[1:]
				}
				words = words[1:]
			}
			continue
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			words = words[1:] // FOO=bar git commit
			continue
		}
		break
	}
	if len(words) < 2 || filepath.Base(words[0]) != "git" {
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
	g.Verb, g.Args = words[i], words[i+1:]
	switch g.Verb {
	case "commit":
		for _, a := range g.Args {
			if a == "--" {
				break
			}
			if a == "--all" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "a")) {
				g.All = true
			}
		}
		return g, true
	case "push":
		return g, true
	}
	return Git{}, false
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
