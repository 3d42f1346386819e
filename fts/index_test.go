package fts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lore-memory/lore/internal/testvault"
	"github.com/lore-memory/lore/tokenize"
	"github.com/lore-memory/lore/vault"
)

func TestSearch_DemoVault(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, testvault.ReadFixture(t, "../testdata/demo-vault"))
	for _, tc := range []struct{ q, want string }{
		{"how do we ship a new release", "howto/release.md"},
		{"parseConfigFile", "howto/parse-config.md"},
		{"parse config", "howto/parse-config.md"},
		{"max_retry_count", "decisions/0004-retry-budget.md"},
		{"maxRetryCount", "decisions/0004-retry-budget.md"},
		{"internal/sync/outbox.go", "decisions/0004-retry-budget.md"},
		{"outbox", "decisions/0004-retry-budget.md"},
		{"并发", "architecture/mcp.md"},
		{"检索", "architecture/retrieval-design.md"},
		{"回滚", "projects/web/发布流程.md"},
		{"mem_01JDEMO0000000000000000031", "architecture/mcp.md"},
		{"howto/run-tests.md", "howto/run-tests.md"},
		{"Glossary", "guides/glossary.md"},
		{"the", "architecture/drafts.md"}, // stop words alone still answer
	} {
		got := tv.topPath(tc.q)
		if tc.q == "the" {
			if got == "" {
				t.Errorf("%q found nothing; a stop-word query must still answer", tc.q)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("search %q: top = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestSearch_ExactMatchComesFirst(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"a.md": "---\nid: mem_a\ntitle: Release\n---\n# Release\n\nshort\n",
		"b.md": "---\nid: mem_b\n---\n# Many\n\nrelease release release release release release\n",
	})
	hits := tv.search("release", vault.SearchOptions{})
	if len(hits) == 0 || hits[0].ResourceID != "mem_a" || hits[0].Stage != "exact" {
		t.Fatalf("hits = %+v, want the title match first", hits)
	}
	if hits := tv.search("mem_b", vault.SearchOptions{}); hits[0].ResourceID != "mem_b" || hits[0].Stage != "exact" {
		t.Errorf("id search: %+v", hits[0])
	}
}

func TestSearch_ProjectsSeeSharedAndTheirOwn(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"shared.md":          "# Shared\n\nwidget policy\n",
		"projects/api/a.md":  "# API\n\nwidget limits\n",
		"projects/web/w.md":  "# Web\n\nwidget colors\n",
		"projects/readme.md": "# Not a project file\n\nwidget index\n",
	})
	hits := tv.search("widget", vault.SearchOptions{Project: "api"})
	if !testvault.HasPath(hits, "shared.md") || !testvault.HasPath(hits, "projects/api/a.md") || !testvault.HasPath(hits, "projects/readme.md") {
		t.Errorf("api misses its own or shared notes: %+v", hits)
	}
	if testvault.HasPath(hits, "projects/web/w.md") {
		t.Errorf("api sees web's notes")
	}
	if len(tv.search("widget", vault.SearchOptions{})) != 4 {
		t.Errorf("without a project every note should be visible")
	}
	if _, err := tv.Ix.Load(context.Background(), []string{"projects/web/w.md"}, "api"); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("api loaded web's note: err = %v", err)
	}
}

