// Package within answers the one question lore asks of paths before it
// reads or writes through them: is this path inside that folder? Every
// check of the kind (the vault's symlinks, a Draft's path, the guard's
// repository paths, a client's config file, the workspace a tool may read)
// goes through Rel, so the rule is written once, on filepath.IsLocal.
package within

import "path/filepath"

// Rel returns p relative to base, and whether p is base itself or inside
// it: ok is false when the relative path climbs out (".." or "../…"), when
// one path is absolute and the other not, or when base is empty. Both are
// compared as written (cleaned); no symlink is followed, so a caller that
// must not be led out by one resolves them first (filepath.EvalSymlinks).
func Rel(base, p string) (rel string, ok bool) {
	if base == "" {
		return "", false
	}
	rel, err := filepath.Rel(base, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// Dir reports whether p is base or inside it (Rel's ok).
func Dir(base, p string) bool {
	_, ok := Rel(base, p)
	return ok
}
