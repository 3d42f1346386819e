package guard

import (
	"path"
	"strings"
)

// Match reports whether a slash-separated file path matches a rule's glob.
// A glob with no "/" matches the file's name in any folder ("*.sh"), as in
// .gitignore; one with "/" is matched from the repository's root, where "**"
// stands for any number of folders ("scripts/**", "**/*.go", "mcp/**/*.go").
// Other wildcards are path.Match's, within one path segment.
func Match(glob, p string) bool {
	glob = strings.TrimPrefix(glob, "./")
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(p))
		return ok
	}
	return matchParts(strings.Split(strings.TrimPrefix(glob, "/"), "/"), strings.Split(p, "/"))
}

func matchParts(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			if len(g) == 1 {
				return true
			}
			for i := 0; i <= len(p); i++ {
				if matchParts(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// validGlob reports a malformed glob.
func validGlob(glob string) error {
	for _, part := range strings.Split(glob, "/") {
		if part == "**" {
			continue
		}
		if _, err := path.Match(part, ""); err != nil {
			return err
		}
	}
	return nil
}
