package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// A command stopped by ^C exits 130 and one stopped by SIGTERM 143 (128 +
// the signal's number, as a shell reports it), not 1: scripts and agents
// tell "interrupted" from "failed" by it. lore mcp in a folder bound to no
// vault says so on stderr and then waits on stdin; the signal comes then.
func TestSignalExitCodes(t *testing.T) {
	bin := binary(t)
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		cmd := exec.Command(bin, "mcp")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stderr).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "lore mcp:") {
			t.Fatalf("first stderr line %q, %v", line, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		stdin.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != want {
			t.Errorf("%v: exit %v, want %d", sig, err, want)
		}
	}
}
