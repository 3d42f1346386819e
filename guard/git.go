package guard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/lore-memory/lore/internal/gitcli"
	"github.com/lore-memory/lore/internal/within"
	"github.com/lore-memory/lore/vault"
)

// Repo is the code repository a check runs in, through the git CLI (the
// hook runs inside git anyway, and the CLI knows every index and config
// format the user's git writes).
type Repo struct {
	Root string
}

// OpenRepo finds the repository holding dir.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	out, err := gitcli.Run(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository: %w", dir, err)
	}
	return &Repo{Root: strings.TrimSpace(string(out))}, nil
}

// diffArgs are the options every diff lore reads is made with: no colour,
// no external diff drivers, fixed prefixes, renames found, no context.
var diffArgs = []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "-U0", "--src-prefix=a/", "--dst-prefix=b/"}

// Staged returns the staged changes as a unified diff.
func (r *Repo) Staged(ctx context.Context) ([]byte, error) {
	return gitcli.Run(ctx, r.Root, nil, append(diffArgs, "--cached")...)
}

// Branch returns the changes of HEAD since it forked from base.
func (r *Repo) Branch(ctx context.Context, base string) ([]byte, error) {
	if strings.HasPrefix(base, "-") {
		return nil, fmt.Errorf("base %q is not a revision", base)
	}
	return gitcli.Run(ctx, r.Root, nil, append(diffArgs, base+"...HEAD", "--")...)
}

// WorkTree returns the uncommitted changes (staged and not) against HEAD;
// in a repository with no commit yet, against the empty tree (the id git
// gives an empty tree in the repository's hash), so that its first commit is
// read like any other. The usual case costs one git process: HEAD is asked
// about only when the diff fails.
func (r *Repo) WorkTree(ctx context.Context) ([]byte, error) {
	out, err := gitcli.Run(ctx, r.Root, nil, append(diffArgs, "HEAD", "--")...)
	if err == nil {
		return out, nil
	}
	if _, verr := gitcli.Run(ctx, r.Root, nil, "rev-parse", "-q", "--verify", "HEAD^{commit}"); verr == nil {
		return nil, err // HEAD is there: the diff's own failure
	}
	empty, eerr := gitcli.Run(ctx, r.Root, strings.NewReader(""), "hash-object", "-t", "tree", "--stdin")
	if eerr != nil {
		return nil, err
	}
	return gitcli.Run(ctx, r.Root, nil, append(diffArgs, strings.TrimSpace(string(empty)), "--")...)
}

// Blobs returns a Content that reads files from a git revision ("" for the
// index, i.e. the staged version), all through one `git cat-file --batch`
// started on first use.
func (r *Repo) Blobs(ctx context.Context, rev string) (Content, func()) {
	var cmd *exec.Cmd
	var in io.WriteCloser
	var out *bufio.Reader
	started := false
	start := func() bool {
		started = true
		cmd = gitcli.Command(ctx, r.Root, "cat-file", "--batch")
		var err error
		if in, err = cmd.StdinPipe(); err != nil {
			return false
		}
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			return false
		}
		out = bufio.NewReader(pipe)
		return cmd.Start() == nil
	}
	ok := true
	content := func(p string) ([]byte, bool) {
		if !started {
			ok = start()
		}
		if !ok || strings.ContainsAny(p, "\n") {
			return nil, false
		}
		fmt.Fprintf(in, "%s:%s\n", rev, p)
		header, err := out.ReadString('\n')
		if err != nil {
			ok = false
			return nil, false
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return nil, false // missing
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			ok = false
			return nil, false
		}
		data := make([]byte, n+1)
		if _, err := io.ReadFull(out, data); err != nil {
			ok = false
			return nil, false
		}
		return data[:n], !bytes.Contains(data[:min(n, 8000)], []byte{0})
	}
	return content, func() {
		if started && in != nil {
			in.Close()
			cmd.Wait()
		}
	}
}

// RepoPath turns a path given for the repository at root (relative to it,
// or absolute inside it) into a clean slash path, refusing NUL bytes and
// paths that lead outside.
func RepoPath(root, p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q is empty or holds a NUL byte", p)
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(root, p)
	}
	rel, ok := within.Rel(root, filepath.Clean(full))
	if !ok || rel == "." {
		return "", fmt.Errorf("path %q is outside the repository %s", p, root)
	}
	return filepath.ToSlash(rel), nil
}

// MaxFileBytes bounds a file the guard reads whole (8 MiB): a device or a
// huge file named in files must not take the memory with it.
const MaxFileBytes = 8 << 20

// readIn reads a regular file of the repository through os.Root, so a
// symlink that leads outside it is refused. It opens without blocking (a
// FIFO would otherwise wait for a writer forever), refuses anything but a
// regular file (devices, FIFOs, sockets, folders) and files over
// MaxFileBytes.
func readIn(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return vault.ReadBounded(f, rel, MaxFileBytes) // the guard's limit for one file
}

// Files returns a Content that reads files of the work tree under root.
func Files(root string) Content {
	return func(p string) ([]byte, bool) {
		rel, err := RepoPath(root, p)
		if err != nil {
			return nil, false
		}
		data, err := readIn(root, rel)
		if err != nil || bytes.Contains(data[:min(len(data), 8000)], []byte{0}) {
			return nil, false
		}
		return data, true
	}
}

// WholeFiles makes a diff of whole files: every line is "added", so deny
// rules see all of them. Paths must lie inside the repository (symlinks
// out of it are refused).
func WholeFiles(root string, paths []string) ([]FileDiff, error) {
	var out []FileDiff
	for _, p := range paths {
		rel, err := RepoPath(root, p)
		if err != nil {
			return nil, err
		}
		data, err := readIn(root, rel)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		f := FileDiff{NewPath: rel, Status: "added"}
		if bytes.Contains(data[:min(len(data), 8000)], []byte{0}) {
			f.Binary = true
		} else {
			for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				f.Added = append(f.Added, Line{N: i + 1, Text: strings.TrimSuffix(l, "\r")})
			}
		}
		out = append(out, f)
	}
	return out, nil
}
