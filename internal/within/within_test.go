package within

import "testing"

func TestRel(t *testing.T) {
	for _, c := range []struct {
		base, p, rel string
		ok           bool
	}{
		{"/v", "/v", ".", true},
		{"/v", "/v/a/b.md", "a/b.md", true},
		{"/v/", "/v/a/../b", "b", true},
		{"/v", "/v/..notes/a.md", "..notes/a.md", true}, // a folder whose name starts with two dots
		{"/v", "/v/a/../../w", "", false},
		{"/v", "/w", "", false},
		{"/v", "/vault", "", false}, // a sibling that shares the prefix
		{"/v", "/", "", false},
		{"v", "/v/a", "", false}, // relative against absolute
		{"", "a", "", false},
		{"v", "v/a", "a", true},
		{"v", "../v/a", "", false},
	} {
		rel, ok := Rel(c.base, c.p)
		if rel != c.rel || ok != c.ok {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", c.base, c.p, rel, ok, c.rel, c.ok)
		}
		if Dir(c.base, c.p) != c.ok {
			t.Errorf("Dir(%q, %q) != %v", c.base, c.p, c.ok)
		}
	}
}
