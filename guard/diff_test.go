package guard

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDiff(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name string
		in   string
		want []FileDiff
	}{
		{"modify", "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n",
			[]FileDiff{{OldPath: "a.go", NewPath: "a.go", Status: "modified", Added: []Line{{2, "TWO"}, {3, "2b"}}}}},
		{"zero context", "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -10 +10 @@ func x\n-old\n+new\n@@ -20,0 +21,2 @@\n+x\n+y\n",
			[]FileDiff{{OldPath: "a.go", NewPath: "a.go", Status: "modified", Added: []Line{{10, "new"}, {21, "x"}, {22, "y"}}}}},
		{"new file", "diff --git a/n.sh b/n.sh\nnew file mode 100755\nindex 0000000..1\n--- /dev/null\n+++ b/n.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+git push --force\n",
			[]FileDiff{{NewPath: "n.sh", Status: "added", Added: []Line{{1, "#!/bin/sh"}, {2, "git push --force"}}}}},
		{"deleted", "diff --git a/d.go b/d.go\ndeleted file mode 100644\n--- a/d.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			[]FileDiff{{OldPath: "d.go", Status: "deleted"}}},
		{"rename only", "diff --git a/old.go b/new.go\nsimilarity index 100%\nrename from old.go\nrename to new.go\n",
			[]FileDiff{{OldPath: "old.go", NewPath: "new.go", Status: "renamed"}}},
		{"rename with edit", "diff --git a/x/old.go b/y/new.go\nsimilarity index 90%\nrename from x/old.go\nrename to y/new.go\n--- a/x/old.go\n+++ b/y/new.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]FileDiff{{OldPath: "x/old.go", NewPath: "y/new.go", Status: "renamed", Added: []Line{{1, "b"}}}}},
		{"binary", "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n",
			[]FileDiff{{OldPath: "img.png", NewPath: "img.png", Status: "modified", Binary: true}}},
		{"crlf", "diff --git a/w.txt b/w.txt\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1 +1,2 @@\r\n-a\r\n+b\r\n+c\r\n",
			[]FileDiff{{OldPath: "w.txt", NewPath: "w.txt", Status: "modified", Added: []Line{{1, "b"}, {2, "c"}}}}},
		{"no newline at end", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
			[]FileDiff{{OldPath: "f", NewPath: "f", Status: "modified", Added: []Line{{1, "b"}}}}},
		{"removed lines that look like headers", "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n-+++ odd\n+++ new\n+-- c\n",
			[]FileDiff{{OldPath: "q.sql", NewPath: "q.sql", Status: "modified", Added: []Line{{1, "++ new"}, {2, "-- c"}}}}},
		{"quoted path", "diff --git \"a/caf\\303\\251 file.md\" \"b/caf\\303\\251 file.md\"\n--- \"a/caf\\303\\251 file.md\"\n+++ \"b/caf\\303\\251 file.md\"\n@@ -1 +1 @@\n-a\n+b\n",
			[]FileDiff{{OldPath: "café file.md", NewPath: "café file.md", Status: "modified", Added: []Line{{1, "b"}}}}},
		{"space in path", "diff --git a/my file.go b/my file.go\n--- a/my file.go\n+++ b/my file.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]FileDiff{{OldPath: "my file.go", NewPath: "my file.go", Status: "modified", Added: []Line{{1, "b"}}}}},
		{"mode change only", "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n",
			[]FileDiff{{OldPath: "s.sh", NewPath: "s.sh", Status: "modified"}}},
		{"plain diff -u, two files", "--- a.txt\t2024-01-01 00:00:00\n+++ a.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n--- b.txt\n+++ b.txt\n@@ -1,0 +2 @@\n+c\n",
			[]FileDiff{{OldPath: "a.txt", NewPath: "a.txt", Status: "modified", Added: []Line{{1, "b"}}}, {OldPath: "b.txt", NewPath: "b.txt", Status: "modified", Added: []Line{{2, "c"}}}}},
		{"preamble and empty context line", "commit abc\nAuthor: x\n\ndiff --git a/e b/e\n--- a/e\n+++ b/e\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n",
			[]FileDiff{{OldPath: "e", NewPath: "e", Status: "modified", Added: []Line{{3, "C"}}}}},
		{"very long line", "diff --git a/l b/l\n--- a/l\n+++ b/l\n@@ -0,0 +1 @@\n+" + long + "\n",
			[]FileDiff{{OldPath: "l", NewPath: "l", Status: "modified", Added: []Line{{1, long}}}}},
		{"empty", "", nil},
	} {
		got, err := ParseDiff([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			if len(c.in) > 1000 {
				t.Errorf("%s: wrong result (%d files)", c.name, len(got))
			} else {
				t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
			}
		}
	}
}

func TestParseDiffErrors(t *testing.T) {
	for _, in := range []string{
		"diff --cc a.go\n",
		"diff --git a/a b/a\n@@ bad @@\n",
		"+++ b/x\n",
		"@@ -1 +1 @@\n+x\n",
		"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,99999999999 +1 @@\n",
	} {
		if _, err := ParseDiff([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// FuzzParseDiff: any input either parses or fails with an error; added
// lines have positive numbers and never contain a newline.
func FuzzParseDiff(f *testing.F) {
	for _, s := range []string{
		"diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n",
		"diff --git a/old b/new\nrename from old\nrename to new\n",
		"--- a\n+++ b\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\r\n",
		"diff --git \"a/\\303\\251\" \"b/\\303\\251\"\nBinary files differ\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ParseDiff(data)
		if err != nil {
			return
		}
		for _, fd := range files {
			for _, l := range fd.Added {
				if l.N <= 0 || strings.ContainsRune(l.Text, '\n') {
					t.Fatalf("bad line %+v in %+v", l, fd)
				}
			}
		}
	})
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.sh", "deploy.sh", true}, {"*.sh", "scripts/ci/deploy.sh", true}, {"*.sh", "deploy.shx", false},
		{"scripts/**", "scripts/a/b.sh", true}, {"scripts/**", "other/scripts/a.sh", false},
		{"**/*.go", "a.go", true}, {"**/*.go", "x/y/a.go", true}, {"**/*.go", "x/y/a.rs", false},
		{"mcp/**/*.go", "mcp/server.go", true}, {"mcp/**/*.go", "mcp/x/y.go", true}, {"mcp/**/*.go", "cmd/mcp/x.go", false},
		{"src/*.rs", "src/db.rs", true}, {"src/*.rs", "src/a/db.rs", false}, {"/src/*.rs", "src/db.rs", true},
	} {
		if got := Match(c.glob, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.glob, c.path, got)
		}
	}
}
