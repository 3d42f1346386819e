package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lore-memory/lore/vault"
	"github.com/lore-memory/lore/warm"
)

// askWarm uses a running `lore mcp --http` of the bound vault, and only a
// running one: before it starts, after it stops, and with a record whose
// process is gone, the CLI does the work itself (warm.ErrNoServer).
func TestWarm_AsksTheRunningServerOnly(t *testing.T) {
	dir := demoVault(t, "api")
	info := filepath.Join(dir, ".git", "lore", "mcp-http.json")
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	b := vault.Binding{Vault: dir, Project: "api"}
	ctx := context.Background()
	ask := func() error {
		_, err := askWarm(ctx, e, b, warm.SearchPath, warm.Request{Query: "release", Project: "api", Limit: 3})
		return err
	}
	if err := ask(); !errors.Is(err, warm.ErrNoServer) {
		t.Fatalf("before a server runs: %v; want warm.ErrNoServer", err)
	}
	srv := exec.Command(binary(t), "mcp", "--http", "127.0.0.1:0")
	srv.Dir = dir
	srv.Env = append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(info); err == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	out, err := askWarm(ctx, e, b, warm.SearchPath, warm.Request{Query: "release", Project: "api", Limit: 3})
	if err != nil || len(out.Hits) == 0 {
		t.Fatalf("with a server: %v, %d hits", err, len(out.Hits))
	}
	// An error the server answers with is the caller's error, not a reason
	// to fall back.
	_, err = askWarm(ctx, e, b, warm.ActivatePath, warm.Request{Query: "x", Project: "api", State: "las2.forged"})
	if vault.ErrorCode(err) != vault.CodeInvalidState {
		t.Errorf("a forged state through the server: %v; want invalid_activation_state", err)
	}
	// LORE_NO_SERVER makes the CLI do the work itself.
	noServer := &env{getenv: func(k string) string {
		if k == "LORE_NO_SERVER" {
			return "1"
		}
		return ""
	}, stdout: io.Discard, stderr: io.Discard}
	if _, err := askWarm(ctx, noServer, b, warm.SearchPath, warm.Request{Query: "release"}); !errors.Is(err, warm.ErrNoServer) {
		t.Errorf("LORE_NO_SERVER=1: %v; want warm.ErrNoServer", err)
	}
	// A killed server leaves its record behind: its process is gone, so the
	// record is not followed.
	srv.Process.Kill()
	srv.Wait()
	if _, err := os.Stat(info); err != nil {
		t.Fatalf("the killed server's record: %v", err)
	}
	if err := ask(); !errors.Is(err, warm.ErrNoServer) {
		t.Errorf("after the server was killed: %v; want warm.ErrNoServer", err)
	}
	// A record naming a server that is not on loopback never gets the
	// token: a listener on this machine's own non-loopback address sees no
	// request.
	if ip := nonLoopbackIP(); ip != "" {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err == nil {
			got := make(chan string, 1)
			go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
			os.WriteFile(info, []byte(`{"url":"http://`+l.Addr().String()+`/mcp","pid":`+strconv.Itoa(os.Getpid())+`}`), 0o600)
			if err := ask(); !errors.Is(err, warm.ErrNoServer) {
				t.Errorf("a record naming %s: %v; want warm.ErrNoServer", l.Addr(), err)
			}
			select {
			case a := <-got:
				t.Errorf("the token was sent off loopback: %q", a)
			case <-time.After(100 * time.Millisecond):
			}
			l.Close()
		}
	}
	// A record naming a live process that is not a server: no answer.
	os.WriteFile(info, []byte(`{"url":"http://127.0.0.1:1/mcp","pid":`+strconv.Itoa(os.Getpid())+`}`), 0o600)
	if err := ask(); !errors.Is(err, warm.ErrNoServer) {
		t.Errorf("a record naming no server: %v; want warm.ErrNoServer", err)
	}
}

// nonLoopbackIP returns an IPv4 address of this machine that is not
// loopback, or "".
func nonLoopbackIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// /dev/null is a character device, not a terminal: output sent there gets
// no terminal extras (the footer's pass over the index).
func TestIsTerminal_DevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
}

