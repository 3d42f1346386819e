// Package lazyre compiles a regular expression on first use.
//
// A regexp compiled at package init is paid for by every lore process, the
// warm path's `lore search` included, whether the process uses it or not
// (`GODEBUG=inittrace=1`; docs/BENCHMARKS.md, "One warm lore";
// TestStartup_LorePackagesInitCheaply holds lore's packages to little).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// (panicking, as regexp.MustCompile does, if expr is invalid) and returns
// the same *regexp.Regexp on every call.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
