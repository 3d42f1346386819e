package testvault

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Daemon is `git daemon` serving a folder of bare repositories on
// loopback, pushes included: the real remote of lore's sync tests.
type Daemon struct {
	Base string // the folder it serves
	Port int
	cmd  *exec.Cmd
}

// StartDaemon serves base on port (0: a free one) until the test ends or
// Stop. It runs git-daemon itself: `git daemon` is a wrapper process, and
// killing it would leave the daemon serving. Its pid is in base/daemon.pid.
func StartDaemon(t testing.TB, base string, port int) *Daemon {
	t.Helper()
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	d := &Daemon{Base: base, Port: port}
	execPath := strings.TrimSpace(Git(t, base, "--exec-path"))
	d.cmd = exec.Command(filepath.Join(execPath, "git-daemon"), "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	d.cmd.Env = os.Environ()
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(base, "daemon.pid"), []byte(fmt.Sprint(d.cmd.Process.Pid)), 0o644)
	t.Cleanup(d.Stop)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("git daemon did not start")
	return nil
}

// Stop ends the daemon.
func (d *Daemon) Stop() {
	if d.cmd.Process != nil {
		d.cmd.Process.Kill()
		d.cmd.Wait()
	}
}

// URL is the address of a repository the daemon serves.
func (d *Daemon) URL(name string) string { return fmt.Sprintf("git://127.0.0.1:%d/%s", d.Port, name) }

// Remote makes a bare repository name (main as its default branch) in a new
// folder served by a new daemon, and returns the daemon and the bare
// repository's path.
func Remote(t testing.TB, name string) (*Daemon, string) {
	t.Helper()
	base := t.TempDir()
	bare := filepath.Join(base, name)
	Git(t, base, "init", "-q", "--bare", "-b", "main", bare)
	return StartDaemon(t, base, 0), bare
}