func TestFreshness_PersonEditsAreSeenByTheNextSearch(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"a.md": "# A\n\nalpha original\n",
		"b.md": "# B\n\nbravo\n",
		"c.md": "# C\n\ncharlie\n",
	})
	tv.Git("add", "-A")
	tv.Git("commit", "-qm", "start")
	if tv.topPath("alpha") != "a.md" {
		t.Fatal("setup: a.md not found")
	}

	tv.Write("a.md", "# A\n\nalpha zebra\n") // edit
	if tv.topPath("zebra") != "a.md" {
		t.Errorf("edit not seen")
	}
	tv.Write("d.md", "# D\n\ndelta yak\n") // add
	if tv.topPath("yak") != "d.md" {
		t.Errorf("new file not seen")
	}
	os.Remove(filepath.Join(tv.Root, "c.md")) // delete
	if got := tv.topPath("charlie"); got != "" {
		t.Errorf("deleted file still found: %s", got)
	}
	os.Rename(filepath.Join(tv.Root, "b.md"), filepath.Join(tv.Root, "renamed.md")) // rename
	if got := tv.topPath("bravo"); got != "renamed.md" {
		t.Errorf("renamed file: top = %q", got)
	}

	tv.Git("stash", "-u") // back to the committed tree
	if got := tv.topPath("zebra"); got != "" {
		t.Errorf("after git stash, stashed edit still found in %s", got)
	}
	if tv.topPath("charlie") != "c.md" {
		t.Errorf("after git stash, restored file not found")
	}
	tv.Git("stash", "pop")
	if tv.topPath("zebra") != "a.md" || tv.topPath("yak") != "d.md" {
		t.Errorf("after git stash pop, edits not found")
	}
	tv.Git("checkout", "-q", "-b", "other")
	tv.Git("add", "-A")
	tv.Git("commit", "-qm", "other")
	tv.Git("checkout", "-q", "main")
	if got := tv.topPath("yak"); got != "" {
		t.Errorf("after git checkout main, file of the other branch still found: %s", got)
	}
}

