-- The freshness check's fast path (fts/digest.go): stat_key is a salted
-- 62-bit hash of a working-tree row's (path, size, mod_ns), never 0 once
-- written; 0 means "not known" (rows from before this migration until they
-- are filled in at open, rows marked for re-indexing, Draft rows). The
-- index on (draft, stat_key) lets one aggregate over it stand for the
-- whole snapshot when nothing changed.
ALTER TABLE resources ADD COLUMN stat_key INTEGER NOT NULL DEFAULT 0;
CREATE INDEX resources_stat ON resources(draft, stat_key);
INSERT OR IGNORE INTO meta(key, value) VALUES('stat_salt', lower(hex(randomblob(8))));
