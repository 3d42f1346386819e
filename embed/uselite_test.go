package embed

import (
	"context"
	"os"
	"testing"
)

// modelDir returns the installed model folder or skips: the weights come only
// from `lore model fetch` (CI runs it before the tests).
func modelDir(t testing.TB) string {
	t.Helper()
	dir, err := DefaultModelDir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(dir + "/model.json"); err != nil {
		if os.Getenv("LORE_REQUIRE_MODEL") != "" {
			t.Fatalf("LORE_REQUIRE_MODEL is set but %s has no model; run `make model`", dir)
		}
		t.Skipf("no model in %s; run `make model`", dir)
	}
	return dir
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestUSELite_SemanticOrdering(t *testing.T) {
	m, err := LoadUSELite(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := m.Embed(context.Background(), []string{
		"how do I release the app",
		"deployment steps for shipping a new version",
		"the cat sat on the mat",
	})
	if err != nil {
		t.Fatal(err)
	}
	near, far := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	t.Logf("cos(release, deployment) = %.3f; cos(release, cat) = %.3f", near, far)
	if near < 0.25 || near > 0.32 || far > 0.08 {
		t.Errorf("sanity pairs off the reference (≈0.285 and ≈0.023): %.3f, %.3f", near, far)
	}
	// Batching must not change results.
	one, _ := m.Embed(context.Background(), []string{"deployment steps for shipping a new version"})
	if c := cos(one[0], vs[1]); c < 0.9999 {
		t.Errorf("the same text embedded alone and in a batch differs: cos %.6f", c)
	}
}
