// Package shareddata finds the evaluation data that is handed to the
// project beside its checkout (../shared: the Obsidian Hub, SciFact), for
// the tests and benchmarks that run on real vaults. The data is never
// copied into the repository; a test that needs it skips with one line
// naming what is missing when it is absent (LORE_SHARED names another
// folder).
package shareddata

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the shared folder: $LORE_SHARED, else ../shared beside the
// repository's root (the folder holding go.mod).
func Dir() (string, error) {
	if d := os.Getenv("LORE_SHARED"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + wd)
		}
	}
}

// HubArchive is the Obsidian Hub's archive inside the shared folder.
const HubArchive = "data/obsidian-hub/obsidian-hub.tar.gz"

// Note is one Markdown file of a vault: its slash path and bytes.
type Note struct {
	Path string
	Data []byte
}

// Hub returns every Markdown file of the Obsidian Hub (paths relative to
// the vault's root), or skips t when the archive is absent.
func Hub(t testing.TB) []Note {
	t.Helper()
	notes, err := ReadHub()
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("skipped: the Obsidian Hub is not at %s (set LORE_SHARED to the folder that holds %s)", hubPath(), HubArchive)
	}
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

func hubPath() string {
	d, err := Dir()
	if err != nil {
		return "../shared/" + HubArchive
	}
	return filepath.Join(d, filepath.FromSlash(HubArchive))
}

// ReadHub reads the Obsidian Hub's Markdown files from its archive; the
// error wraps os.ErrNotExist when the archive is absent.
func ReadHub() ([]Note, error) {
	f, err := os.Open(hubPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	var notes []Note
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return notes, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
		name := path.Clean(h.Name)
		rel, ok := strings.CutPrefix(name, "hub/")
		if h.Typeflag != tar.TypeReg || !ok || !strings.HasSuffix(rel, ".md") {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", f.Name(), name, err)
		}
		notes = append(notes, Note{Path: rel, Data: data})
	}
}

// WriteHub unpacks the Hub's Markdown files into dir (skipping t when the
// archive is absent) and returns how many it wrote.
func WriteHub(t testing.TB, dir string) int {
	t.Helper()
	notes := Hub(t)
	for _, n := range notes {
		p := filepath.Join(dir, filepath.FromSlash(n.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, n.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return len(notes)
}
