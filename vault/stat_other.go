//go:build !unix

package vault

import (
	"os"
	"path/filepath"
)

func statAt(dir *os.File, name string) (size, modNs int64, ok bool) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, 0, false
	}
	return info.Size(), info.ModTime().UnixNano(), true
}
