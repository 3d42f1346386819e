package eval

import "testing"

// A heading's emphasis and code spans are not part of its name, as lore
// names the section; an underscore inside a name is left alone.
func TestPlainSections_AHeadingIsNamedWithoutItsMarks(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"## 7. **Layer Cake**\ntext", "7. Layer Cake"},
		{"## The `all` and `...` module patterns\ntext", "The all and ... module patterns"},
		{"## An *emphasized* word\ntext", "An emphasized word"},
		{"## Obsidian_to_Anki\ntext", "Obsidian_to_Anki"},
		{"## 2 * 3 * 4\ntext", "2 * 3 * 4"},
	} {
		secs := plainSections(tc.md)
		if len(secs) != 2 || secs[1][0] != tc.want {
			t.Errorf("plainSections(%q) heading %q, want %q", tc.md, secs[len(secs)-1][0], tc.want)
		}
	}
}
