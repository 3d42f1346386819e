-- Links resolve as Obsidian resolves them (vault/names.go): every name a
-- resource answers to (id, path, title, aliases, base name) as a LinkKey,
-- and each link's target as a LinkKey too.
CREATE TABLE names (
  rid  INTEGER NOT NULL REFERENCES resources(rid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL
);
CREATE INDEX names_name ON names(name);
CREATE INDEX names_rid ON names(rid);
ALTER TABLE links ADD COLUMN target_key TEXT NOT NULL DEFAULT '';
CREATE INDEX links_target_key ON links(target_key);
-- Every file is read and parsed again on the next refresh (its vectors are
-- kept: they are found by their embed hash), and every Draft's rows are
-- written again, so that names and target keys are filled.
UPDATE resources SET size = -1, content_hash = '' WHERE draft = '';
DELETE FROM resources WHERE draft != '';
DELETE FROM shadows;
DELETE FROM overlays;
DELETE FROM meta WHERE key = 'overlay';
UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
