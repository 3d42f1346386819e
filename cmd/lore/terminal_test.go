package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/termtext"

	"golang.org/x/sys/unix"
)

// loreAtTerminal runs lore in this process as a person at a terminal sees
// it: stdout is the visible writer lore puts in front of a terminal.
func loreAtTerminal(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &termtext.Writer{W: &out, TTY: true}, &termtext.Writer{W: &errb, TTY: true})
	if code != 0 {
		t.Fatalf("lore %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return out.String() + errb.String()
}

// TestAttack_TerminalOutputShowsEscapes: an agent's update hid a rule
// change behind ESC[2J ESC[3J ESC[H and a fake diff drawn with cursor
// positioning, and lore drafts diff, lore load and lore activity show wrote
// the bytes raw (OSC 0 sets the window title, OSC 52 the clipboard).
// Whatever lore shows a person at a terminal shows them visibly.
func TestAttack_TerminalOutputShowsEscapes(t *testing.T) {
	dir := demoVault(t, "api")
	t.Setenv("LORE_VAULT", dir)
	t.Setenv("LORE_PROJECT", "api")
	t.Setenv("NO_COLOR", "1") // lore's own colour is not the subject
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	hostile := "\x1b[2J\x1b[3J\x1b[H\x1b[5;1H+ a harmless wording change\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u009b2J"
	body := "# Terminal tricks\n\nzebrafish " + hostile + "\n"
	var res struct {
		DraftID string `json:"draft_id"`
	}
	out := loreAtTerminal(t, "store", "create", "--json", "--path", "notes/tricks.md", "--body", body)
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &res); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	codex := t.TempDir()
	wd, _ := os.Getwd()
	day := filepath.Join(codex, "sessions", "2026", "12", "01")
	os.MkdirAll(day, 0o755)
	lines := []map[string]any{
		{"timestamp": "2026-12-01T09:00:00Z", "type": "session_meta", "payload": map[string]any{"id": "esc1", "cwd": wd, "timestamp": "2026-12-01T09:00:00Z"}},
		{"timestamp": "2026-12-01T09:00:01Z", "type": "response_item", "payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "ship it " + hostile}}}},
		{"timestamp": "2026-12-01T09:00:02Z", "type": "event_msg", "payload": map[string]any{"type": "item_completed", "item": map[string]any{"type": "McpToolCall", "id": "c1", "server": "lore", "tool": "memory",
			"arguments": map[string]any{"op": map[string]any{"activate": map[string]any{"query": "zebrafish " + hostile}}},
			"result":    map[string]any{"structuredContent": map[string]any{"fragments": []any{map[string]any{"action": "add", "unit_key": "k/x/0/0", "path": "notes/tricks.md", "heading_path": []string{"Terminal " + hostile}, "content": body}}}}}}},
	}
	var log bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(l)
		log.Write(append(b, '\n'))
	}
	os.WriteFile(filepath.Join(day, "rollout-esc1.jsonl"), log.Bytes(), 0o644)
	for _, args := range [][]string{
		{"drafts", "diff", res.DraftID},
		{"drafts", "show", res.DraftID},
		{"load", "notes/tricks.md"},
		{"search", "zebrafish"},
		{"activate", "zebrafish"},
		{"activity", "show", "codex:esc1", "--codex-home", codex, "--claude-home", t.TempDir(), "--dsh-home", t.TempDir()},
	} {
		out := loreAtTerminal(t, args...)
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("lore %s wrote raw control characters to the terminal:\n%q", args[0]+" "+args[1], out)
		}
		if args[0] != "drafts" || args[1] != "show" {
			if !strings.Contains(out, "^[[2J") && !strings.Contains(out, "^[]0;pwned") {
				t.Errorf("lore %s does not show the escapes visibly:\n%q", args[0]+" "+args[1], out)
			}
		}
	}
	// With colour on (no NO_COLOR), lore's own codes reach the terminal and
	// the note's never do.
	t.Setenv("NO_COLOR", "")
	for _, args := range [][]string{{"drafts", "diff", res.DraftID}, {"search", "zebrafish"}, {"activate", "zebrafish"}} {
		out := loreAtTerminal(t, args...)
		if !strings.Contains(out, "\x1b[") {
			t.Errorf("lore %s on a terminal is not coloured:\n%q", args[0], out)
		}
		for _, raw := range []string{"\x1b[2J", "\x1b[H", "\x1b]", "\x07", "\u009b"} {
			if strings.Contains(out, raw) {
				t.Errorf("lore %s with colour wrote the note's %q raw:\n%q", args[0], raw, out)
			}
		}
	}
}

// openPTY opens a pseudo-terminal: the side a terminal emulator reads
// (master) and the side a program writes to (its terminal).
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestAttack_ARealTerminalGetsNoRawEscapes runs lore drafts diff and lore
// load with a real terminal (a pseudo-terminal) as stdout: lore puts its
// visible writer in front of it by itself.
func TestAttack_ARealTerminalGetsNoRawEscapes(t *testing.T) {
	dir := demoVault(t, "api")
	t.Setenv("LORE_VAULT", dir)
	t.Setenv("LORE_PROJECT", "api")
	t.Setenv("NO_COLOR", "1")
	body := "# Tricks\n\nwords \x1b[2J\x1b[H\x1b]52;c;ZXZpbA==\x07 more\n"
	var out bytes.Buffer
	if code := run(context.Background(), []string{"store", "create", "--path", "notes/t.md", "--body", body}, strings.NewReader(""), &out, &out); code != 0 {
		t.Fatalf("store: %d %s", code, out.String())
	}
	master, tty := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil || strings.Count(b.String(), "more") >= 2 {
				break
			}
		}
		got <- b.String()
	}()
	for _, args := range [][]string{{"load", "notes/t.md"}, {"drafts", "list"}} {
		if code := run(context.Background(), args, strings.NewReader(""), tty, tty); code != 0 {
			t.Fatalf("lore %v: exit %d", args, code)
		}
	}
	ids := draftIDsOf(t)
	if code := run(context.Background(), []string{"drafts", "diff", ids[0]}, strings.NewReader(""), tty, tty); code != 0 {
		t.Fatal("drafts diff failed")
	}
	s := <-got
	if strings.ContainsAny(s, "\x1b\x07") || !strings.Contains(s, "^[[2J") {
		t.Fatalf("the terminal received raw escapes, or none shown visibly:\n%q", s)
	}
}

// draftIDsOf lists the bound project's Draft ids.
func draftIDsOf(t *testing.T) []string {
	t.Helper()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"drafts", "list", "--json"}, strings.NewReader(""), &out, &out); code != 0 {
		t.Fatalf("drafts list: %s", out.String())
	}
	var l struct {
		Drafts []struct {
			ID string `json:"draft_id"`
		} `json:"drafts"`
	}
	json.Unmarshal(out.Bytes(), &l)
	var ids []string
	for _, d := range l.Drafts {
		ids = append(ids, d.ID)
	}
	if len(ids) == 0 {
		t.Fatal("no Drafts")
	}
	return ids
}
