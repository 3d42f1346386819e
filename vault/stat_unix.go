//go:build unix

package vault

import (
	"os"

	"golang.org/x/sys/unix"
)

// statAt stats name inside the open folder dir without following a symlink,
// with one fstatat call (no path walk from the root).
func statAt(dir *os.File, name string) (size, modNs int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, 0, false
	}
	return st.Size, st.Mtim.Nano(), true
}
