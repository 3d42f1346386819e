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
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, Errorf(CodeConfig, "%s is not a regular file (%s): lore reads config only from a file; remove it or replace it with one", p, kindOf(st.Mode()))
	}
	if st.Size() > MaxConfigFile {
		return nil, Errorf(CodeConfig, "%s is %d bytes, over the %d a config file may have", p, st.Size(), MaxConfigFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > MaxConfigFile {
		return nil, Errorf(CodeConfig, "%s grew over the %d bytes a config file may have", p, MaxConfigFile)
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
