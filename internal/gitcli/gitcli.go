// Package gitcli runs the git CLI the one way lore runs it: in a given
// folder, never prompting for credentials (no terminal prompt, no askpass
// helpers), in the C locale so messages are what the code expects, and with
// literal pathspecs so a file name is never read as a pattern. The user's
// own configuration (identity, SSH agent, credential helpers, insteadOf
// rules) applies, as for their own git commands.
package gitcli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Run runs git with args in dir, feeding it stdin (nil: none), and returns
// its standard output. A failure's error names the git command and what git
// said on standard error; the output so far is returned with it.
func Run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := Command(ctx, dir, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("git %s: %s", subcommand(args), msg)
	}
	return out.Bytes(), nil
}

// Command returns git with args, set up to run in dir the way Run runs it,
// for a caller that streams its input and output itself.
//
// git runs in a process group of its own, and a cancelled ctx kills the
// whole group: a fetch's transport helpers (git-remote-http, ssh) die with
// it, and Wait does not wait on pipes they held (WaitDelay).
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_LITERAL_PATHSPECS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// subcommand is the git command among args ("status" in "-c x=y status …").
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c" || args[i] == "-C":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	if len(args) > 0 {
		return args[0]
	}
	return ""
}
