package vault

import (
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/lore-memory/lore/internal/within"
)

// NormalizePath turns a vault-relative OS path into lore's form: '/'-separated
// and NFC-normalized (macOS file systems hand out NFD names).
func NormalizePath(rel string) string {
	return norm.NFC.String(filepath.ToSlash(rel))
}

// CleanPath checks a vault-relative path that came from a caller (an agent, a
// person, a link) and returns it normalized. It refuses empty paths, absolute
// paths, paths that climb out with "..", backslashes, NUL bytes, control
// characters, invalid UTF-8, bidirectional controls (which make a name read
// differently from what it is) and paths into dot-folders; the error names
// the path. It does not touch the disk: symlinks
// are checked when the file is opened (see Vault.ReadFile).
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", Errorf(CodeInvalid, "empty path")
	case strings.ContainsRune(p, 0):
		return "", Errorf(CodeInvalid, "path %q contains a NUL byte", p)
	}
	if err := CheckName("path", p); err != nil {
		return "", err
	}
	switch {
	case strings.Contains(p, `\`):
		return "", Errorf(CodeInvalid, "path %q contains a backslash; use '/'", p)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", Errorf(CodeInvalid, "path %q is absolute; give a path relative to the vault root", p)
	}
	clean := path.Clean(p)
	if !within.Dir(".", filepath.FromSlash(clean)) || clean == "." {
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

// JournalFolder holds the journal's notes, journal/<userId>/<projectId>/.
// They are the journal's own: its tools read them (by namespace), and no
// project's memory, vault-profile or CLI results show them.
const JournalFolder = "journal/"

// IsJournalPath reports whether p is inside the journal's folder.
func IsJournalPath(p string) bool { return strings.HasPrefix(p, JournalFolder) }

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

// CheckName refuses a name (a path, a project, a keyword) that holds what a
// reviewer cannot see or a tool may misread: invalid UTF-8, control
// characters (C0, DEL, C1: newlines and tabs included) and the Unicode
// bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), which make "txt.md" display as "dm.txt". what names the
// field in the error.
func CheckName(what, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(CodeInvalid, "%s %q is not valid UTF-8", what, s)
	}
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return Errorf(CodeInvalid, "%s %q contains the control character %U at byte %d", what, s, r, i)
		case isBidiControl(r):
			return Errorf(CodeInvalid, "%s %q contains the bidirectional control %U at byte %d, which makes the name display differently from what it is", what, s, r, i)
		}
	}
	return nil
}

func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// TargetPath reads a resource target as load and store take it — an id or a
// vault path — and returns the clean path when it is one ("" for an id).
// A target with a '/' or ending in .md is a path and must pass CleanPath;
// an empty target or one with a NUL byte is refused.
func TargetPath(target string) (string, error) {
	if target == "" || strings.ContainsRune(target, 0) {
		return "", Errorf(CodeInvalid, "resource id or path %q is empty or holds a NUL byte", target)
	}
	if strings.Contains(target, "/") || strings.HasSuffix(strings.ToLower(target), ".md") {
		return CleanPath(target)
	}
	return "", nil
}
