package retrieve

import (
	"os"
	"strings"
)

// xoff is an experiment's switch (LORE_X_OFF=rule,rule): each rule named
// is turned off, to measure what it pays on the whole table. Not kept.
var xoff = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Split(os.Getenv("LORE_X_OFF"), ",") {
		if s != "" {
			m[s] = true
		}
	}
	return m
}()
