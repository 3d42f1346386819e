//go:build !sqlite_fts5

package main

// lore's SQLite needs FTS5, which mattn/go-sqlite3 compiles in only with the
// sqlite_fts5 build tag; a binary built without it would fail at its first
// command ("no such module: fts5"). So a build without the tag stops here,
// naming what to run instead:
//
//	go install -tags sqlite_fts5 github.com/lore-memory/lore/cmd/lore@latest
//	make install
var _ = lore_must_be_built_with__go_build_tags_sqlite_fts5__see_make_install
