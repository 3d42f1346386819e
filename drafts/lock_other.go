//go:build !unix

package drafts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// lockFile takes an exclusive lock by creating path exclusively, waiting
// while another process holds it, or until ctx ends. (On Unix,
// lock_unix.go uses flock.) A lock older than ten minutes is taken to be
// left by a crashed process.
func lockFile(ctx context.Context, path string) (func(), error) {
	p := path + ".excl"
	for {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(p) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", p, err)
		}
		if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > 10*time.Minute {
			os.Remove(p)
		}
		select {
		case <-ctx.Done():
			return nil, &LockBusyError{Path: path, Err: ctx.Err()}
		case <-time.After(5 * time.Millisecond):
		}
	}
}
