// Package codewords counts how many of a code repository's files use each
// word, at a commit: the prompt hook weighs a prompt's words against them.
// A word the bound code uses more often than the vault's notes do ("run",
// "test", "field", "struct" in most repositories) says the prompt is about
// the code, and does not by itself make a section of memory relevant
// (retrieve's relevance bar; docs/decisions/code-words-hook-bar.md).
//
// A table is built from git's objects at HEAD (git ls-tree and one git
// cat-file --batch), never from the work tree, so it is the same for every
// checkout of a commit, and it is saved beside the vault's index: the prompt
// hook reads it, the session start builds it again when HEAD has moved.
// Words are the index's tokens (fts.EachToken), from each file's path and
// text; stop words are left out.
package codewords

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lore-memory/lore/fts"
	"github.com/lore-memory/lore/internal/gitcli"
)

// Bounds of a build: the first MaxFiles files of the tree in git's order,
// each at most MaxFileBytes (larger ones are data, not code), and binary
// files (a NUL byte in the first 8,000) left out. A word is kept when at
// least MinFiles files use it: a word of one file says nothing about what
// the code is about.
const (
	MaxFiles     = 20000
	MaxFileBytes = 256 << 10
	MinFiles     = 2
)

// A Table is how many files of a repository's tree at Commit use each word.
type Table struct {
	Commit string
	Files  int
	df     map[string]int32
}

// Share is the share of the table's files that use the word tok (a token
// as fts.EachToken makes it), 0 for an empty table.
func (t *Table) Share(tok string) float64 {
	if t == nil || t.Files == 0 {
		return 0
	}
	return float64(t.df[tok]) / float64(t.Files)
}

// Words is the number of words the table keeps.
func (t *Table) Words() int { return len(t.df) }

// Head is the commit of dir's HEAD, "" with an error when dir is no git
// repository or has no commit.
func Head(ctx context.Context, dir string) (string, error) {
	out, err := gitcli.Run(ctx, dir, nil, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	return strings.TrimSpace(string(out)), err
}

// Build counts the words of the repository at dir at its HEAD.
func Build(ctx context.Context, dir string) (*Table, error) {
	head, err := Head(ctx, dir)
	if err != nil {
		return nil, err
	}
	return BuildAt(ctx, dir, head)
}

// BuildAt counts the words of the repository at dir at commit.
func BuildAt(ctx context.Context, dir, commit string) (*Table, error) {
	out, err := gitcli.Run(ctx, dir, nil, "ls-tree", "-r", "-z", "--long", commit)
	if err != nil {
		return nil, err
	}
	type blob struct{ oid, path string }
	var blobs []blob
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> SP <type> SP <oid> SP+ <size> TAB <path>"
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 || f[1] != "blob" || f[0] == "120000" {
			continue // a submodule, a symlink
		}
		if size, err := strconv.Atoi(f[3]); err != nil || size > MaxFileBytes {
			continue
		}
		blobs = append(blobs, blob{f[2], string(path)})
		if len(blobs) == MaxFiles {
			break
		}
	}
	t := &Table{Commit: commit, df: map[string]int32{}}
	if len(blobs) == 0 {
		return t, nil
	}
	var in bytes.Buffer
	for _, b := range blobs {
		in.WriteString(b.oid + "\n")
	}
	cmd := gitcli.Command(ctx, dir, "cat-file", "--batch")
	cmd.Stdin = &in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	all := map[string]int32{}
	r := bufio.NewReaderSize(stdout, 64<<10)
	seen := map[string]bool{}
	var readErr error
	for _, b := range blobs {
		header, err := r.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			readErr = fmt.Errorf("git cat-file: %q", strings.TrimSpace(header))
			break
		}
		size, _ := strconv.Atoi(f[2])
		body := make([]byte, size+1) // the object and its newline
		if _, err := io.ReadFull(r, body); err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		body = body[:size]
		if bytes.IndexByte(body[:min(len(body), 8000)], 0) >= 0 {
			continue // binary
		}
		clear(seen)
		each := func(tok string, stop bool) {
			if !stop {
				seen[tok] = true
			}
		}
		fts.EachToken(b.path, each)
		fts.EachToken(string(body), each)
		for tok := range seen {
			all[tok]++
		}
		t.Files++
	}
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	if readErr != nil {
		return nil, readErr
	}
	if waitErr != nil {
		return nil, fmt.Errorf("git cat-file: %v: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	for tok, n := range all {
		if n >= MinFiles {
			t.df[tok] = n
		}
	}
	return t, nil
}

// The saved form: a header line "lore-codewords 1 <commit> <files>", then
// "<word> TAB <files>" lines in word order.
const magic = "lore-codewords 1"

// Save writes the table to path, whole or not at all (a temporary file
// renamed into place).
func (t *Table) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	words := make([]string, 0, len(t.df))
	for w := range t.df {
		words = append(words, w)
	}
	sort.Strings(words)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %d\n", magic, t.Commit, t.Files)
	for _, w := range words {
		fmt.Fprintf(&b, "%s\t%d\n", w, t.df[w])
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".codewords-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ErrFormat is Load's error for a file that is not a saved table.
var ErrFormat = errors.New("not a saved code-words table")

// Load reads a table Save wrote.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	header, rest, _ := bytes.Cut(data, []byte{'\n'})
	f := strings.Fields(string(header))
	if len(f) != 4 || f[0]+" "+f[1] != magic {
		return nil, fmt.Errorf("%s: %w", path, ErrFormat)
	}
	files, err := strconv.Atoi(f[3])
	if err != nil || files < 0 {
		return nil, fmt.Errorf("%s: %w (file count %q)", path, ErrFormat, f[3])
	}
	t := &Table{Commit: f[2], Files: files, df: make(map[string]int32, bytes.Count(rest, []byte{'\n'}))}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		w, n, ok := bytes.Cut(line, []byte{'\t'})
		c, err := strconv.Atoi(string(n))
		if !ok || err != nil || c < 0 || c > files {
			return nil, fmt.Errorf("%s: %w (line %q)", path, ErrFormat, line)
		}
		t.df[string(w)] = int32(c)
	}
	return t, nil
}