func TestFreshness_SameSizeEditWithinTheSameClockTick(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nfirst\n"})
	tv.topPath("first")
	full := filepath.Join(tv.Root, "a.md")
	st, _ := os.Stat(full)
	tv.Write("a.md", "# A\n\nthird\n") // same size
	os.Chtimes(full, st.ModTime(), st.ModTime())
	// Same size and mtime: stat alone cannot tell. A rebuild must.
	if _, err := tv.Ix.Rebuild(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if tv.topPath("third") != "a.md" {
		t.Errorf("rebuild did not pick up the edit")
	}
}

func TestRefresh_ReportsWhatChanged(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nx\n", "b.md": "# B\n\ny\n"})
	ctx := context.Background()
	st, err := tv.Ix.Refresh(ctx, nil)
	if err != nil || st.Added != 2 {
		t.Fatalf("first refresh: %+v, %v", st, err)
	}
	if st, _ = tv.Ix.Refresh(ctx, nil); !st.Unchanged {
		t.Errorf("second refresh changed something: %+v", st)
	}
	full := filepath.Join(tv.Root, "a.md")
	data, _ := os.ReadFile(full)
	os.WriteFile(full, data, 0o644) // touched, same bytes
	if st, _ = tv.Ix.Refresh(ctx, nil); st.Touched != 1 || st.Updated != 0 {
		t.Errorf("touch: %+v, want one re-stamped file and no re-index", st)
	}
}

func TestIndex_BadFilesAreReportedNotFatal(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"good.md":    "# Good\n\nfine words\n",
		"badyaml.md": "---\ntitle: [oops\n---\n# Bad\n\nsearchable despite yaml\n",
		"binary.md":  "PK\x03\x04\x00\x00binary",
		"latin1.md":  "caf\xe9 words",
		"empty.md":   "",
	})
	big := filepath.Join(tv.Root, "huge.md")
	f, _ := os.Create(big)
	f.Truncate(50 << 20) // 50 MB
	f.Close()
	if tv.topPath("despite") != "badyaml.md" {
		t.Errorf("file with invalid frontmatter is not searchable as text")
	}
	st, err := tv.Ix.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	problems := map[string]string{}
	for _, p := range st.Problems {
		problems[p.Path] = p.Message
	}
	for p, word := range map[string]string{"badyaml.md": "YAML", "binary.md": "NUL", "latin1.md": "UTF-8", "huge.md": "limit"} {
		if !strings.Contains(problems[p], word) {
			t.Errorf("problem for %s = %q, want it to mention %q", p, problems[p], word)
		}
	}
	if st.Resources != 3 || st.Skipped != 3 {
		t.Errorf("stats = %+v, want 3 indexed (good, badyaml, empty) and 3 skipped", st)
	}
	if _, err := tv.Ix.Load(context.Background(), []string{"binary.md"}, ""); vault.ErrorCode(err) != vault.CodeInvalid {
		t.Errorf("loading a binary file: %v, want invalid_input", err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	text := "---\nid: mem_x\ntitle: X\ndescription: d\n---\n# X\n\nbody\n"
	tv := newTestVault(t, map[string]string{"dir/x.md": text, "noid.md": "# N\n"})
	ctx := context.Background()
	res, err := tv.Ix.Load(ctx, []string{"mem_x", "noid.md"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Content != text || res[0].ContentHash != vault.HashBytes([]byte(text)) || res[0].Path != "dir/x.md" || res[0].Description != "d" {
		t.Errorf("load mem_x = %+v", res[0])
	}
	if res[1].ResourceID != vault.DerivedID("noid.md") {
		t.Errorf("file without id: resource_id %q", res[1].ResourceID)
	}
	_, err = tv.Ix.Load(ctx, []string{"mem_x", "mem_missing", "gone.md"}, "")
	if vault.ErrorCode(err) != vault.CodeNotFound || !strings.Contains(err.Error(), "mem_missing") || !strings.Contains(err.Error(), "gone.md") {
		t.Errorf("missing targets: err = %v, want memory_resource_not_found naming both", err)
	}
	for _, bad := range []string{"../x.md", "/etc/passwd.md", "a\x00.md"} {
		if _, err := tv.Ix.Load(ctx, []string{bad}, ""); vault.ErrorCode(err) != vault.CodeInvalid {
			t.Errorf("Load(%q) err = %v, want invalid_input", bad, err)
		}
	}
}

func TestIndex_DuplicateIDsKeepTheSmallerPath(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"b.md": "---\nid: mem_dup\n---\n# B\n\nbee\n"})
	tv.topPath("bee")
	tv.Write("a.md", "---\nid: mem_dup\n---\n# A\n\nant\n")
	res, err := tv.Ix.Load(context.Background(), []string{"mem_dup"}, "")
	if err != nil || res[0].Path != "a.md" {
		t.Fatalf("mem_dup → %+v, %v; want a.md", res, err)
	}
	if hits := tv.search("bee", vault.SearchOptions{}); hits[0].ResourceID != vault.DerivedID("b.md") || !strings.HasPrefix(hits[0].UnitKey, vault.DerivedID("b.md")+"/") {
		t.Errorf("b.md hit = %+v, want its derived id", hits[0])
	}
	os.Remove(filepath.Join(tv.Root, "a.md"))
	if res, err := tv.Ix.Load(context.Background(), []string{"mem_dup"}, ""); err != nil || res[0].Path != "b.md" {
		t.Errorf("after a.md is deleted, mem_dup → %+v, %v; want b.md to get it back", res, err)
	}
}

func TestIndex_TwoProcessesShareOneFile(t *testing.T) {
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nfirst\n"})
	other, err := Open(context.Background(), tv.V)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tv.topPath("first")
	if hits, _ := other.Lookups().BM25(context.Background(), tokenize.QueryTerms("first"), "", 10); len(hits) != 1 {
		t.Errorf("second handle does not see the first one's index")
	}
	tv.Write("b.md", "# B\n\nsecond\n")
	if hits, _ := searchUnits(context.Background(), other, "second", vault.SearchOptions{}); len(hits) != 1 {
		t.Errorf("second handle did not pick up the change")
	}
	if tv.topPath("second") != "b.md" {
		t.Errorf("first handle does not see what the second indexed")
	}
}

func TestIndex_SymlinkOutOfTheVaultIsRefused(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# S\n\nclassified\n"), 0o644)
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nx\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(tv.Root, "leak.md")); err != nil {
		t.Skip(err)
	}
	if got := tv.topPath("classified"); got != "" {
		t.Errorf("a symlink out of the vault was indexed: %s", got)
	}
	if _, err := tv.Ix.Load(context.Background(), []string{"leak.md"}, ""); err == nil {
		t.Errorf("a symlink out of the vault was loaded")
	}
}

