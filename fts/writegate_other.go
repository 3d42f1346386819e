//go:build !unix

package fts

import (
	"context"
	"os"
)

// Without flock, the gate orders the writers of one process only (see
// writegate.go); SQLite's lock orders the processes.

func openGateFile(string) *os.File { return nil }

func lockGateFile(_ context.Context, _ *os.File, leave func()) (func(), error) {
	return leave, nil
}
