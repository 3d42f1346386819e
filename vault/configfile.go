package vault

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxConfigFile bounds a config file lore reads (lore.yaml, a workspace's
// .lore.yaml, the bindings file): they are a few lines.
const MaxConfigFile = 1 << 20

// ReadConfigFile reads a small config file that a cloned repository or an
// agent may have planted: only a regular file (after following links, so a
// .lore.yaml that is a link to a file works), opened without blocking (a
// FIFO would hang the reader, a hook with it, and the commit waiting on
// the hook), and at most MaxConfigFile bytes (/dev/zero would fill memory).
// A missing file is fs.ErrNotExist, as os.ReadFile's.
func ReadConfigFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadBounded(f, p, MaxConfigFile)
	if err != nil {
		return nil, Errorf(CodeConfig, "%s; lore reads config only from a small regular file: remove it or replace it with one", err)
	}
	return data, nil
}

// ReadBounded reads an open file that must be a regular file of at most
// max bytes (name is how errors call it): a FIFO, a device (/dev/zero) or
// a file that grows while it is read is an error, never a hang or a heap
// filled.
func ReadBounded(f *os.File, name string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, kindOf(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", name, st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew over the limit of %d bytes while being read", name, max)
	}
	return data, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0 || m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a file"
}

// isMissing reports a file that is not there.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