func TestRefresh_FileDeletedWhileBeingIndexed(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbravo\n"})
	tv.topPath("alpha")
	// The file is seen by the walk, then gone when it is read.
	c := &change{stat: vault.FileStat{Path: "a.md", FSPath: "a.md", Size: 1, ModNs: 1}, old: &fileRow{}}
	os.Remove(filepath.Join(tv.Root, "a.md"))
	tv.Ix.prepareOne(c, nil)
	if !c.gone {
		t.Fatalf("a file deleted before it was read is not marked gone: %+v", c)
	}
	var st RefreshStats
	if err := tv.Ix.apply(context.Background(), []*change{c}, nil, &st, false); err != nil {
		t.Fatal(err)
	}
	if st.Removed != 1 || tv.topPath("alpha") != "" || tv.topPath("bravo") != "b.md" {
		t.Errorf("after the vanished file: %+v", st)
	}
}

// A cancelled Refresh stops between files, leaves only whole batches
// written, and the next Refresh indexes the rest.
func TestRefresh_Cancelled(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	n := batchSize + 150
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nword%d and the shared text.\n", i, i)
	}
	tv := newTestVault(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	written := 0
	_, err := tv.Ix.Refresh(ctx, func(done, total int) {
		if written == 0 {
			written = done
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Refresh with a cancelled context: err = %v, want context.Canceled", err)
	}
	st, err := tv.Ix.Refresh(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if written == 0 || st.Added != n-written {
		t.Errorf("after the cancelled Refresh (%d written): added %d, want %d", written, st.Added, n-written)
	}
	if got := tv.topPath(fmt.Sprintf("word%d", n-1)); got != fmt.Sprintf("n%04d.md", n-1) {
		t.Errorf("last note: top = %q", got)
	}
	// Both refreshes wrote several batches, each turning FTS5's merging off
	// for its writing (ftsAutomerge): what was committed, the first one's
	// finished batch included, has it on.
	var automerge string
	if err := tv.Ix.db.QueryRow("SELECT v FROM units_fts_config WHERE k = 'automerge'").Scan(&automerge); err != nil {
		t.Fatal(err)
	}
	if automerge != fmt.Sprint(ftsAutomerge) {
		t.Errorf("FTS5 automerge = %s after the refreshes, want %d", automerge, ftsAutomerge)
	}
}

// Links are written at the end of their batch, in one statement: each file's
// wikilinks and Markdown links arrive whole, with their headings.
func TestIndex_LinksAreStored(t *testing.T) {
	defer func(n int) { maxPendingLinks = n }(maxPendingLinks)
	maxPendingLinks = 2 // and in pieces when a batch holds many
	tv := newTestVault(t, map[string]string{
		"a.md": "# A\n\nSee [[Release]], [[发布流程#回滚|rollback]] and [the guide](docs/guide.md).\n",
		"b.md": "# B\n\nNo links. `[[not a link]]`\n",
	})
	if _, err := tv.Ix.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rows, err := tv.Ix.db.Query(`SELECT r.path, l.kind, l.target, l.heading FROM links l JOIN resources r ON r.rid = l.rid ORDER BY l.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var p, k, tg, h string
		if err := rows.Scan(&p, &k, &tg, &h); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{p, k, tg, h}, "|"))
	}
	want := []string{"a.md|wikilink|Release|", "a.md|wikilink|发布流程|回滚", "a.md|markdown|docs/guide.md|"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A new index file has indexPageSize pages and is in WAL mode; an existing
// one keeps the page size it was made with.
func TestIndex_NewFilePageSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tv := newTestVault(t, map[string]string{"a.md": "# A\n\nfirst\n"})
	tv.topPath("first")
	var size int
	var mode string
	if err := tv.Ix.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil || size != indexPageSize {
		t.Errorf("page size %d, %v: want %d", size, err, indexPageSize)
	}
	if err := tv.Ix.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v: want wal", mode, err)
	}

	old := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite3", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	if err := newIndexFile(ctx, old); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil || size != 4096 {
		t.Errorf("an existing file's page size after newIndexFile: %d, %v; want its 4096 kept", size, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE name = 't'").Scan(&tables); err != nil || tables != 1 {
		t.Errorf("an existing file's table after newIndexFile: %d, %v; want it kept", tables, err)
	}
}

// A note is found by every name Obsidian's quick switcher finds it by —
// title, alias, file name — in the exact stage of search, in load and in
// links, with the tie rule links use: the stronger kind of name (a file
// name before another note's title or alias), then the shorter path. The
// exact stage delivers the note's first section that says something, not
// a preamble of badges and comments.
func TestExactAndLoad_FindANoteByTitleAliasAndFileName(t *testing.T) {
	t.Parallel()
	hotkeys := "---\naliases:\n  - Keyboard shortcuts\n  - .config\n---\n%% badges %%\n![build](https://img.example/badge.svg)\n%% end %%\n\n# Hotkeys\n\nSet a hotkey in Settings → Hotkeys.\n"
	tv := newTestVault(t, map[string]string{
		"help/Hotkeys.md":              hotkeys,
		"help/Configuration folder.md": "# Configuration folder\n\nThe vault's settings live in .obsidian.\n",
		"notes/links.md":               "# Links\n\nSee [[Keyboard shortcuts]] and [[Quokka]], keyboard shortcuts everywhere.\n",
		"zoo/Quokka.md":                "---\ntitle: Small marsupial\naliases: [Quokka]\n---\n# Small marsupial\n\nIt smiles.\n",
		"zoo/Quokka notes.md":          "# Quokka notes\n\nQuokka quokka quokka.\n",
		// A file name beats another note's title or alias (Obsidian resolves
		// paths and file names only): the Hub's [[An Introduction to
		// Dataview]] went to the talk that has it as an alias, [[Mara-Li]]
		// to notes titled so, not to Mara-Li.md, whose title is "Mara".
		"guides/An Introduction to Dataview.md":     "# An Introduction to [[dataview|Dataview]]\n\nMetadata is data about data.\n",
		"talks/YT - An Introduction to Dataview.md": "---\naliases: [An Introduction to Dataview, Dataview talk]\n---\n# YT - An Introduction to Dataview\n\nThe recording.\n",
		"people/Mara-Li.md":                         "# Mara\n\nAuthor of several plugins.\n",
		"people/Enveloppe.md":                       "---\ntitle: Mara-Li\n---\n# Mara-Li\n\nThe Enveloppe organisation.\n",
		// A title from an H1 that holds a link is the heading as shown.
		"guides/bc-quickstart.md": "# [[Breadcrumbs]] Quickstart [[Guides|Guide]]\n\nSet the fields up.\n",
	})
	ctx := context.Background()
	for q, want := range map[string]string{
		"Keyboard shortcuts":           "help/Hotkeys.md",
		"keyboard SHORTCUTS":           "help/Hotkeys.md",
		"Hotkeys":                      "help/Hotkeys.md",
		"Configuration folder":         "help/Configuration folder.md",
		"Quokka":                       "zoo/Quokka.md",
		"[[Quokka]]":                   "zoo/Quokka.md",
		"An Introduction to Dataview":  "guides/An Introduction to Dataview.md",
		"Mara-Li":                      "people/Mara-Li.md",
		"Breadcrumbs Quickstart Guide": "guides/bc-quickstart.md",
	} {
		hits := tv.search(q, vault.SearchOptions{})
		if len(hits) == 0 || hits[0].Path != want || hits[0].Stage != "exact" {
			t.Errorf("search %q: %+v, want %s first from the exact stage", q, hits, want)
			continue
		}
		if want == "help/Hotkeys.md" && (len(hits[0].HeadingPath) == 0 || hits[0].HeadingPath[0] != "Hotkeys") {
			t.Errorf("search %q delivered %v, not the first section that says something", q, hits[0].HeadingPath)
		}
	}
	for target, want := range map[string]string{
		"Configuration folder":         "help/Configuration folder.md",
		".config":                      "help/Hotkeys.md",
		"Keyboard shortcuts":           "help/Hotkeys.md",
		"Small marsupial":              "zoo/Quokka.md",
		"Quokka":                       "zoo/Quokka.md",
		"Quokka notes":                 "zoo/Quokka notes.md",
		"An Introduction to Dataview":  "guides/An Introduction to Dataview.md",
		"Mara-Li":                      "people/Mara-Li.md",
		"Dataview talk":                "talks/YT - An Introduction to Dataview.md", // an alias, and no file of that name
		"Breadcrumbs Quickstart Guide": "guides/bc-quickstart.md",
	} {
		res, err := tv.Ix.Load(ctx, []string{target}, "")
		if err != nil || res[0].Path != want {
			t.Errorf("load %q: %+v, %v; want %s", target, res, err, want)
		}
		if _, path, err := tv.Ix.Lookups().ResolveLink(ctx, "[["+target+"]]", "", ""); err != nil || path != want {
			t.Errorf("link [[%s]]: %s, %v; want %s", target, path, err, want)
		}
	}
	if _, err := tv.Ix.Load(ctx, []string{"No such name"}, ""); vault.ErrorCode(err) != vault.CodeNotFound {
		t.Errorf("load of a name nothing has: %v", err)
	}
}

// The index reads a note as a reader does: a link's destination and a
// comment are not its words (every Obsidian Hub note ends with links whose
// URLs spell its own path, and opens with template comments), and the
// in-memory BM25 reads the same text as FTS5.
func TestIndex_LinkDestinationsAndCommentsAreNotWords(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"footer.md":  "# Footer\n\n[Edit In GitHub](https://github.dev/hub/blob/main/Kanban%20Updates%20Dropbox.md)\n\n%% add a description below this line %%\n",
		"dropbox.md": "# Dropbox\n\nBack up the vault to Dropbox.\n",
	})
	for _, q := range []string{"dropbox", "description"} {
		for _, h := range tv.search(q, vault.SearchOptions{}) {
			if h.Path == "footer.md" {
				t.Errorf("search %q found footer.md by a URL's or a comment's words", q)
			}
		}
	}
	if hits := tv.search("edit github", vault.SearchOptions{}); !testvault.HasPath(hits, "footer.md") {
		t.Errorf("a link's text is still the note's words: %+v", hits)
	}
	if err := tv.Ix.Resident().Keep(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"dropbox", "description"} {
		for _, h := range tv.search(q, vault.SearchOptions{}) {
			if h.Path == "footer.md" {
				t.Errorf("in memory, search %q found footer.md by a URL's or a comment's words", q)
			}
		}
	}
}

// Among files of the link's name, the one in the linking note's own folder
// comes first, as in Obsidian (getFirstLinkpathDest): an exact path before
// it, the shortest path after it. The Obsidian Hub's plugin notes write
// "Developed by: [[remotely-save]]", and a plugin note of that name beside
// them takes the link in Obsidian. Links, backlink counts and embeds
// follow it; a name with no note to link from (load) takes the shortest.
func TestLinks_AFileInTheLinkingNotesFolderFirst(t *testing.T) {
	t.Parallel()
	tv := newTestVault(t, map[string]string{
		"a/Home.md":  "# Home of a\n\nthe aardvark room\n",
		"bb/Home.md": "# Home of bb\n\nthe bison room\n",
		"bb/note.md": "# Note in bb\n\nsee [[Home]]\n\n## Shown\n\n![[Home]]\n",
		"c/note.md":  "# Note in c\n\nsee [[Home]]\n",
		"Guide.md":   "# Root guide\n\nthe root guide\n",
		"y/Guide.md": "# Guide of y\n\nthe y guide\n",
		"y/links.md": "# Links in y\n\n[[Guide]]\n",
		// Markdown links by a bare file name resolve the same way
		// (markdown.MarkdownTargets), not only beside the linking note.
		"bb/md.md": "# Md in bb\n\n[home](Home.md)\n",
		"c/md.md":  "# Md in c\n\n[home](Home.md)\n",
		"y/md.md":  "# Md in y\n\n[guide](Guide.md)\n",
		// A vault path written in a folder is a vault path (Obsidian's
		// default format writes it so from any folder), not bb/bb/Home.md.
		"bb/path.md": "# Path in bb\n\n[home](bb/Home.md)\n",
	})
	ctx := context.Background()
	if _, err := tv.Ix.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rid := map[string]int64{}
	path := map[int64]string{}
	rows, err := tv.Ix.db.QueryContext(ctx, "SELECT rid, path FROM resources WHERE draft = ''")
	if err != nil {
		t.Fatal(err)
	}
	var rids []int64
	for rows.Next() {
		var r int64
		var p string
		if err := rows.Scan(&r, &p); err != nil {
			t.Fatal(err)
		}
		rid[p], path[r] = r, p
		rids = append(rids, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	pairs, err := tv.Ix.Lookups().LinkPairs(ctx, rids, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range pairs {
		got[path[p[0]]+" → "+path[p[1]]] = true
	}
	wantPairs := []string{"bb/note.md → bb/Home.md", "c/note.md → a/Home.md", "y/links.md → Guide.md",
		"bb/md.md → bb/Home.md", "c/md.md → a/Home.md", "y/md.md → Guide.md", "bb/path.md → bb/Home.md"}
	for _, want := range wantPairs {
		if !got[want] {
			t.Errorf("link pairs %v lack %s", got, want)
		}
	}
	if len(got) != len(wantPairs) {
		t.Errorf("link pairs %v, want exactly %v", got, wantPairs)
	}
	for p, want := range map[string]int{"a/Home.md": 2, "bb/Home.md": 3, "Guide.md": 2, "y/Guide.md": 0} {
		if in, _, err := tv.Ix.Lookups().LinkCounts(ctx, rid[p], ""); err != nil || in != want {
			t.Errorf("links into %s: %d, %v; want %d", p, in, err, want)
		}
	}
	// A link written once counts once out, however many paths it may
	// resolve by: bb/path.md's one link is tried as bb/Home.md and as
	// bb/bb/Home.md.
	for p, want := range map[string]int{"bb/path.md": 1, "bb/md.md": 1, "bb/note.md": 2} {
		if _, out, err := tv.Ix.Lookups().LinkCounts(ctx, rid[p], ""); err != nil || out != want {
			t.Errorf("links out of %s: %d, %v; want %d", p, out, err, want)
		}
	}
	// lore doctor's count of links is the links written: the notes' out-counts summed.
	written := 0
	for _, r := range rids {
		_, out, err := tv.Ix.Lookups().LinkCounts(ctx, r, "")
		if err != nil {
			t.Fatal(err)
		}
		written += out
	}
	if st, err := tv.Ix.Stats(ctx); err != nil || st.Links != written || written != 8 {
		t.Errorf("doctor counts %d links (%v); the notes write %d, want 8", st.Links, err, written)
	}
	if err := tv.Ix.Resident().Keep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := unitsFound(t, tv, "bison", ""); !got["bb/note.md#Shown"] {
		t.Errorf("bb/note.md's embed of [[Home]] is not found by bb/Home.md's words: %v", got)
	}
	if got := unitsFound(t, tv, "aardvark", ""); got["bb/note.md#Shown"] {
		t.Errorf("bb/note.md's embed of [[Home]] is found by a/Home.md's words: %v", got)
	}
	if text, from, _, ok, err := tv.Ix.Lookups().Embedded(ctx, "Home", "", "bb/note.md"); err != nil || !ok || from != "bb/Home.md" || !strings.Contains(text, "bison") {
		t.Errorf("Embedded(Home) from bb/note.md: %q from %s, %v, %v; want bb/Home.md", text, from, ok, err)
	}
	if _, p, err := tv.Ix.Lookups().ResolveLink(ctx, "[[Home]]", "", ""); err != nil || p != "a/Home.md" {
		t.Errorf("[[Home]] from no note: %s, %v; want the shortest path, a/Home.md", p, err)
	}
	if res, err := tv.Ix.Load(ctx, []string{"Home"}, ""); err != nil || res[0].Path != "a/Home.md" {
		t.Errorf("load Home: %+v, %v; want the shortest path, a/Home.md", res, err)
	}
	if _, p, err := tv.Ix.Lookups().ResolveLink(ctx, "[[Home]]", "", "bb/note.md"); err != nil || p != "bb/Home.md" {
		t.Errorf("[[Home]] from bb/note.md: %s, %v; want bb/Home.md", p, err)
	}
}
