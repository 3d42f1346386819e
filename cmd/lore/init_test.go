package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestStartup_LorePackagesInitCheaply runs `lore version` with
// GODEBUG=inittrace=1 and checks that no package of lore's own allocates
// more than 64 KB before main: every command, the warm path's included,
// pays for package init, and the stem table once made 1.2 MB of maps there
// (~3 ms of a 17 ms start). The same holds for the patched jsonschema module
// under mcp-go (third_party/jsonschema), whose upstream init compiled five
// metaschemas: 1.7 MB and ~5 ms. Bytes, not time: the test asserts no clock.
func TestStartup_LorePackagesInitCheaply(t *testing.T) {
	cmd := exec.Command(binary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lore version: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/lore-memory/lore/fts @15 ms, 3.6 ms clock, 1231960 bytes, 652 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/lore-memory/lore/") && f[1] != "github.com/santhosh-tekuri/jsonschema/v6" {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		if n > 64<<10 {
			t.Errorf("package %s allocates %d bytes at init (at most 64 KB): make it on first use", f[1], n)
		}
	}
	if seen == 0 {
		t.Fatalf("no init line of a lore package in:\n%s", stderr.String())
	}
}
