package stale

import (
	"strings"
	"testing"

	"github.com/lore-memory/lore/markdown"
)

// What counts as a citation, and what does not: each form cite.go names
// (and docs/decisions/stale-citations.md), the section and line each is
// found in, and the shapes that are prose, other tools' words or ways out
// of the repository.
func TestCite_WhatCounts(t *testing.T) {
	note := "---\ncode: [internal/auth.go, Session.Close, 3f2a1c9d]\n---\n# Sync\n\n## Retry\n\n" +
		"`sync/retry.go`, `sync/retry.go:40`, `sync/retry.go:40-60`, `sync/retry.go#L4-L7`, `cmd/lore/`,\n" +
		"`backoffFor`, `Store.Merge`, `max_retries`, `flush()`, fixed in commit `9e8d7c6b`.\n" +
		"[the file](https://github.com/acme/app/blob/main/sync/queue.go#L10-L12) and [a fix](https://github.com/acme/app/commit/a1b2c3d4e5).\n\n" +
		"## Not citations\n\nRun `make test`, send `application/json` (it counts: names joined by a slash), " +
		"read `README`, use `true`, `Merge`, hash `deadbeef1`, `../etc/passwd`, `/etc/passwd`, `1.2.3`.\n" +
		"[elsewhere](https://github.com/other/repo/blob/main/x.go), plain words like backoffFor.\n" +
		"```go\nfunc gone() { `sync/fenced.go` }\n```\n"
	r, err := markdown.Parse("notes/sync.md", []byte(note))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Citation{}
	for _, c := range Cite(r, []byte(note), Origin("git@github.com:acme/app.git")) {
		got[c.Text] = c
	}
	want := map[string]string{
		"internal/auth.go": KindPath, "Session.Close": KindIdentifier, "3f2a1c9d": KindCommit,
		"sync/retry.go": KindPath, "sync/retry.go:40": KindLines, "sync/retry.go:40-60": KindLines, "sync/retry.go#L4-L7": KindLines, "cmd/lore/": KindPath,
		"backoffFor": KindIdentifier, "Store.Merge": KindIdentifier, "max_retries": KindIdentifier, "flush()": KindIdentifier, "9e8d7c6b": KindCommit,
		"https://github.com/acme/app/blob/main/sync/queue.go#L10-L12": KindLines, "https://github.com/acme/app/commit/a1b2c3d4e5": KindCommit,
		"application/json": KindPath,
	}
	for text, kind := range want {
		if c, ok := got[text]; !ok || c.Kind != kind {
			t.Errorf("%q: got %+v, want a %s citation", text, c, kind)
		}
	}
	for text := range got {
		if _, ok := want[text]; !ok {
			t.Errorf("%q read as a citation", text)
		}
	}
	if c := got["sync/retry.go#L4-L7"]; c.Path != "sync/retry.go" || c.From != 4 || c.To != 7 {
		t.Errorf("a #L range: %+v", c)
	}
	if c := got["Store.Merge"]; c.Ident != "Merge" || strings.Join(c.Scope, ",") != "sync/retry.go,sync/queue.go" || c.Line != 9 || c.HeadingPath[len(c.HeadingPath)-1] != "Retry" {
		t.Errorf("an identifier's name, scope and place: %+v", c)
	}
	if c := got["Session.Close"]; c.Line != 0 || c.Scope != nil {
		t.Errorf("a frontmatter entry: %+v", c)
	}
	if c := got["https://github.com/acme/app/blob/main/sync/queue.go#L10-L12"]; c.Path != "sync/queue.go" || c.From != 10 || c.To != 12 {
		t.Errorf("a link into the remote: %+v", c)
	}
}

func TestOrigin(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/acme/app.git":   "github.com/acme/app",
		"git@github.com:acme/app.git":       "github.com/acme/app",
		"ssh://git@GitHub.com:22/acme/app/": "github.com/acme/app",
		"/srv/git/app.git":                  "",
		"file:///srv/git/app.git":           "",
	} {
		if got := Origin(url); got != want {
			t.Errorf("Origin(%q) = %q, want %q", url, got, want)
		}
	}
}
