package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/lore-memory/lore/fts"
)

// version is lore's version; a build may set it (-ldflags "-X main.version=…").
var version = "0.4.0-dev"

// commit is the commit a build came from, when the build information has
// none (make sets it: -ldflags "-X main.commit=…").
var commit = ""

// versionLine is what lore version prints: the version, the commit it was
// built from, the index format it writes, and the Go toolchain.
func versionLine() string {
	v, rev, dirty := version, "unknown", ""
	if commit != "" {
		rev = commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" || v == "0.4.0-dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
				if len(rev) > 12 {
					rev = rev[:12]
				}
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	return fmt.Sprintf("lore %s, commit %s%s, index format %s, %s", v, rev, dirty, fts.IndexFormat, runtime.Version())
}

// nearestCommand returns the command closest to a mistyped name (at most two
// edits away), or "".
func nearestCommand(name string) string {
	best, bestD := "", 3
	for _, c := range append(commands(), command{name: "help"}, command{name: "version"}) {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (adjacent swaps count
// one), enough for typos such as "serach".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
