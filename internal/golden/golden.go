// Package golden compares test output with files in testdata, rewriting
// them when a test binary runs with -update: one helper for every package's
// golden tests of what people and agents read.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Update reports whether the test binary runs with -update (for golden
// outputs kept elsewhere than one file each, such as testscript's cmp
// lines).
func Update() bool { return *update }

// Check compares got with testdata/name.
func Check(t testing.TB, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed; review the output and rerun with -update:\n%s", name, got)
	}
}
