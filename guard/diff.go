package guard

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// FileDiff is one file of a unified diff.
type FileDiff struct {
	OldPath, NewPath string // "" for /dev/null (added or deleted files)
	Status           string // added, deleted, renamed, modified, copied
	Binary           bool
	Added            []Line // added lines, with their line numbers in the new file
}

// Path is the file's path after the change (its old path when deleted).
func (f FileDiff) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Line is one added line.
type Line struct {
	N    int
	Text string
}

// ParseDiff reads a unified diff: git's format (diff --git headers, renames,
// copies, mode lines, binary markers, quoted paths) or a plain one (---/+++
// only). Lines may end in CRLF; "\ No newline at end of file" markers and
// lines of any length are handled. Combined (merge) diffs are refused. It
// keeps only what the guard needs: each file's paths, status and added lines.
//
// Agents often write diffs by hand, without ---/+++ or @@ lines: "+" lines
// under a "diff --git" (or "+++") line belong to that file, numbered from 1
// in the order they come. It fails closed: input with no file in it, or
// "+" lines before any file, is an error, never a clean report.
func ParseDiff(data []byte) ([]FileDiff, error) {
	var files []FileDiff
	var cur *FileDiff
	newLine, oldLeft, newLeft := 0, 0, 0
	inHunk := false
	loose := 0 // the next line number of a file with no hunk header
	sawNew := false
	stray := 0 // the first "+" line outside any file
	nonBlank := false
	flush := func() {
		if cur != nil {
			if cur.Status == "" {
				cur.Status = "modified"
			}
			files = append(files, *cur)
		}
		cur, inHunk, loose, sawNew = nil, false, 1, false
	}
	lineNo := 0
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		lineNo++
		line := string(bytes.TrimSuffix(raw, []byte("\r")))
		nonBlank = nonBlank || strings.TrimSpace(line) != ""
		if inHunk && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(line, "+"):
				cur.Added = append(cur.Added, Line{N: newLine, Text: line[1:]})
				newLine++
				newLeft--
				continue
			case strings.HasPrefix(line, "-"):
				oldLeft--
				continue
			case strings.HasPrefix(line, " "), line == "":
				newLine++
				oldLeft--
				newLeft--
				continue
			case strings.HasPrefix(line, `\`):
				continue
			}
			// A header in the middle of a hunk: the counts were wrong; read on as headers.
		}
		if strings.HasPrefix(line, `\`) {
			continue // "\ No newline at end of file" after the hunk's last line
		}
		switch {
		case strings.HasPrefix(line, "diff --cc ") || strings.HasPrefix(line, "diff --combined "):
			return nil, fmt.Errorf("line %d: combined (merge) diffs are not supported; diff against one parent", lineNo)
		case strings.HasPrefix(line, "diff --git "):
			flush()
			a, b, ok := gitHeaderPaths(line[len("diff --git "):])
			if !ok {
				return nil, fmt.Errorf("line %d: cannot read the paths of %q", lineNo, clip(line))
			}
			cur = &FileDiff{OldPath: a, NewPath: b}
		case strings.HasPrefix(line, "--- "):
			if cur == nil || inHunk { // a plain diff's next file
				flush()
				cur = &FileDiff{}
			}
			p, err := diffPath(line[4:], "a/")
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			cur.OldPath = p
			if p == "" {
				cur.Status = "added"
			}
		case strings.HasPrefix(line, "+++ ") && !(cur != nil && (sawNew || len(cur.Added) > 0)):
			if cur == nil {
				return nil, fmt.Errorf("line %d: +++ without ---", lineNo)
			}
			sawNew = true
			p, err := diffPath(line[4:], "b/")
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			cur.NewPath = p
			if p == "" {
				cur.Status = "deleted"
			}
		case strings.HasPrefix(line, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("line %d: hunk without a file header", lineNo)
			}
			o, n, start, err := hunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			oldLeft, newLeft, newLine, inHunk = o, n, start, true
		case cur == nil:
			// Text before the first file (a commit message, say): ignored,
			// unless it adds lines that no file header claims.
			if strings.HasPrefix(line, "+") && stray == 0 {
				stray = lineNo
			}
		case strings.HasPrefix(line, "+"):
			// An added line with no hunk header (a diff written by hand).
			cur.Added = append(cur.Added, Line{N: loose, Text: line[1:]})
			loose++
		case strings.HasPrefix(line, " "):
			loose++
		case strings.HasPrefix(line, "new file mode"):
			cur.Status, cur.OldPath = "added", ""
		case strings.HasPrefix(line, "deleted file mode"):
			cur.Status, cur.NewPath = "deleted", ""
		case strings.HasPrefix(line, "rename from "):
			cur.Status, cur.OldPath = "renamed", unquote(line[len("rename from "):])
		case strings.HasPrefix(line, "rename to "):
			cur.Status, cur.NewPath = "renamed", unquote(line[len("rename to "):])
		case strings.HasPrefix(line, "copy from "):
			cur.Status, cur.OldPath = "copied", unquote(line[len("copy from "):])
		case strings.HasPrefix(line, "copy to "):
			cur.Status, cur.NewPath = "copied", unquote(line[len("copy to "):])
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			cur.Binary = true
		}
	}
	flush()
	if len(files) == 0 && nonBlank {
		return nil, fmt.Errorf("no file in it: it cannot be read as a diff (start each file with \"diff --git a/PATH b/PATH\", or \"--- a/PATH\" and \"+++ b/PATH\", then its \"+\" lines)")
	}
	if stray > 0 && len(files) == 0 {
		return nil, fmt.Errorf("line %d: an added line before any file header", stray)
	}
	return files, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// hunkHeader parses "@@ -a[,b] +c[,d] @@ …" into the old and new line counts
// and the first new line number.
func hunkHeader(line string) (oldN, newN, newStart int, err error) {
	rest := strings.TrimPrefix(line, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", clip(line))
	}
	parts := strings.Fields(rest[:end])
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "-") || !strings.HasPrefix(parts[1], "+") {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", clip(line))
	}
	_, oldN, err = rangeOf(parts[0][1:])
	if err != nil {
		return 0, 0, 0, err
	}
	newStart, newN, err = rangeOf(parts[1][1:])
	if err != nil {
		return 0, 0, 0, err
	}
	if newN > 0 && newStart == 0 {
		return 0, 0, 0, fmt.Errorf("bad hunk range %q: lines are numbered from 1", parts[1])
	}
	return oldN, newN, newStart, nil
}

func rangeOf(s string) (start, n int, err error) {
	a, b, has := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad hunk range %q", s)
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("bad hunk range %q", s)
		}
	}
	if n > 1<<30 {
		return 0, 0, fmt.Errorf("hunk range %q is too large", s)
	}
	return start, n, nil
}

// diffPath reads the path of a ---/+++ line: "/dev/null" is "", a git prefix
// is dropped, a quoted path is unquoted, and a tab-separated timestamp (plain
// diff -u) is cut.
func diffPath(s, prefix string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		s = unquote(s)
	} else if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " ")
	if s == "/dev/null" {
		return "", nil
	}
	if s == "" {
		return "", fmt.Errorf("empty path")
	}
	return strings.TrimPrefix(s, prefix), nil
}

// gitHeaderPaths splits "a/x b/y" (either may be quoted). For unquoted paths
// with spaces the split is ambiguous; git's rule is that both halves name the
// same path unless the file was renamed, and rename lines follow then.
func gitHeaderPaths(s string) (string, string, bool) {
	var a, b string
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", "", false
		}
		a, s = unquote(s[:end+1]), strings.TrimPrefix(s[end+1:], " ")
	} else if strings.HasPrefix(s, "a/") {
		if i := strings.Index(s, " b/"); i >= 0 && !strings.HasSuffix(s, `"`) {
			// Prefer the split where both halves are the same path.
			if half := (len(s) - 1) / 2; len(s)%2 == 1 && s[half] == ' ' && s[2:half] == s[half+3:] {
				i = half
			}
			a, s = s[:i], s[i+1:]
		} else if i := strings.Index(s, ` "`); i >= 0 {
			a, s = s[:i], s[i+1:]
		} else {
			return "", "", false
		}
	} else {
		return "", "", false
	}
	b = s
	if strings.HasPrefix(b, `"`) {
		b = unquote(b)
	}
	return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/"), true
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote undoes git's C-style quoting of paths ("a/\303\251t\303\251.md").
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	s = s[1 : len(s)-1]
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b = append(b, c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'a':
			b = append(b, 7)
		case 'b':
			b = append(b, 8)
		case 'f':
			b = append(b, 12)
		case 'v':
			b = append(b, 11)
		case '0', '1', '2', '3':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i:i+3], 8, 8); err == nil {
					b = append(b, byte(v))
					i += 2
					continue
				}
			}
			b = append(b, e)
		default:
			b = append(b, e)
		}
	}
	return string(b)
}
