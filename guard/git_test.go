package guard

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/vault"
)

// added is each file's path and its added lines as "N:text".
func added(diffs []FileDiff) map[string][]string {
	out := map[string][]string{}
	for _, d := range diffs {
		var ls []string
		for _, l := range d.Added {
			ls = append(ls, strconv.Itoa(l.N)+":"+l.Text)
		}
		out[d.Path()] = ls
	}
	return out
}

// Changes reads, from a real repository through the git CLI: the staged
// changes (the zero Input) with the index's version as content, the work
// tree's (staged or not), whole files, HEAD's changes since a base, and a
// diff given as text; from a subfolder as from the root.
func TestChanges_ReadsEachInputFromGit(t *testing.T) {
	ctx := context.Background()
	root := testvault.Committed(t, map[string]string{"a.go": "one\ntwo\n", "sub/b.go": "b\n"})
	testvault.Git(t, root, "checkout", "-q", "-b", "feature")
	testvault.Write(t, root, "a.go", "one\ntwo\nstaged\n")
	testvault.Git(t, root, "add", "a.go")
	testvault.Write(t, root, "a.go", "one\ntwo\nstaged\nunstaged\n")
	testvault.Write(t, root, "new.go", "fresh\n")

	read := func(in Input) (map[string][]string, Content) {
		t.Helper()
		diffs, content, done, err := Changes(ctx, filepath.Join(root, "sub"), in)
		t.Cleanup(done)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		return added(diffs), content
	}
	got, content := read(Input{})
	if want := map[string][]string{"a.go": {"3:staged"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("staged: %v, want %v", got, want)
	}
	if data, ok := content("a.go"); !ok || string(data) != "one\ntwo\nstaged\n" {
		t.Errorf("staged content is the index's: %q %v", data, ok)
	}
	got, content = read(Input{WorkTree: true})
	if want := map[string][]string{"a.go": {"3:staged", "4:unstaged"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("work tree: %v, want %v", got, want)
	}
	if data, ok := content("a.go"); !ok || !strings.Contains(string(data), "unstaged") {
		t.Errorf("work tree content: %q %v", data, ok)
	}
	got, _ = read(Input{Files: []string{"new.go"}})
	if want := map[string][]string{"new.go": {"1:fresh"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("whole file: %v, want %v", got, want)
	}
	testvault.Git(t, root, "commit", "-qm", "staged")
	got, content = read(Input{Branch: "main"})
	if want := map[string][]string{"a.go": {"3:staged"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("since main: %v, want %v", got, want)
	}
	if data, ok := content("a.go"); !ok || string(data) != "one\ntwo\nstaged\n" {
		t.Errorf("a branch range's content is HEAD's: %q %v", data, ok)
	}
	got, _ = read(Input{Diff: []byte("diff --git a/x.go b/x.go\n+added\n")})
	if want := map[string][]string{"x.go": {"1:added"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("a diff given as text: %v, want %v", got, want)
	}
	paths, err := ChangedPaths(ctx, root, "")
	if err != nil || !reflect.DeepEqual(paths, []string{"a.go"}) {
		t.Errorf("ChangedPaths of the work tree: %v, %v", paths, err)
	}
}

// Bad input is invalid_input, and a base that looks like an option is
// never passed to git as one.
func TestChanges_RefusesWhatItCannotRead(t *testing.T) {
	ctx := context.Background()
	root := testvault.Committed(t, map[string]string{"a.go": "a\n"})
	for _, in := range []Input{
		{Diff: []byte("please review")},
		{Branch: "--output=/tmp/x"},
		{Branch: "no-such-branch"},
		{Files: []string{"../outside.go"}},
	} {
		_, _, done, err := Changes(ctx, root, in)
		done()
		if vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("%+v: %v; want invalid_input", in, err)
		}
	}
	if _, _, done, err := Changes(ctx, t.TempDir(), Input{}); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Errorf("staged changes outside any repository: %v", err)
	} else {
		done()
	}
}

// Install writes lore's pre-commit hook pinned to the binding, keeps a
// person's own hook to run first, updates its own in place; Uninstall puts
// the person's back and leaves a hook lore did not write alone; a hooks
// folder the repository tracks is not edited.
func TestInstall_KeepsThePersonsHook(t *testing.T) {
	ctx := context.Background()
	root := testvault.Committed(t, map[string]string{"a.go": "a\n"})
	r, err := OpenRepo(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := r.HookPath(ctx)
	if err != nil || hook != filepath.Join(root, ".git", "hooks", "pre-commit") {
		t.Fatalf("HookPath = %q, %v", hook, err)
	}
	own := "#!/bin/sh\necho the person's own check # mentions lore\n"
	testvault.Write(t, root, ".git/hooks/pre-commit", own)
	pin := Pin{Vault: "/v/it's", Project: "api", Rules: 3}
	did, err := r.Install(ctx, "/usr/bin/lore", pin)
	if err != nil || !strings.Contains(did, "runs first") {
		t.Fatalf("install over a person's hook: %q, %v", did, err)
	}
	data, _ := os.ReadFile(hook)
	if !IsLoreHook(data) || !strings.Contains(string(data), `--hook-vault '/v/it'\''s' --hook-project 'api' --hook-rules 3`) {
		t.Errorf("the hook lore wrote:\n%s", data)
	}
	if chained, _ := os.ReadFile(filepath.Join(filepath.Dir(hook), chained)); string(chained) != own {
		t.Errorf("the person's hook was not kept to run first: %q", chained)
	}
	if IsLoreHook([]byte(own)) {
		t.Error("a hook that only mentions lore counts as lore's")
	}
	if did, err := r.Install(ctx, "/usr/bin/lore", pin); err != nil || !strings.HasPrefix(did, "updated ") {
		t.Errorf("a second install: %q, %v", did, err)
	}
	if did, err := r.Uninstall(ctx); err != nil || !strings.Contains(did, "put back") {
		t.Fatalf("uninstall: %q, %v", did, err)
	}
	if data, _ := os.ReadFile(hook); string(data) != own {
		t.Errorf("after uninstall the hook is %q, want the person's back", data)
	}
	if _, err := r.Uninstall(ctx); err == nil {
		t.Error("uninstall removed a hook lore did not write")
	}
	if data, _ := os.ReadFile(hook); string(data) != own {
		t.Errorf("a second uninstall changed the person's hook: %q", data)
	}

	testvault.Write(t, root, ".husky/pre-commit", "#!/bin/sh\nnpm test\n")
	testvault.Git(t, root, "add", ".husky/pre-commit")
	testvault.Git(t, root, "commit", "-qm", "husky")
	testvault.Git(t, root, "config", "core.hooksPath", ".husky")
	if _, err := r.Install(ctx, "lore", pin); err == nil || !strings.Contains(err.Error(), "tracked by the repository") {
		t.Errorf("install into a tracked hooks folder: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".husky", "pre-commit")); string(data) != "#!/bin/sh\nnpm test\n" {
		t.Errorf("the tracked hook was edited: %q", data)
	}
}

// A repository with no commit yet has no HEAD to compare with: its work
// tree is compared with the empty tree, so the first commit of a new
// repository is checked like any other (git diff HEAD fails there, and the
// pre-tool hook refused that commit unchecked).
func TestChanges_TheFirstCommitOfANewRepository(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testvault.Git(t, root, "init", "-q", "-b", "main")
	testvault.Write(t, root, "a.go", "one\n")
	testvault.Git(t, root, "add", "a.go")
	testvault.Write(t, root, "a.go", "one\ntwo\n")
	for _, in := range []Input{{}, {WorkTree: true}} {
		diffs, content, done, err := Changes(ctx, root, in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		want := map[string][]string{"a.go": {"1:one"}}
		if in.WorkTree {
			want = map[string][]string{"a.go": {"1:one", "2:two"}}
		}
		if got := added(diffs); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: %v, want %v", in, got, want)
		}
		if _, ok := content("a.go"); !ok {
			t.Errorf("%+v: no content for a.go", in)
		}
		done()
	}
}
