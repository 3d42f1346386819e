//go:build !unix

package fts

import (
	"context"
	"os"
	"time"
)

// Without flock, the gate orders the writers of one process only (see
// writegate.go); SQLite's lock orders the processes.

func openGateFile(string) *os.File { return nil }

func lockGateFile(_ context.Context, _ *os.File, _ <-chan time.Time, leave func()) (func(), error) {
	return leave, nil
}
