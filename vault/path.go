package vault

import (
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// NormalizePath turns a vault-relative OS path into lore's form: '/'-separated
// and NFC-normalized (macOS file systems hand out NFD names).
func NormalizePath(rel string) string {
	return norm.NFC.String(filepath.ToSlash(rel))
}

// CleanPath checks a vault-relative path that came from a caller (an agent, a
// person, a link) and returns it normalized. It refuses empty paths, absolute
// paths, paths that climb out with "..", backslashes, NUL bytes and paths into
// dot-folders; the error names the path. It does not touch the disk: symlinks
// are checked when the file is opened (see Vault.ReadFile).
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", Errorf(CodeInvalid, "empty path")
	case strings.ContainsRune(p, 0):
		return "", Errorf(CodeInvalid, "path %q contains a NUL byte", p)
	case strings.Contains(p, `\`):
		return "", Errorf(CodeInvalid, "path %q contains a backslash; use '/'", p)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", Errorf(CodeInvalid, "path %q is absolute; give a path relative to the vault root", p)
	}
	clean := path.Clean(p)
	rel, err := filepath.Rel(".", filepath.FromSlash(clean))
	if err != nil || rel == ".." || strings.HasPrefix(filepath.ToSlash(rel), "../") || clean == "." {
		return "", Errorf(CodeInvalid, "path %q leads out of the vault", p)
	}
	for _, seg := range strings.Split(clean, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", Errorf(CodeInvalid, "path %q is inside a dot-folder or is a dot-file, which lore does not read", p)
		}
	}
	return norm.NFC.String(clean), nil
}

// IsMemoryPath reports whether a normalized vault-relative path names a memory
// file: a .md file outside dot-folders.
func IsMemoryPath(p string) bool {
	if !strings.HasSuffix(strings.ToLower(p), ".md") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

// ProjectOf returns the project a path belongs to ("projects/<name>/…") or "" for
// a shared path.
func ProjectOf(p string) string {
	rest, ok := strings.CutPrefix(p, "projects/")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return name
}