// Two servers on one vault: the record names the newer, and the older one
// stopping leaves it in place, so the CLI keeps finding the one that runs.
func TestWarm_AnOlderServerStoppingKeepsTheNewersRecord(t *testing.T) {
	dir := demoVault(t, "api")
	info := filepath.Join(dir, ".git", "lore", "mcp-http.json")
	start := func() *exec.Cmd {
		srv := exec.Command(binary(t), "mcp", "--http", "127.0.0.1:0")
		srv.Dir = dir
		srv.Env = append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1")
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
		for i := 0; i < 200; i++ {
			if b, err := os.ReadFile(info); err == nil && strings.Contains(string(b), `"pid":`+strconv.Itoa(srv.Process.Pid)) {
				return srv
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("server %d never wrote its record", srv.Process.Pid)
		return nil
	}
	older := start()
	newer := start()
	older.Process.Signal(syscall.SIGTERM)
	older.Wait()
	b, err := os.ReadFile(info)
	if err != nil || !strings.Contains(string(b), `"pid":`+strconv.Itoa(newer.Process.Pid)) {
		t.Fatalf("after the older server stopped, the record is %q, %v; want the newer server's", b, err)
	}
}

// A server on a Unix socket answers the CLI's warm path too; a request
// whose context is already cancelled (^C) takes no answer from it
// (warm.ErrNoServer, and the caller then stops on its own context).
func TestWarm_OverAUnixSocket(t *testing.T) {
	dir := demoVault(t, "api")
	sockDir, err := os.MkdirTemp("", "lw") // a socket's path must be short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "s.sock")
	srv := exec.Command(binary(t), "mcp", "--http", "unix:"+sock)
	srv.Dir = dir
	srv.Env = append(os.Environ(), "LORE_VAULT="+dir, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	info := filepath.Join(dir, ".git", "lore", "mcp-http.json")
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(info); err == nil && strings.Contains(string(b), sock) {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	b := vault.Binding{Vault: dir, Project: "api"}
	out, err := askWarm(context.Background(), e, b, warm.SearchPath, warm.Request{Query: "release", Project: "api", Limit: 3})
	if err != nil || len(out.Hits) == 0 {
		t.Fatalf("through the socket: %v, %d hits", err, len(out.Hits))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := askWarm(ctx, e, b, warm.SearchPath, warm.Request{Query: "release", Project: "api"}); !errors.Is(err, warm.ErrNoServer) {
		t.Errorf("a cancelled request: %v; want warm.ErrNoServer (the caller then stops on its own context)", err)
	}
}

// --http unix:PATH never deletes what is at PATH unless it is a socket.
func TestMCPHTTP_UnixPathThatIsAFileIsRefusedAndKept(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(p, []byte("mine"), 0o644)
	if _, _, err := listenLoopback("unix:" + p); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("listen on a file's path: %v; want an error saying it is not a socket", err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
		t.Errorf("the file at the path: %q, %v; want it kept", b, err)
	}
	l, _, err := listenLoopback("unix:" + filepath.Join(filepath.Dir(p), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	l, _, err = listenLoopback("unix:" + filepath.Join(filepath.Dir(p), "s.sock"))
	if err != nil {
		t.Errorf("a socket left behind is not replaced: %v", err)
	} else {
		l.Close()
	}
}

// One `lore mcp --http` serves several vaults (--also), each behind its own
// token: each vault's CLI finds the server and gets its own vault's notes,
// a request carrying one vault's token never reaches another vault's
// memory, a request with no vault's token is refused, and each vault's
// record goes when the server stops.
func TestMCPHTTP_SeveralVaultsEachBehindItsToken(t *testing.T) {
	a, b := demoVault(t, "api"), demoVault(t, "api")
	os.WriteFile(filepath.Join(a, "notes-a.md"), []byte("# Quokka\n\nOnly vault A knows the quokka census.\n"), 0o644)
	os.WriteFile(filepath.Join(b, "notes-b.md"), []byte("# Zanzibar\n\nOnly vault B knows the zanzibar ferry.\n"), 0o644)
	// run runs a lore command that must end by itself (a server that starts
	// is killed after 10 s and counts as a failure of the test).
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary(t), args...)
		cmd.Env = append(os.Environ(), "LORE_VAULT="+a, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1", "LORE_MCP_NO_EMBED=1")
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("lore %s did not stop: it served instead of refusing", strings.Join(args, " "))
		}
		if err == nil {
			return ""
		}
		return string(out)
	}
	if out := run("mcp", "--also", b); !strings.Contains(out, "--also needs --http") {
		t.Errorf("--also without --http: %q", out)
	}
	if out := run("mcp", "--http", "127.0.0.1:0", "--also", a); !strings.Contains(out, "served already") {
		t.Errorf("--also naming the bound vault again: %q", out)
	}
	// A vault whose data folder was copied from another carries its token:
	// served together, one would answer for the other, so the server refuses.
	c := demoVault(t, "api")
	tokA := filepath.Join(a, ".git", "lore", "mcp-http.token")
	os.MkdirAll(filepath.Dir(tokA), 0o755)
	os.WriteFile(tokA, []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o600)
	os.MkdirAll(filepath.Join(c, ".git", "lore"), 0o755)
	os.WriteFile(filepath.Join(c, ".git", "lore", "mcp-http.token"), []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o600)
	if out := run("mcp", "--http", "127.0.0.1:0", "--also", c); !strings.Contains(out, "same MCP token") {
		t.Errorf("two vaults with one token: %q", out)
	}
	os.Remove(tokA) // a new token is made at the next start
	srv := exec.Command(binary(t), "mcp", "--http", "127.0.0.1:0", "--also", b)
	srv.Env = append(os.Environ(), "LORE_VAULT="+a, "LORE_PROJECT=api", "LORE_MCP_NO_SYNC=1", "LORE_MCP_NO_EMBED=1")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	record := func(dir string) string { return filepath.Join(dir, ".git", "lore", "mcp-http.json") }
	for i := 0; i < 400; i++ {
		_, errA := os.Stat(record(a))
		_, errB := os.Stat(record(b))
		if errA == nil && errB == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	ra, _ := os.ReadFile(record(a))
	rb, _ := os.ReadFile(record(b))
	if len(ra) == 0 || string(ra) != string(rb) {
		t.Fatalf("the two vaults' records: %q and %q; want the same server in both", ra, rb)
	}
	e := &env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	ctx := context.Background()
	paths := func(dir, q string) []string {
		t.Helper()
		out, err := askWarm(ctx, e, vault.Binding{Vault: dir, Project: "api"}, warm.SearchPath, warm.Request{Query: q, Project: "api", Limit: 5})
		if err != nil {
			t.Fatalf("search %q in %s through the server: %v", q, dir, err)
		}
		var ps []string
		for _, h := range out.Hits {
			ps = append(ps, h.Path)
		}
		return ps
	}
	if got := paths(a, "quokka census"); len(got) == 0 || got[0] != "notes-a.md" {
		t.Errorf("vault A's own note through the server: %v", got)
	}
	if got := paths(b, "zanzibar ferry"); len(got) == 0 || got[0] != "notes-b.md" {
		t.Errorf("vault B's own note through the server: %v", got)
	}
	for _, p := range paths(a, "zanzibar ferry") {
		if p == "notes-b.md" {
			t.Errorf("vault A's token reached vault B's note")
		}
	}
	for _, p := range paths(b, "quokka census") {
		if p == "notes-a.md" {
			t.Errorf("vault B's token reached vault A's note")
		}
	}
	var info warm.ServerInfo
	json.Unmarshal(ra, &info)
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(info.URL, "/mcp")+warm.SearchPath, strings.NewReader(`{"query":"quokka"}`))
	req.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request with no vault's token: %d, want 401", resp.StatusCode)
	}
	srv.Process.Signal(syscall.SIGTERM)
	srv.Wait()
	for _, dir := range []string{a, b} {
		if _, err := os.Stat(record(dir)); err == nil {
			t.Errorf("%s still names the stopped server", record(dir))
		}
	}
}

// TestAttack_TheTokenFileIsTheUsersAndLoresOwn: a token file with mode
// 0644 was kept so and served, and any 32 or more characters (64 × "b")
// were taken as the token. Now the file is made the user's alone before it
// is used, and content lore did not make is replaced by a new token.
func TestAttack_TheTokenFileIsTheUsersAndLoresOwn(t *testing.T) {
	dir := demoVault(t)
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p := filepath.Join(v.DataDir(), warm.TokenFile)
	os.MkdirAll(v.DataDir(), 0o755)
	good := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	os.WriteFile(p, []byte(good+"\n"), 0o644)
	tok, err := httpToken(v)
	if err != nil || tok != good {
		t.Fatalf("a token lore made: %q, %v", tok, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("the token file is %v after use; want 0600", st.Mode().Perm())
	}
	for _, bad := range []string{strings.Repeat("b", 64), strings.Repeat("x", 40), "short"} {
		os.WriteFile(p, []byte(bad+"\n"), 0o644)
		tok, err := httpToken(v)
		if err != nil || tok == bad || !lorelikeToken(tok) {
			t.Errorf("token file %q: served %q, %v; want a new token", bad, tok, err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Errorf("the new token file is %v; want 0600", st.Mode().Perm())
		}
	}
}

// startWarm starts `lore mcp --http` in the vault dir with env added, and
// waits for its record (mcp-http.json); the server is stopped when the
// test ends.
func startWarm(t *testing.T, dir string, env ...string) {
	t.Helper()
	srv := exec.Command(binary(t), "mcp", "--http", "127.0.0.1:0")
	srv.Dir = dir
	srv.Env = append(os.Environ(), env...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	info := filepath.Join(dir, ".git", "lore", "mcp-http.json")
	for i := 0; i < 400; i++ {
		if _, err := os.Stat(info); err == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
}
