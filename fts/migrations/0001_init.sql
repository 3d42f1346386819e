-- The lexical index: one row per memory file, its units, its links, and FTS5
-- over the units' tokens (see tokenize.go; the FTS table stores no text).
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE resources (
  rid          INTEGER PRIMARY KEY,
  path         TEXT NOT NULL,
  fspath       TEXT NOT NULL,
  size         INTEGER NOT NULL,
  mod_ns       INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  indexed      INTEGER NOT NULL,          -- 0: skipped (binary, too large, …)
  resource_id  TEXT,                      -- NULL when skipped
  claimed_id   TEXT NOT NULL DEFAULT '',  -- the frontmatter id, even when taken
  id_derived   INTEGER NOT NULL DEFAULT 0,
  project      TEXT NOT NULL DEFAULT '',
  title        TEXT NOT NULL DEFAULT '',
  title_key    TEXT NOT NULL DEFAULT '',
  description  TEXT NOT NULL DEFAULT '',
  meta         TEXT NOT NULL DEFAULT '',  -- description, tags and keywords: the FTS meta column's text
  status       TEXT NOT NULL DEFAULT 'active',
  tier         TEXT NOT NULL DEFAULT '',
  tags         TEXT NOT NULL DEFAULT '[]',
  problem      TEXT NOT NULL DEFAULT '',
  guard        TEXT NOT NULL DEFAULT '',  -- JSON: the guard rules it writes (vault.RuleSpec)
  -- Draft overlay rows (see overlay.go): the Draft that carries this version,
  -- the project that sees it, and its bytes (working-tree rows read the file).
  draft        TEXT NOT NULL DEFAULT '',
  dproject     TEXT NOT NULL DEFAULT '',
  body         BLOB
);
CREATE UNIQUE INDEX resources_path ON resources(draft, path);
CREATE UNIQUE INDEX resources_resource_id ON resources(draft, resource_id) WHERE resource_id IS NOT NULL;
-- Lookups by id or path alone (the exact stage's and load's ORs) need these.
CREATE INDEX resources_id_any ON resources(resource_id);
CREATE INDEX resources_path_any ON resources(path);
CREATE INDEX resources_title_key ON resources(title_key);
-- Files whose frontmatter id is held by another file (rare): see requeueFreedIDs.
CREATE INDEX resources_displaced ON resources(claimed_id)
  WHERE claimed_id != '' AND resource_id IS NOT claimed_id;

CREATE TABLE units (
  uid          INTEGER PRIMARY KEY,
  rid          INTEGER NOT NULL REFERENCES resources(rid) ON DELETE CASCADE,
  unit_key     TEXT NOT NULL,        -- unique among working-tree units
  ord          INTEGER NOT NULL,
  heading_path TEXT NOT NULL,   -- JSON array of strings
  start_byte   INTEGER NOT NULL,
  end_byte     INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  embed_hash   TEXT NOT NULL,   -- sha256 of the text the model embeds (see embedInput)
  tokens       INTEGER NOT NULL,
  content      TEXT NOT NULL
);
CREATE INDEX units_rid ON units(rid);
CREATE INDEX units_unit_key ON units(unit_key);
CREATE INDEX units_embed_hash ON units(embed_hash);

CREATE TABLE links (
  rid     INTEGER NOT NULL REFERENCES resources(rid) ON DELETE CASCADE,
  kind    TEXT NOT NULL,
  target  TEXT NOT NULL,
  heading TEXT NOT NULL DEFAULT ''
);
CREATE INDEX links_rid ON links(rid);
CREATE INDEX links_target ON links(target);

-- Working-tree paths a project's open Drafts replace, rename away or delete:
-- that project does not see the working-tree row at such a path.
CREATE TABLE overlays (
  draft   TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  head    TEXT NOT NULL   -- the Draft head its rows were made from
);
CREATE TABLE shadows (
  project TEXT NOT NULL,
  path    TEXT NOT NULL,
  draft   TEXT NOT NULL,
  PRIMARY KEY (project, path, draft)
) WITHOUT ROWID;

-- The text given to it is tokens made in Go (tokenize.go, stem.go), space
-- separated; the ascii tokenizer keeps each as it is.
CREATE VIRTUAL TABLE units_fts USING fts5(
  path, title, meta, heading, body,
  content='', contentless_delete=1,
  tokenize='ascii'
);
-- Pending terms up to 32 MiB before FTS5 writes a segment (default 1 MiB):
-- a batch of 1,000 notes becomes one segment instead of dozens to merge.
INSERT INTO units_fts(units_fts, rank) VALUES('hashsize', 33554432);

-- Every unit inserted (by the writer: a trigger on insert would open a
-- statement savepoint per unit, and FTS5 flushes at each) or deleted, in
-- order: processes that keep postings in memory follow it (memindex.go).
-- Trimmed to the newest entries as it grows.
CREATE TABLE unit_log (
  seq   INTEGER PRIMARY KEY AUTOINCREMENT,
  uid   INTEGER NOT NULL,
  added INTEGER NOT NULL
);

CREATE TRIGGER units_after_delete AFTER DELETE ON units BEGIN
  DELETE FROM units_fts WHERE rowid = old.uid;
  INSERT INTO unit_log(uid, added) VALUES (old.uid, 0);
END;

